import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../../store/db.js';

export const CONFIRM_OPERATIONS = ['rotate', 'revoke', 'scope_grant'] as const;
export type ConfirmOperation = (typeof CONFIRM_OPERATIONS)[number];

export interface ConfirmTokenRow {
  id: string;
  user_id: string;
  operation: ConfirmOperation;
  key_id: string;
  params: Record<string, unknown>;
  expires_at: Date;
  consumed_at: Date | null;
  created_at: Date;
}

const COLUMNS = 'id, user_id, operation, key_id, params, expires_at, consumed_at, created_at';

/** Tokens carry 256 random bits, so an unsalted SHA-256 is enough to store and look them up. */
export function hashConfirmToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A confirm token as issued: `gcct_` + 64 hex characters (256 random bits). */
export const CONFIRM_TOKEN_PATTERN = /^gcct_[0-9a-f]{64}$/;

/** Issues a token; the plaintext is returned once and only its hash is stored. */
export async function createConfirmToken(
  db: Queryable,
  input: { userId: string; keyId: string; operation: ConfirmOperation; params: Record<string, unknown>; ttlSeconds: number },
): Promise<{ token: string; row: ConfirmTokenRow }> {
  const token = `gcct_${randomBytes(32).toString('hex')}`;
  const [row] = await db.query<ConfirmTokenRow>(
    `insert into confirm_tokens (token_hash, user_id, operation, key_id, params, expires_at)
     values ($1, $2, $3, $4, $5::text::jsonb, now() + make_interval(secs => $6::int)) returning ${COLUMNS}`,
    [hashConfirmToken(token), input.userId, input.operation, input.keyId, JSON.stringify(input.params), input.ttlSeconds],
  );
  return { token, row: row! };
}

export async function findConfirmToken(db: Queryable, token: string): Promise<(ConfirmTokenRow & { expired: boolean }) | null> {
  const [row] = await db.query<ConfirmTokenRow & { expired: boolean }>(
    `select ${COLUMNS}, expires_at <= now() as expired from confirm_tokens where token_hash = $1`,
    [hashConfirmToken(token)],
  );
  return row ?? null;
}

/**
 * Marks the token consumed in one conditional UPDATE: of concurrent confirms exactly one gets the
 * row back (the others see consumed_at set once the winner commits, and get null).
 */
export async function consumeConfirmToken(db: Queryable, id: string, userId: string): Promise<ConfirmTokenRow | null> {
  const [row] = await db.query<ConfirmTokenRow>(
    `update confirm_tokens set consumed_at = now()
      where id = $1 and user_id = $2 and consumed_at is null and expires_at > now()
      returning ${COLUMNS}`,
    [id, userId],
  );
  return row ?? null;
}

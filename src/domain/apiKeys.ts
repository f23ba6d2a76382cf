import { generateApiKey } from '../auth/keys.js';
import { isPlan, type Plan } from '../auth/plans.js';
import type { Principal } from '../auth/principal.js';
import type { Queryable } from '../store/db.js';

export interface ApiKeyRow {
  key_id: string;
  user_id: string;
  key_prefix: string;
  name: string;
  plan: Plan;
  environment: string;
  status: string;
  default_model: string | null;
  monthly_quota: number | null;
  enforce_quota: boolean;
  quota_alert_state: string;
  quota_period_start: Date;
  project_id: string | null;
  replaces_key_id: string | null;
  replaced_by_key_id: string | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  created_at: Date;
}

/** Public columns only: the hash never leaves the store. */
const COLUMNS = `key_id, user_id, key_prefix, name, plan, environment, status, default_model, monthly_quota,
  enforce_quota, quota_alert_state, quota_period_start, project_id, replaces_key_id, replaced_by_key_id,
  expires_at, revoked_at, last_used_at, created_at`;

export interface NewKeyInput {
  userId: string;
  name?: string;
  plan: Plan;
  environment?: string;
  expiresAt?: Date | null;
  defaultModel?: string | null;
  monthlyQuota?: number | null;
  enforceQuota?: boolean;
  projectId?: string | null;
  replacesKeyId?: string | null;
}

/** Creates a key and returns its row plus the plaintext, which the caller shows once. */
export async function createApiKey(db: Queryable, input: NewKeyInput): Promise<{ key: string; row: ApiKeyRow }> {
  const generated = generateApiKey();
  const [row] = await db.query<ApiKeyRow>(
    `insert into api_keys (key_id, user_id, key_hash, key_prefix, name, plan, environment, expires_at,
       default_model, monthly_quota, enforce_quota, project_id, replaces_key_id)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) returning ${COLUMNS}`,
    [
      generated.keyId, input.userId, generated.hash, generated.prefix, input.name ?? '', input.plan,
      input.environment ?? 'production', input.expiresAt ?? null, input.defaultModel ?? null,
      input.monthlyQuota ?? null, input.enforceQuota ?? false, input.projectId ?? null, input.replacesKeyId ?? null,
    ],
  );
  return { key: generated.key, row: row! };
}

/** The principal for a usable key: active, not revoked, not past expires_at. The plan is the user's current plan. */
export async function findActiveKeyByHash(db: Queryable, hash: string): Promise<{ principal: Principal; expiresAt: number | null } | null> {
  const [row] = await db.query<{ key_id: string; user_id: string; plan: string; is_admin: boolean; environment: string; project_id: string | null; expires_at: Date | null }>(
    `select k.key_id, k.user_id, u.plan, u.is_admin, k.environment, k.project_id, k.expires_at
       from api_keys k join users u on u.id = k.user_id
      where k.key_hash = $1 and k.status = 'active' and k.revoked_at is null
        and (k.expires_at is null or k.expires_at > now())`,
    [hash],
  );
  if (!row || !isPlan(row.plan)) return null;
  return {
    principal: {
      userId: row.user_id,
      plan: row.plan,
      isAdmin: row.is_admin,
      keyId: row.key_id,
      environment: row.environment,
      projectId: row.project_id,
      via: 'api_key',
    },
    expiresAt: row.expires_at ? row.expires_at.getTime() : null,
  };
}

export async function listApiKeys(db: Queryable, userId: string): Promise<ApiKeyRow[]> {
  return db.query<ApiKeyRow>(`select ${COLUMNS} from api_keys where user_id = $1 order by created_at desc`, [userId]);
}

export async function getApiKey(db: Queryable, userId: string, keyId: string): Promise<ApiKeyRow | null> {
  const [row] = await db.query<ApiKeyRow>(`select ${COLUMNS} from api_keys where user_id = $1 and key_id = $2`, [userId, keyId]);
  return row ?? null;
}

export type RevokeOutcome = { kind: 'revoked'; row: ApiKeyRow } | { kind: 'already-revoked' } | { kind: 'not-found' };

/** Owner-scoped revocation; another user's key is reported as not found. */
export async function revokeApiKey(db: Queryable, userId: string, keyId: string): Promise<RevokeOutcome> {
  const [row] = await db.query<ApiKeyRow>(
    `update api_keys set status = 'revoked', revoked_at = now()
      where user_id = $1 and key_id = $2 and status <> 'revoked' returning ${COLUMNS}`,
    [userId, keyId],
  );
  if (row) return { kind: 'revoked', row };
  return (await getApiKey(db, userId, keyId)) ? { kind: 'already-revoked' } : { kind: 'not-found' };
}

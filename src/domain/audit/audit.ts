import type { Principal } from '../../auth/principal.js';
import type { Queryable } from '../../store/db.js';
import { redactSecrets } from '../../lib/redactSecrets.js';

/**
 * Governance audit: one row per state-changing call (who, what, when, target, outcome).
 * `detail` must never carry a secret: keys, license tokens, webhook bodies and e-mail addresses of
 * third parties stay out; ids and enumerations only. The sanitiser below drops anything that looks
 * like a credential as a last line of defence.
 */

export type AuditOutcome = 'success' | 'denied' | 'failure';

export interface AuditTarget {
  type: string;
  id?: string | null;
}

export interface AuditOptions {
  /** Whose audit trail the row belongs to; defaults to the principal's user. */
  ownerId?: string | null;
  detail?: Record<string, unknown>;
  requestId?: string | null;
}

interface AuditServices {
  db: Queryable;
  log: { error(message: string, fields?: Record<string, unknown>): void };
}

const SECRET_KEY = /(secret|password|token|api_?key|license_key|signature|authorization|^key$)/i;
/** A value holding any credential shape the usage previews redact (src/lib/redactSecrets.ts) is dropped whole. */
const looksSecret = (value: string) => redactSecrets(value) !== value;

export function sanitizeDetail(detail: Record<string, unknown> = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(detail)) {
    if (SECRET_KEY.test(k)) continue;
    if (typeof v === 'string' && looksSecret(v)) continue;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) out[k] = sanitizeDetail(v as Record<string, unknown>);
    else out[k] = v;
  }
  return out;
}

/**
 * Appends an audit row. Never throws: an audit failure is logged, the caller's answer stands.
 * `principal` null means the system acted (a provider webhook, the outbox sender).
 */
export async function audit(
  services: AuditServices,
  principal: Principal | null,
  action: string,
  target: AuditTarget,
  outcome: AuditOutcome,
  options: AuditOptions = {},
): Promise<void> {
  try {
    await services.db.query(
      `insert into audit_log (owner_id, actor_user_id, actor_key_id, actor_via, action, target_type, target_id, outcome, detail, request_id)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9::text::jsonb, $10)`,
      [
        options.ownerId !== undefined ? options.ownerId : principal?.userId ?? null,
        principal?.userId ?? null,
        principal?.keyId ?? null,
        principal ? principal.via : 'system',
        action,
        target.type,
        target.id ?? null,
        outcome,
        JSON.stringify(sanitizeDetail(options.detail)),
        options.requestId ?? null,
      ],
    );
  } catch (err) {
    services.log.error('audit write failed', { action, error: err instanceof Error ? err.message : String(err) });
  }
}

export interface AuditRow {
  id: string;
  owner_id: string | null;
  actor_user_id: string | null;
  actor_key_id: string | null;
  actor_via: string;
  action: string;
  target_type: string | null;
  target_id: string | null;
  outcome: string;
  detail: Record<string, unknown>;
  request_id: string | null;
  created_at: Date;
}

export interface AuditQuery {
  ownerId: string;
  page: number;
  pageSize: number;
  action?: string;
  outcome?: string;
  since?: Date;
  until?: Date;
}

export async function listAudit(db: Queryable, q: AuditQuery): Promise<{ items: AuditRow[]; total: number }> {
  const where = ['owner_id = $1'];
  const params: unknown[] = [q.ownerId];
  if (q.action) {
    params.push(q.action);
    where.push(`action = $${params.length}`);
  }
  if (q.outcome) {
    params.push(q.outcome);
    where.push(`outcome = $${params.length}`);
  }
  if (q.since) {
    params.push(q.since);
    where.push(`created_at >= $${params.length}`);
  }
  if (q.until) {
    params.push(q.until);
    where.push(`created_at < $${params.length}`);
  }
  const clause = where.join(' and ');
  const [count] = await db.query<{ n: number }>(`select count(*)::int as n from audit_log where ${clause}`, params);
  const items = await db.query<AuditRow>(
    `select id, owner_id, actor_user_id, actor_key_id, actor_via, action, target_type, target_id, outcome, detail, request_id, created_at
       from audit_log where ${clause} order by seq desc limit $${params.length + 1} offset $${params.length + 2}`,
    [...params, q.pageSize, (q.page - 1) * q.pageSize],
  );
  return { items, total: count!.n };
}

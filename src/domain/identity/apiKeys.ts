import { generateApiKey } from '../../auth/keys.js';
import { isPlan, type Plan } from '../../auth/plans.js';
import type { Principal } from '../../auth/principal.js';
import type { Queryable } from '../../store/db.js';
import { forbidden } from '../errors.js';

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
  scopes: string[];
}

/** Public columns only: the hash never leaves the store. */
const COLUMNS = `key_id, user_id, key_prefix, name, plan, environment, status, default_model, monthly_quota,
  enforce_quota, quota_alert_state, quota_period_start, project_id, replaces_key_id, replaced_by_key_id,
  expires_at, revoked_at, last_used_at, created_at, scopes`;

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
  const [row] = await db.query<{ key_id: string; user_id: string; plan: string; is_admin: boolean; environment: string; project_id: string | null; expires_at: Date | null; monthly_quota: number | null; store_input_previews: boolean }>(
    `select k.key_id, k.user_id, u.plan, u.is_admin, k.environment, k.project_id, k.expires_at, k.monthly_quota, u.store_input_previews
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
      monthlyQuota: row.monthly_quota,
      storeInputPreviews: row.store_input_previews,
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

export interface KeyChanges {
  name?: string;
  defaultModel?: string | null;
  /** Present (even null) means the quota changed: the alert state and period restart. */
  monthlyQuota?: number | null;
  enforceQuota?: boolean;
  /** Present (even null) rebinds; null unbinds (the caller's Default). The caller checks ownership. */
  projectId?: string | null;
}

/** Owner-scoped partial update; null when the key is unknown or not the caller's. */
export async function updateApiKey(db: Queryable, userId: string, keyId: string, changes: KeyChanges): Promise<ApiKeyRow | null> {
  const sets: string[] = [];
  const params: unknown[] = [userId, keyId];
  const set = (column: string, value: unknown) => {
    params.push(value);
    sets.push(`${column} = $${params.length}`);
  };
  if (changes.name !== undefined) set('name', changes.name);
  if (changes.defaultModel !== undefined) set('default_model', changes.defaultModel);
  if (changes.enforceQuota !== undefined) set('enforce_quota', changes.enforceQuota);
  if (changes.projectId !== undefined) set('project_id', changes.projectId);
  if (changes.monthlyQuota !== undefined) {
    set('monthly_quota', changes.monthlyQuota);
    sets.push(`quota_alert_state = 'none'`, 'quota_period_start = now()');
  }
  if (sets.length === 0) return getApiKey(db, userId, keyId);
  const [row] = await db.query<ApiKeyRow>(
    `update api_keys set ${sets.join(', ')} where user_id = $1 and key_id = $2 returning ${COLUMNS}`,
    params,
  );
  return row ?? null;
}

export type RotateOutcome =
  | { kind: 'rotated'; key: string; successor: ApiKeyRow; predecessor: ApiKeyRow }
  | { kind: 'not-found' }
  | { kind: 'revoked' }
  | { kind: 'already-rotated'; successorId: string };

/**
 * Rotation in one transaction (the predecessor row is locked so two rotations cannot both link).
 * The successor inherits environment, default_model, enforce_quota, monthly_quota and the project
 * binding; its plan is the caller's current plan. The predecessor keeps working until now + grace
 * (an earlier expiry it already had is kept).
 */
export async function rotateApiKey(
  db: Queryable,
  input: { userId: string; keyId: string; plan: Plan; graceDays: number; name?: string | null },
): Promise<RotateOutcome> {
  const [old] = await db.query<ApiKeyRow>(
    `select ${COLUMNS} from api_keys where user_id = $1 and key_id = $2 for update`,
    [input.userId, input.keyId],
  );
  if (!old) return { kind: 'not-found' };
  if (old.status === 'revoked') return { kind: 'revoked' };
  if (old.replaced_by_key_id) return { kind: 'already-rotated', successorId: old.replaced_by_key_id };
  const { key, row: successor } = await createApiKey(db, {
    userId: input.userId,
    name: input.name ?? old.name,
    plan: input.plan,
    environment: old.environment,
    defaultModel: old.default_model,
    monthlyQuota: old.monthly_quota,
    enforceQuota: old.enforce_quota,
    projectId: old.project_id,
    replacesKeyId: old.key_id,
  });
  const [predecessor] = await db.query<ApiKeyRow>(
    `update api_keys
        set replaced_by_key_id = $3,
            expires_at = least(coalesce(expires_at, 'infinity'::timestamptz), now() + make_interval(days => $4::int))
      where user_id = $1 and key_id = $2 returning ${COLUMNS}`,
    [input.userId, input.keyId, successor.key_id, input.graceDays],
  );
  return { kind: 'rotated', key, successor, predecessor: predecessor! };
}

/** Adds OAuth-style scopes to a key (confirm-token operation scope_grant). */
export async function grantKeyScope(db: Queryable, userId: string, keyId: string, scope: string): Promise<ApiKeyRow | null> {
  const [row] = await db.query<ApiKeyRow>(
    `update api_keys set scopes = case when $3 = any(scopes) then scopes else array_append(scopes, $3::text) end
      where user_id = $1 and key_id = $2 returning ${COLUMNS}`,
    [userId, keyId, scope],
  );
  return row ?? null;
}

/*
 * Helpers for the MCP key tools (gc_mint_api_key, gc_revoke_api_key, gc_rebind_api_key). Unlike
 * REST, the spec makes a cross-user key a 403 there, so these tell "another user's" apart from
 * "unknown".
 */
export const MINT_DEFAULT_EXPIRY_DAYS = 30;
export const MINT_MAX_EXPIRY_DAYS = 365;

/** gc_mint_api_key: a key for the caller, on the caller's current plan, expiring in 1-365 days (default 30). */
/**
 * The project a key made or re-bound by `principal` may be bound to. A project-bound key acts inside
 * its project only: it may create or bind keys to that project (the default) and to no other, nor
 * unbind them. User-scoped callers choose freely (ownership is checked separately).
 */
export function projectForKey(principal: Principal, requested: string | null | undefined): string | null | undefined {
  if (!principal.projectId) return requested;
  if (requested === undefined || requested === principal.projectId) return principal.projectId;
  throw forbidden(`A key bound to project '${principal.projectId}' can only make or bind keys of that same project`);
}

export async function mintApiKey(
  db: Queryable,
  principal: Principal,
  input: { name?: string; expiresInDays?: number | null; environment?: string },
): Promise<{ key: string; row: ApiKeyRow }> {
  const days = input.expiresInDays ?? MINT_DEFAULT_EXPIRY_DAYS;
  if (!Number.isInteger(days) || days < 1 || days > MINT_MAX_EXPIRY_DAYS) {
    throw new RangeError(`expires_in_days must be an integer from 1 to ${MINT_MAX_EXPIRY_DAYS}`);
  }
  const [user] = await db.query<{ plan: string }>('select plan from users where id = $1', [principal.userId]);
  const plan = isPlan(user?.plan) ? user.plan : principal.plan;
  return createApiKey(db, {
    userId: principal.userId,
    name: input.name ?? 'mcp',
    plan,
    environment: input.environment ?? principal.environment ?? 'production',
    projectId: projectForKey(principal, undefined) ?? null,
    expiresAt: new Date(Date.now() + days * 86_400_000),
  });
}

export type StrictKeyOutcome =
  | { kind: 'ok'; row: ApiKeyRow }
  | { kind: 'not-found' }
  | { kind: 'forbidden' }
  | { kind: 'already-revoked' }
  | { kind: 'project-not-found' };

async function ownerOf(db: Queryable, keyId: string): Promise<string | null> {
  const [row] = await db.query<{ user_id: string }>('select user_id from api_keys where key_id = $1', [keyId]);
  return row?.user_id ?? null;
}

/** gc_revoke_api_key: another user's key is 'forbidden'. The caller publishes the revocation. */
export async function revokeApiKeyStrict(db: Queryable, userId: string, keyId: string): Promise<StrictKeyOutcome> {
  const owner = await ownerOf(db, keyId);
  if (!owner) return { kind: 'not-found' };
  if (owner !== userId) return { kind: 'forbidden' };
  const outcome = await revokeApiKey(db, userId, keyId);
  return outcome.kind === 'revoked' ? { kind: 'ok', row: outcome.row } : outcome;
}

/** gc_rebind_api_key: binds the caller's key to one of the caller's projects (null unbinds). */
export async function rebindApiKey(db: Queryable, userId: string, keyId: string, projectId: string | null): Promise<StrictKeyOutcome> {
  const owner = await ownerOf(db, keyId);
  if (!owner) return { kind: 'not-found' };
  if (owner !== userId) return { kind: 'forbidden' };
  if (projectId !== null) {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(projectId);
    const [project] = uuid ? await db.query('select 1 from projects where id = $1 and owner_id = $2', [projectId, userId]) : [];
    if (!project) return { kind: 'project-not-found' };
  }
  const row = await updateApiKey(db, userId, keyId, { projectId });
  return row ? { kind: 'ok', row } : { kind: 'not-found' };
}

/** KeyListItem: everything about a key except its secret. */
export function keyListItem(row: ApiKeyRow) {
  return {
    key_id: row.key_id,
    name: row.name,
    key_prefix: row.key_prefix,
    plan: row.plan,
    environment: row.environment,
    status: row.status,
    default_model: row.default_model,
    monthly_quota: row.monthly_quota,
    enforce_quota: row.enforce_quota,
    quota_alert_state: row.quota_alert_state,
    quota_period_start: row.quota_period_start,
    project_id: row.project_id,
    scopes: row.scopes,
    replaces_key_id: row.replaces_key_id,
    replaced_by_key_id: row.replaced_by_key_id,
    expires_at: row.expires_at,
    revoked_at: row.revoked_at,
    last_used_at: row.last_used_at,
    created_at: row.created_at,
  };
}

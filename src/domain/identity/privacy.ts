// The account's privacy settings (issue 45). One today: whether usage events keep an input preview
// (the request's first line, cut to 100 characters, credentials redacted before the cut). Off keeps
// no preview at all. The setting travels with the caller (Principal.storeInputPreviews), read with
// the key at authentication like the plan, so a change reaches this instance at once (its cached
// callers are dropped) and other instances within the authentication cache's bound (AUTH_CACHE_MS).
import type { Principal } from '../../auth/principal.js';
import type { Queryable } from '../../store/db.js';
import { forbidden, notFound } from '../errors.js';

export interface PrivacySettings {
  store_input_previews: boolean;
}

export async function getPrivacySettings(db: Queryable, userId: string): Promise<PrivacySettings> {
  const [row] = await db.query<PrivacySettings>('select store_input_previews from users where id = $1', [userId]);
  if (!row) throw notFound('Account not found');
  return { store_input_previews: row.store_input_previews };
}

/** Only present fields change. A project-bound key acts for its project, not for the account. */
export async function updatePrivacySettings(db: Queryable, principal: Principal, change: Partial<PrivacySettings>): Promise<PrivacySettings> {
  if (principal.projectId) throw forbidden('A project-bound key cannot change account settings; use an account key');
  if (change.store_input_previews === undefined) return getPrivacySettings(db, principal.userId);
  const [row] = await db.query<PrivacySettings>(
    'update users set store_input_previews = $2 where id = $1 returning store_input_previews',
    [principal.userId, change.store_input_previews],
  );
  if (!row) throw notFound('Account not found');
  return { store_input_previews: row.store_input_previews };
}

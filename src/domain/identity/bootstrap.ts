import type { Db } from '../../store/db.js';
import { createApiKey } from './apiKeys.js';
import { countUsers, createUser } from './users.js';

/**
 * On first start with an empty database: an owner account (Enterprise, admin) and its first key.
 * Returns the plaintext key so the caller prints it once; it is not stored anywhere.
 */
export async function bootstrapOwner(db: Db): Promise<{ userId: string; key: string; keyId: string } | null> {
  return db.transaction(async (tx) => {
    // Serialises concurrent first starts of several instances on one database.
    await tx.query("select pg_advisory_xact_lock(727001)");
    if ((await countUsers(tx)) > 0) return null;
    const user = await createUser(tx, { name: 'owner', plan: 'enterprise', isAdmin: true });
    const { key, row } = await createApiKey(tx, { userId: user.id, name: 'owner', plan: user.plan });
    return { userId: user.id, key, keyId: row.key_id };
  });
}

// Work that one instance at a time may do, across every instance on one PostgreSQL database, held by a
// PostgreSQL advisory lock (the database's own tool; no home-made election). The lock is transaction
// scoped: a transaction on one pooled connection takes it and stays open while `fn` runs on the other
// connections, and it is released by the commit, by the rollback when fn throws, or by the server when
// the holding process dies (its connection closes). The embedded database belongs to one process (the
// data folder's lock), so there fn simply runs.
import type { Db } from './db.js';

/** Names of the locks (hashed into PostgreSQL's one bigint key space by hashtext). */
export type LockName = 'gc:migrations' | 'gc:meter-sync';

/** Runs fn once this instance holds `name`, waiting for another holder to finish first. */
export function withAdvisoryLock<T>(db: Db, name: LockName, fn: () => Promise<T>): Promise<T> {
  if (db.kind !== 'postgres') return fn();
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock(hashtext($1))', [name]);
    return fn();
  });
}

/** Runs fn if no other instance holds `name` now; null (fn not run) when another does. */
export function ifAdvisoryLockFree<T>(db: Db, name: LockName, fn: () => Promise<T>): Promise<T | null> {
  if (db.kind !== 'postgres') return fn();
  return db.transaction(async (tx) => {
    const [row] = await tx.query<{ held: boolean }>('select pg_try_advisory_xact_lock(hashtext($1)) as held', [name]);
    return row?.held ? fn() : null;
  });
}

import type { Config } from '../config.js';
import type { Logger } from '../lib/log.js';
import type { Db } from './db.js';
import { migrate } from './migrate.js';

export type { Db, Queryable } from './db.js';
export { DatabaseUnavailableError } from './db.js';

/** Opens PostgreSQL when DATABASE_URL is set, else embedded PGlite, and brings the schema up to date. */
export async function openStore(config: Pick<Config, 'databaseUrl' | 'dataDir'> & Partial<Pick<Config, 'pgliteThread'>>, log?: Logger): Promise<Db> {
  const db = config.databaseUrl
    ? await (await import('./postgres.js')).openPostgres(config.databaseUrl)
    : await (await import('./pglite.js')).openPglite(config.dataDir, { thread: config.pgliteThread, log });
  await migrate(db);
  return db;
}

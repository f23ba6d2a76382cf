import type { CircuitBreaker } from '../lib/breaker.js';
import { DatabaseUnavailableError, type Db, type Queryable } from './db.js';

// Errors that mean "cannot talk to the database", as opposed to a bad statement.
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'CONNECT_TIMEOUT',
  'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', '57P01', '57P02', '57P03', '08000', '08003', '08006']);

function isConnectionError(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  // PGlite has no connection: a closed embedded database says so in its message.
  return err instanceof Error && /^PGlite is closed/.test(err.message);
}

/** Routes every query through a breaker so a dead database yields fast 503s, never partial data. */
export function guardDb(db: Db, breaker: CircuitBreaker): Db {
  async function guarded<T>(work: () => Promise<T>): Promise<T> {
    if (!breaker.allow()) throw new DatabaseUnavailableError('database circuit open');
    try {
      const result = await work();
      breaker.success();
      return result;
    } catch (err) {
      if (!isConnectionError(err)) throw err;
      breaker.failure();
      throw new DatabaseUnavailableError((err as Error).message);
    }
  }
  const query: Queryable['query'] = (sql, params) => guarded(() => db.query(sql, params));
  return {
    kind: db.kind,
    query,
    transaction: (fn) => guarded(() => db.transaction(fn)),
    close: () => db.close(),
    ...(db.copyJsonRows ? { copyJsonRows: (table: string, columns: readonly string[], rows: readonly string[]) => guarded(() => db.copyJsonRows!(table, columns, rows)) } : {}),
  };
}

/** The one small query interface every domain module uses; both backends implement it. */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
}

export interface Db extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Runs fn in one transaction; a throw rolls it back. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * The embedded database only: appends rows, given as JSON object texts, to `table` by COPY (about a
   * third less CPU per row than an INSERT there). No conflict handling: a duplicate key fails the call.
   */
  copyJsonRows?(table: string, columns: readonly string[], rows: readonly string[]): Promise<void>;
}

/** Raised when the database cannot be reached; the HTTP layer answers 503. */
export class DatabaseUnavailableError extends Error {
  override name = 'DatabaseUnavailableError';
}

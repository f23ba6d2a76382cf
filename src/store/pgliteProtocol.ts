// Messages between the event loop (pgliteThread.ts) and the PGlite thread (pgliteWorker.ts).

/** What the thread is asked: a query (inside transaction `tx` when set), a transaction's start or end, or close. */
export type PgliteRequest =
  | { id: number; op: 'query'; sql: string; params: readonly unknown[]; tx?: number }
  | { id: number; op: 'copy'; table: string; columns: readonly string[]; rows: readonly string[] }
  | { id: number; op: 'begin'; tx: number }
  | { id: number; op: 'end'; tx: number; commit: boolean }
  | { id: number; op: 'close' }
  /** Tests only (crashPgliteThreads): the thread throws an uncaught error, as a crash in PGlite would. */
  | { id: number; op: 'crash' };

/** An error as it crosses the thread boundary: its name, message, stack and own enumerable properties (code, detail…). */
export interface WireError {
  name: string;
  message: string;
  stack?: string;
  props: Record<string, unknown>;
}

/** The answer to request `id` (id 0: the database is open). */
export type PgliteReply = { id: number; rows: unknown[] } | { id: number; error: WireError };

export interface PgliteWorkerData {
  dataDir: string;
  /** A dumped data dir (PGlite.dumpDataDir) an in-memory database starts from (shared: not copied per thread). */
  template: Uint8Array<ArrayBufferLike> | null;
  /** Shared with the event loop: [0] counts queries handed to PGlite, readable even while the thread is busy (pgliteQueriesStarted). */
  started: Int32Array<SharedArrayBuffer>;
}

/** Plain form of an error; values that cannot be cloned to the other thread (functions…) are left out. */
export function toWire(err: unknown): WireError {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err), props: {} };
  const props: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(err)) {
    try {
      props[k] = structuredClone(v);
    } catch {
      // not cloneable: dropped
    }
  }
  return { name: err.name, message: err.message, stack: err.stack, props };
}

/** The Error a caller sees: same name, message and properties as in the PGlite thread. */
export function fromWire(w: WireError): Error {
  const err = new Error(w.message);
  Object.assign(err, w.props);
  Object.defineProperty(err, 'name', { value: w.name, enumerable: false, writable: true, configurable: true });
  if (w.stack) err.stack = w.stack;
  return err;
}

import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { createLogger, type Logger } from '../lib/log.js';
import { packageRoot } from '../lib/root.js';
import type { Db, Queryable } from './db.js';
import { makeClusterIfNew } from './pgliteSettings.js';
import { fromWire, type PgliteReply, type PgliteRequest, type PgliteWorkerData } from './pgliteProtocol.js';

const CLOSE_TIMEOUT_MS = 10_000;

/** Every open PGlite thread of this process and the Db over each, for crashPgliteThreads. */
const live = new Set<Worker>();
const threadOf = new WeakMap<Db, Worker>();

/**
 * Tests: ends every open PGlite thread as a crash would: 'error' throws an uncaught error in it (once
 * it is between queries), 'terminate' stops it at once, mid-query (a fatal abort). `only`: just that
 * database's thread. Resolves once they have exited.
 */
export async function crashPgliteThreads(how: 'error' | 'terminate' = 'error', only?: Db): Promise<number> {
  const workers = only ? [threadOf.get(only)].filter((w): w is Worker => w !== undefined && live.has(w)) : [...live];
  await Promise.all(
    workers.map((w) => {
      const exited = new Promise((resolve) => w.once('exit', resolve));
      if (how === 'terminate') void w.terminate();
      else w.postMessage({ id: -1, op: 'crash' });
      return exited;
    }),
  );
  return workers.length;
}

type Pending = { resolve(rows: unknown[]): void; reject(err: Error): void };
type Outgoing = PgliteRequest extends infer R ? (R extends PgliteRequest ? Omit<R, 'id'> : never) : never;

/**
 * PGlite in its own thread (src/store/pgliteWorker.ts): the event loop only posts a query and takes
 * its rows back, never runs the WASM. The thread is unreferenced while idle, so an open database holds
 * a process no more than an in-process PGlite did; a request in flight keeps the process up.
 */
export async function openPgliteThread(dataDir: string, template: Uint8Array<ArrayBufferLike> | null, log: Logger = createLogger()): Promise<Db> {
  await makeClusterIfNew(dataDir);
  const data: PgliteWorkerData = { dataDir, template };
  const worker = new Worker(join(packageRoot(), 'dist', 'src', 'store', 'pgliteWorker.js'), { workerData: data });
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let nextTx = 1;
  // Set once closed or crashed: every later request rejects with it.
  let closedError: Error | null = null;

  const settle = (err: Error) => {
    closedError ??= err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  const opened = new Promise<void>((resolve, reject) => {
    pending.set(0, { resolve: () => resolve(), reject });
  });
  worker.on('message', (m: PgliteReply) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (pending.size === 0) worker.unref();
    if ('error' in m) p.reject(fromWire(m.error));
    else p.resolve(m.rows);
  });
  // A crash ends the database for this process: pending and later queries reject at once (guardDb
  // turns "PGlite is closed" into a 503), readiness reports the database unavailable. No restart:
  // an in-memory database would come back empty, and a data dir the crash may have left mid-write
  // is better reopened by a fresh process (the orchestrator's restart on failed readiness).
  live.add(worker);
  worker.on('error', (err) => {
    log.error('PGlite thread crashed', { error: String(err), data_dir: dataDir });
    settle(new Error(`PGlite is closed: its thread crashed (${err.message})`));
  });
  worker.on('exit', (code) => {
    live.delete(worker);
    if (!closedError) log.error('PGlite thread exited', { code, data_dir: dataDir });
    settle(new Error(`PGlite is closed: its thread exited with code ${code}`));
  });

  function request(msg: Outgoing): Promise<unknown[]> {
    if (closedError) return Promise.reject(closedError);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      if (pending.size === 0) worker.ref();
      pending.set(id, { resolve, reject });
      try {
        worker.postMessage({ ...msg, id });
      } catch (err) {
        // Not posted (a parameter that cannot be cloned): no answer will come, so it must not hold the thread referenced.
        pending.delete(id);
        if (pending.size === 0) worker.unref();
        throw err;
      }
    });
  }

  const queryIn = (tx: number | undefined): Queryable => ({
    query: <T>(sql: string, params: readonly unknown[] = []) => request({ op: 'query', sql, params, tx }) as Promise<T[]>,
  });

  try {
    await opened;
  } catch (err) {
    await worker.terminate();
    throw err;
  }
  const db: Db = {
    kind: 'pglite',
    query: queryIn(undefined).query,
    copyJsonRows: async (table, columns, rows) => void (await request({ op: 'copy', table, columns, rows })),
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const tx = nextTx++;
      await request({ op: 'begin', tx });
      let result: T;
      try {
        result = await fn(queryIn(tx));
      } catch (err) {
        await request({ op: 'end', tx, commit: false }).catch(() => undefined);
        throw err;
      }
      await request({ op: 'end', tx, commit: true });
      return result;
    },
    async close() {
      if (closedError) return;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      const closing = request({ op: 'close' });
      closedError = new Error('PGlite is closed');
      // A close stuck behind a transaction that never ends must not hold shutdown forever.
      let timer: NodeJS.Timeout | undefined;
      const stuck = new Promise<void>((resolve) => (timer = setTimeout(() => (log.warn('PGlite close timed out; thread stopped'), resolve()), CLOSE_TIMEOUT_MS)));
      await Promise.race([closing.catch((err: Error) => log.warn('PGlite close failed', { error: err.message })), stuck]);
      clearTimeout(timer);
      await worker.terminate();
      await exited;
    },
  };
  threadOf.set(db, worker);
  return db;
}

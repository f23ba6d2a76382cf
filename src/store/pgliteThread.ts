import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { createLogger, type Logger } from '../lib/log.js';
import { packageRoot } from '../lib/root.js';
import { ThreadClient } from '../pool/threadClient.js';
import type { Db, Queryable } from './db.js';
import { makeClusterIfNew } from './pgliteSettings.js';
import { fromWire, type PgliteReply, type PgliteRequest, type PgliteWorkerData } from './pgliteProtocol.js';

const CLOSE_TIMEOUT_MS = 10_000;

/** Every open PGlite thread of this process and the Db over each, for crashPgliteThreads. */
const live = new Set<Worker>();
const threadOf = new WeakMap<Db, Worker>();
const startedOf = new WeakMap<Db, Int32Array<SharedArrayBuffer>>();

/**
 * Tests: how many queries this database's thread has handed to PGlite (a query waiting behind a
 * transaction counts once handed over). Read from shared memory, so it answers while the thread is busy.
 */
export function pgliteQueriesStarted(db: Db): number {
  const started = startedOf.get(db);
  if (!started) throw new Error('not a threaded PGlite database');
  return Atomics.load(started, 0);
}

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

type Outgoing = PgliteRequest extends infer R ? (R extends PgliteRequest ? Omit<R, 'id'> : never) : never;

/**
 * PGlite in its own thread (src/store/pgliteWorker.ts): the event loop only posts a query and takes
 * its rows back, never runs the WASM. The thread is unreferenced while idle, so an open database holds
 * a process no more than an in-process PGlite did; a request in flight keeps the process up.
 */
export async function openPgliteThread(dataDir: string, template: Uint8Array<ArrayBufferLike> | null, log: Logger = createLogger()): Promise<Db> {
  await makeClusterIfNew(dataDir);
  const started = new Int32Array(new SharedArrayBuffer(4));
  const data: PgliteWorkerData = { dataDir, template, started };
  let nextTx = 1;
  let crashed = false;
  // A crash ends the database for this process: pending and later queries reject at once (guardDb
  // turns "PGlite is closed" into a 503), readiness reports the database unavailable. No restart:
  // an in-memory database would come back empty, and a data dir the crash may have left mid-write
  // is better reopened by a fresh process (the orchestrator's restart on failed readiness).
  const thread = new ThreadClient<Outgoing>({
    file: join(packageRoot(), 'dist', 'src', 'store', 'pgliteWorker.js'),
    workerData: data,
    unrefWhenIdle: true,
    encode: (id, msg) => ({ ...msg, id }),
    decode: (m) => {
      const reply = m as PgliteReply;
      return 'error' in reply ? { id: reply.id, error: fromWire(reply.error) } : { id: reply.id, value: reply.rows };
    },
    gone: ({ error, code, closing }) => {
      if (error) {
        crashed = true;
        log.error('PGlite thread crashed', { error: String(error), data_dir: dataDir });
        return new Error(`PGlite is closed: its thread crashed (${error.message})`);
      }
      live.delete(worker);
      if (!closing && !crashed) log.error('PGlite thread exited', { code, data_dir: dataDir });
      return new Error(`PGlite is closed: its thread exited with code ${code}`);
    },
  });
  const worker = thread.worker;
  live.add(worker);
  const opened = thread.expect<void>(0);
  const request = (msg: Outgoing) => thread.request<unknown[]>(msg);

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
    close: () =>
      // A close stuck behind a transaction that never ends must not hold shutdown forever.
      thread.close({ op: 'close' }, { timeoutMs: CLOSE_TIMEOUT_MS, closedError: new Error('PGlite is closed'), onTimeout: () => log.warn('PGlite close timed out; thread stopped') }),
  };
  threadOf.set(db, worker);
  startedOf.set(db, started);
  return db;
}

import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { createLogger, type Logger } from '../lib/log.js';
import { packageRoot } from '../lib/root.js';
import type { Db, Queryable } from './db.js';
import { fromWire, type PgliteReply, type PgliteRequest, type PgliteWorkerData } from './pgliteProtocol.js';

const CLOSE_TIMEOUT_MS = 10_000;

type Pending = { resolve(rows: unknown[]): void; reject(err: Error): void };
type Outgoing = PgliteRequest extends infer R ? (R extends PgliteRequest ? Omit<R, 'id'> : never) : never;

/**
 * PGlite in its own thread (src/store/pgliteWorker.ts): the event loop only posts a query and takes
 * its rows back, never runs the WASM. The thread is unreferenced while idle, so an open database holds
 * a process no more than an in-process PGlite did; a request in flight keeps the process up.
 */
export async function openPgliteThread(dataDir: string, template: Uint8Array<ArrayBufferLike> | null, log: Logger = createLogger()): Promise<Db> {
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
  worker.on('error', (err) => {
    log.error('PGlite thread crashed', { error: String(err), data_dir: dataDir });
    settle(new Error(`PGlite is closed: its thread crashed (${err.message})`));
  });
  worker.on('exit', (code) => settle(new Error(`PGlite is closed: its thread exited with code ${code}`)));

  function request(msg: Outgoing): Promise<unknown[]> {
    if (closedError) return Promise.reject(closedError);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      if (pending.size === 0) worker.ref();
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...msg, id });
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
  return {
    kind: 'pglite',
    query: queryIn(undefined).query,
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
}

// The PGlite thread: owns the embedded database so its WASM work never runs on the event loop.
// Requests are answered by id; a transaction stays open across messages until its 'end'.
import { mkdirSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { copyJsonRowsInto } from './copyCsv.js';
import { PGLITE_OPTIONS } from './pgliteSettings.js';
import { toWire, type PgliteReply, type PgliteRequest, type PgliteWorkerData } from './pgliteProtocol.js';

const port = parentPort!;
const { dataDir, template, started } = workerData as PgliteWorkerData;
const send = (reply: PgliteReply) => port.postMessage(reply);
const fail = (id: number, err: unknown) => send({ id, error: toWire(err) });

/** Open transactions by id: the PGlite handle and how to end it. */
const open = new Map<number, { tx: Transaction; end(id: number, commit: boolean): void }>();
const ROLLBACK = Symbol('rollback');

function begin(id: number, txId: number): void {
  let endId = -1;
  void pg
    .transaction(async (tx) => {
      const ended = new Promise<boolean>((resolve) => open.set(txId, { tx, end: (eid, commit) => ((endId = eid), resolve(commit)) }));
      send({ id, rows: [] });
      if (!(await ended)) throw ROLLBACK;
    })
    .then(
      () => (open.delete(txId), send({ id: endId, rows: [] })),
      (err) => {
        open.delete(txId);
        if (endId < 0) fail(id, err); // BEGIN itself failed
        else if (err === ROLLBACK) send({ id: endId, rows: [] });
        else fail(endId, err); // COMMIT failed
      },
    );
}

async function query(id: number, sql: string, params: readonly unknown[], txId: number | undefined): Promise<void> {
  try {
    let target: Pick<PGlite, 'query'> = pg;
    if (txId !== undefined) {
      const t = open.get(txId);
      if (!t) throw new Error('Transaction is closed');
      target = t.tx;
    }
    Atomics.add(started, 0, 1);
    const result = await target.query(sql, params as unknown[]);
    send({ id, rows: result.rows });
  } catch (err) {
    fail(id, err);
  }
}

async function copy(id: number, table: string, columns: readonly string[], rows: readonly string[]): Promise<void> {
  try {
    await copyJsonRowsInto(pg, table, columns, rows);
    send({ id, rows: [] });
  } catch (err) {
    fail(id, err);
  }
}

if (dataDir !== 'memory://') mkdirSync(dataDir, { recursive: true });
// The template sits in shared memory; the Blob takes its own copy of it.
const templateBlob = template ? new Blob([template as Uint8Array<ArrayBuffer>]) : null;
const pg = dataDir !== 'memory://' ? new PGlite(dataDir, PGLITE_OPTIONS) : new PGlite({ ...PGLITE_OPTIONS, ...(templateBlob ? { loadDataDir: templateBlob } : {}) });

port.on('message', (m: PgliteRequest) => {
  switch (m.op) {
    case 'query':
      return void query(m.id, m.sql, m.params, m.tx);
    case 'copy':
      return void copy(m.id, m.table, m.columns, m.rows);
    case 'begin':
      return begin(m.id, m.tx);
    case 'end': {
      const t = open.get(m.tx);
      if (t) t.end(m.id, m.commit);
      else fail(m.id, new Error('Transaction is closed'));
      return;
    }
    case 'crash':
      return void setImmediate(() => {
        throw new Error('PGlite thread crash (test hook)');
      });
    case 'close':
      return void pg.close().then(
        () => send({ id: m.id, rows: [] }),
        (err) => fail(m.id, err),
      );
  }
});

pg.waitReady.then(
  () => send({ id: 0, rows: [] }),
  (err) => fail(0, err),
);

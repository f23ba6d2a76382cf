import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import type { Logger } from '../lib/log.js';
import { copyJsonRowsInto } from './copyCsv.js';
import type { Db, Queryable } from './db.js';
import { makeClusterIfNew, PGLITE_OPTIONS } from './pgliteSettings.js';
import { openPgliteThread } from './pgliteThread.js';

type PgliteTx = { query: PGlite['query'] };

function wrap(target: PgliteTx): Queryable {
  return {
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const result = await target.query<T>(sql, params as unknown[]);
      return result.rows;
    },
  };
}

// A dumped data dir (PGlite.dumpDataDir) that in-memory databases start from instead of an initdb.
let memoryTemplate: Blob | null = null;
// The same dump in shared memory: each PGlite thread reads it in place instead of getting a copy.
let memoryTemplateBytes: Promise<Uint8Array<SharedArrayBuffer>> | null = null;

/**
 * Starts every later in-memory database from a copy of this dump (null: empty again). The test suite
 * dumps a migrated database once per run, which spares each test server the initdb and the migrations.
 */
export function startMemoryDatabasesFrom(dump: Blob | null): void {
  memoryTemplate = dump;
  memoryTemplateBytes = dump ? dump.arrayBuffer().then((b) => shared(new Uint8Array(b))) : null;
}

/** The dump memory:// databases start from, if any (a test that swaps it puts it back). */
export function memoryDatabaseDump(): Blob | null {
  return memoryTemplate;
}

function shared(bytes: Uint8Array): Uint8Array<SharedArrayBuffer> {
  const out = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  out.set(bytes);
  return out;
}

/** The Db over an open PGlite. */
export function pgliteDb(pg: PGlite): Db {
  const base = wrap(pg);
  return {
    kind: 'pglite',
    query: base.query,
    copyJsonRows: (table, columns, rows) => copyJsonRowsInto(pg, table, columns, rows),
    transaction: (fn) => pg.transaction((tx) => fn(wrap(tx))),
    close: () => pg.close(),
  };
}

export interface PgliteOptions {
  /** Run PGlite in its own thread (default) so its WASM work stays off the event loop; false: in this thread. */
  thread?: boolean;
  /** Where a crash of the PGlite thread is reported. */
  log?: Logger;
}

/** Embedded PostgreSQL (WASM) in a data folder, so a new user needs no database server. */
export async function openPglite(dataDir: string, options: PgliteOptions = {}): Promise<Db> {
  const inMemory = dataDir === 'memory://';
  if (options.thread !== false) return openPgliteThread(dataDir, inMemory && memoryTemplateBytes ? await memoryTemplateBytes : null, options.log);
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  await makeClusterIfNew(dataDir);
  const pg = !inMemory ? new PGlite(dataDir, PGLITE_OPTIONS) : new PGlite({ ...PGLITE_OPTIONS, ...(memoryTemplate ? { loadDataDir: memoryTemplate } : {}) });
  await pg.waitReady;
  return pgliteDb(pg);
}

// PGlite in its own thread (src/store/pgliteThread.ts) answers exactly as the in-process PGlite does:
// same JS types, same error properties, same transaction semantics, and a clear error once closed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { memoryDatabaseDump, openPglite, startMemoryDatabasesFrom } from '../../src/store/pglite.js';
import { crashPgliteThreads, pgliteQueriesStarted } from '../../src/store/pgliteThread.js';
import { createLogger } from '../../src/lib/log.js';
import { waitFor } from '../helpers/waitFor.js';

const quiet = createLogger(false);

const SCHEMA = `create table t (id int primary key, d timestamptz, b bytea, n int8, j jsonb, a text[], f float8, ok boolean)`;
const ROW = [1, new Date('2026-01-02T03:04:05.678Z'), new Uint8Array([0, 1, 2, 255]), 9_007_199_254_740_991, { x: [1, 'a', null], y: { z: true } }, ['a', 'b,c', ''], 1.5, true];

async function caught(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error('expected a rejection');
}

const errorProps = (e: any) => ({ name: e.name, message: e.message, code: e.code, detail: e.detail, constraint: e.constraint, severity: e.severity, table: e.table, schema: e.schema });

describe('threaded PGlite', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-pglite-thread-'));
    dirs.push(dir);
    return dir;
  };
  let threaded: Db;
  let inProcess: Db;
  beforeAll(async () => {
    [threaded, inProcess] = await Promise.all([openPglite('memory://'), openPglite('memory://', { thread: false })]);
    for (const db of [threaded, inProcess]) await db.query(SCHEMA);
  });
  afterAll(async () => {
    await Promise.all([threaded.close(), inProcess.close()]);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('round-trips params and rows with the same JS types as in-process PGlite', async () => {
    const insert = 'insert into t (id, d, b, n, j, a, f, ok) values ($1, $2, $3, $4, $5, $6::text[], $7, $8)';
    const select = 'select *, id::int8 as small, $1::text[] as echoed, null::text as none, count(*) over () as total from t';
    const results: unknown[][] = [];
    for (const db of [threaded, inProcess]) {
      await db.query(insert, ROW);
      results.push(await db.query(select, [['x', 'y']]));
    }
    const [a, b] = results as [any[], any[]];
    expect(a).toStrictEqual(b);
    const row = a[0];
    expect(row.d).toBeInstanceOf(Date);
    expect(row.d.toISOString()).toBe('2026-01-02T03:04:05.678Z');
    expect(row.b).toBeInstanceOf(Uint8Array);
    expect([...row.b]).toEqual([0, 1, 2, 255]);
    expect(typeof row.n).toBe('number');
    expect(row.n).toBe(9_007_199_254_740_991);
    expect(row.j).toEqual({ x: [1, 'a', null], y: { z: true } });
    expect(row.a).toEqual(['a', 'b,c', '']);
    expect(row.echoed).toEqual(['x', 'y']);
    expect(row.none).toBeNull();
    // A Buffer param (what encodeVector passes) arrives as bytea too.
    const fromBuffer = (await threaded.query<{ b: Uint8Array }>('select $1::bytea as b', [Buffer.from([9, 8, 7])]))[0]!.b;
    expect([...fromBuffer]).toEqual([9, 8, 7]);
  });

  it('keeps a database error’s properties (unique violation 23505)', async () => {
    const errors = [];
    for (const db of [threaded, inProcess]) {
      await db.query('create table u (k text constraint u_k_key unique)');
      await db.query(`insert into u values ('a')`);
      errors.push(await caught(db.query(`insert into u values ($1)`, ['a'])));
    }
    const [a, b] = errors;
    expect(a).toBeInstanceOf(Error);
    expect(a.code).toBe('23505');
    expect(a.constraint).toBe('u_k_key');
    expect(a.detail).toMatch(/already exists/);
    expect(errorProps(a)).toStrictEqual(errorProps(b));
    expect(a.params).toEqual(['a']);
  });

  it('commits a transaction and returns its result', async () => {
    const result = await threaded.transaction(async (tx) => {
      await tx.query('insert into t (id) values (10)');
      await tx.query('insert into t (id) values (11)');
      return (await tx.query<{ c: number }>('select count(*)::int as c from t where id >= 10'))[0]!.c;
    });
    expect(result).toBe(2);
    expect(await threaded.query('select id from t where id >= 10 order by id')).toEqual([{ id: 10 }, { id: 11 }]);
  });

  it('rolls back when fn throws and rethrows fn’s error', async () => {
    const err = await caught(
      threaded.transaction(async (tx) => {
        await tx.query('insert into t (id) values (20)');
        throw new Error('boom');
      }),
    );
    expect(err.message).toBe('boom');
    expect(await threaded.query('select id from t where id = 20')).toEqual([]);
    // A failed statement inside the transaction rejects with its code and rolls the whole thing back.
    const dup = await caught(threaded.transaction(async (tx) => {
      await tx.query('insert into t (id) values (21)');
      await tx.query('insert into t (id) values (21)');
    }));
    expect(dup.code).toBe('23505');
    expect(await threaded.query('select id from t where id = 21')).toEqual([]);
  });

  it('runs a query issued during a transaction after it, never inside it', async () => {
    const order: string[] = [];
    let outside: Promise<unknown> | undefined;
    const err = await caught(
      threaded.transaction(async (tx) => {
        await tx.query('insert into t (id) values (30)');
        const handed = pgliteQueriesStarted(threaded);
        outside = threaded.query('insert into t (id) values (31)').then(() => order.push('outside'));
        // In PGlite's hands, where it would run now if nothing held it back.
        await waitFor('the outside query handed to PGlite', () => pgliteQueriesStarted(threaded) > handed);
        expect(order).toEqual([]);
        await tx.query('insert into t (id) values (32)');
        order.push('tx done');
        throw new Error('roll back');
      }),
    );
    expect(err.message).toBe('roll back');
    await outside;
    expect(order).toEqual(['tx done', 'outside']);
    // The rolled-back transaction took its own rows only; the outside insert stands.
    expect(await threaded.query('select id from t where id between 30 and 32 order by id')).toEqual([{ id: 31 }]);
  });

  it('answers concurrent queries each with its own rows', async () => {
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => threaded.query<{ v: number }>('select $1::int as v', [i])));
    expect(answers.map((r) => r[0]!.v)).toEqual(Array.from({ length: 50 }, (_, i) => i));
  });

  it('rejects every request after close with "PGlite is closed"', async () => {
    const db = await openPglite('memory://');
    const inFlight = db.query('select 1 as one');
    await db.close();
    expect(await inFlight).toEqual([{ one: 1 }]);
    expect((await caught(db.query('select 1'))).message).toMatch(/^PGlite is closed/);
    expect((await caught(db.transaction(async () => 1))).message).toMatch(/^PGlite is closed/);
    await db.close(); // twice is fine
  });

  it('keeps data on disk across a close and a reopen', async () => {
    const dir = tempDir();
    const db = await openPglite(dir);
    await db.query('create table kept (v text)');
    await db.transaction((tx) => tx.query(`insert into kept values ('saved')`));
    await db.close();
    const again = await openPglite(dir);
    expect(await again.query('select v from kept')).toEqual([{ v: 'saved' }]);
    await again.close();
  });

  it('a thread stopped mid-query: the query in flight and every later one reject at once, close() returns', async () => {
    const db = await openPglite('memory://', { log: quiet });
    const started = performance.now();
    const before = pgliteQueriesStarted(db);
    const slow = caught(db.query('select pg_sleep(20)'));
    await waitFor('pg_sleep handed to PGlite', () => pgliteQueriesStarted(db) > before);
    expect(await crashPgliteThreads('terminate', db)).toBe(1);
    expect((await slow).message).toMatch(/^PGlite is closed: its thread exited/);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect((await caught(db.query('select 1'))).message).toMatch(/^PGlite is closed/);
    expect((await caught(db.transaction((tx) => tx.query('select 1')))).message).toMatch(/^PGlite is closed/);
    await db.close();
    // The other databases of the process are untouched.
    expect(await threaded.query('select 1 as one')).toEqual([{ one: 1 }]);
  });

  it('a thread that crashes (uncaught error) fails an open transaction and later queries', async () => {
    const db = await openPglite('memory://', { log: quiet });
    await db.query('create table c (v int)');
    let inside!: () => void;
    const entered = new Promise<void>((r) => (inside = r));
    let crashed!: () => void;
    const afterCrash = new Promise<void>((r) => (crashed = r));
    const tx = caught(
      db.transaction(async (t) => {
        await t.query('insert into c values (1)');
        inside();
        await afterCrash; // the transaction stays open across the crash
        await t.query('insert into c values (2)');
      }),
    );
    await entered;
    expect(await crashPgliteThreads('error', db)).toBe(1);
    crashed();
    expect((await tx).message).toMatch(/^PGlite is closed: its thread crashed \(.*test hook/);
    expect((await caught(db.query('select 1'))).message).toMatch(/^PGlite is closed: its thread crashed/);
    await db.close();
  });

  it('starts an in-memory database from a dump', async () => {
    const previous = memoryDatabaseDump();
    const pg = new PGlite();
    await pg.query(`create table seeded (v text)`);
    await pg.query(`insert into seeded values ('from dump')`);
    startMemoryDatabasesFrom(await pg.dumpDataDir('none'));
    await pg.close();
    try {
      const db = await openPglite('memory://');
      expect(await db.query('select v from seeded')).toEqual([{ v: 'from dump' }]);
      await db.close();
    } finally {
      startMemoryDatabasesFrom(previous);
    }
  });

  it('a parameter that cannot cross to the thread rejects the query and holds no process open', () => {
    // The thread is referenced only while a request waits for it: a request never posted must not count.
    const script = `
      const { openPglite } = await import(${JSON.stringify(join(process.cwd(), 'dist/src/store/pglite.js'))});
      const db = await openPglite('memory://');
      const err = await db.query('select $1::text', [() => 1]).catch((e) => e);
      console.log(err.name, (await db.query('select 2 as n'))[0].n);
    `;
    const file = join(tempDir(), 'clone.mjs');
    writeFileSync(file, script);
    const r = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 20_000 });
    expect(r.stdout.trim(), r.stderr).toBe('DataCloneError 2');
    expect(r.signal, 'the process did not exit on its own').toBeNull();
    expect(r.status).toBe(0);
  }, 30_000);
});

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/auth/principal.js';
import { insertUsageRows, usageReadsSeeAcknowledged, usageRowJson, type UsageDb, type UsageEventInput } from '../../src/domain/metering/usage.js';
import { JournaledUsageWriter } from '../../src/domain/metering/usageJournal.js';
import { createLogger } from '../../src/lib/log.js';
import { openStore } from '../../src/store/index.js';
import { DatabaseUnavailableError, type Db, type Queryable } from '../../src/store/db.js';
import { DB_KIND, sampleDocument, startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/waitFor.js';

let server: TestServer;
let principal: Principal;
const dirs: string[] = [];
const log = createLogger(false);

beforeAll(async () => {
  server = await startTestServer();
  const [owner] = await server.app.services.db.query<{ id: string }>('select id from users order by created_at limit 1');
  principal = { userId: owner!.id, plan: 'enterprise', isAdmin: true, keyId: null, environment: 'production', projectId: null, via: 'api_key', storeInputPreviews: true };
});
afterAll(async () => {
  await server.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function journalDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'gc-journal-'));
  dirs.push(d);
  return join(d, 'usage-journal');
}

const event = (tool: string): UsageEventInput => ({ principal, method: 'MCP', toolName: tool, status: 'success', inputTokens: 10, outputTokens: 2, latencyMs: 1 });
const count = async (db: Queryable, tool: string) =>
  (await db.query<{ n: number }>('select count(*)::int as n from usage_events where tool_name = $1', [tool]))[0]!.n;

describe(`usage journal (${DB_KIND})`, () => {
  it('answers on the journal append, writes the events in one later batch, and removes the segment once committed', async () => {
    const db = server.app.services.db;
    // Every statement the writer sends, counted: the acknowledgement must come before the first.
    let statements = 0;
    const counted: UsageDb = {
      query: (sql, params) => (statements++, db.query(sql, params)),
      copyJsonRows: db.copyJsonRows && ((table, columns, rows) => (statements++, db.copyJsonRows!(table, columns, rows))),
    };
    const dir = journalDir();
    const writer = await JournaledUsageWriter.open(counted, dir, log);
    await Promise.all(Array.from({ length: 25 }, () => writer.record(event('journal-batch'))));
    // Acknowledged: on disk, not yet in the database, and no statement sent for it.
    expect(statements).toBe(0);
    const [segment] = readdirSync(dir);
    expect(segment).toMatch(/^usage-\d{12}\.ndjson$/);
    expect(readdirSync(dir).length).toBe(1);
    expect(statSync(join(dir, segment!)).mode & 0o777).toBe(0o600);
    expect(await count(db, 'journal-batch')).toBe(0);
    expect(writer.hasUncommitted()).toBe(true);
    await writer.visible();
    expect(await count(db, 'journal-batch')).toBe(25);
    expect(statements).toBe(1); // the 25 events in one batch
    expect(writer.hasUncommitted()).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
    // Without a reader waiting, the gather window sends what arrived, by itself.
    await writer.record(event('journal-window'));
    expect(statements).toBe(1);
    await waitFor('the gather window flushed the event', async () => (await count(db, 'journal-window')) === 1);
    expect(statements).toBe(2);
    expect(writer.hasUncommitted()).toBe(false);
    await writer.close();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('appends and batches interleaved over many turns: every acknowledged event once in the database, each on disk until then', async () => {
    const db = server.app.services.db;
    const dir = journalDir();
    const writer = await JournaledUsageWriter.open(db, dir, log);
    const onDisk = () => readdirSync(dir).reduce((n, f) => n + readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean).length, 0);
    let acknowledged = 0;
    for (let turn = 0; turn < 60; turn++) {
      // Bursts of different sizes in separate turns, some while a batch is being written.
      const burst = Array.from({ length: 1 + (turn % 7) * 5 }, () => writer.record(event('journal-interleave')).then(() => acknowledged++));
      if (turn % 9 === 4) void writer.visible();
      await Promise.all(burst);
      // What is acknowledged is in the database or still in a segment (a row can be in both for a moment).
      expect(onDisk() + (await count(db, 'journal-interleave'))).toBeGreaterThanOrEqual(acknowledged);
      await new Promise((r) => setImmediate(r));
    }
    await writer.visible();
    expect(await count(db, 'journal-interleave')).toBe(acknowledged);
    expect(readdirSync(dir)).toEqual([]);
    await writer.close();
    expect(await count(db, 'journal-interleave')).toBe(acknowledged);
  });

  it('a read of usage_events right after an acknowledged call sees it', async () => {
    const dir = journalDir();
    const writer = await JournaledUsageWriter.open(server.app.services.db, dir, log);
    const reads = usageReadsSeeAcknowledged(server.app.services.db as Db, writer);
    await writer.record(event('journal-fence'));
    expect(await count(reads, 'journal-fence')).toBe(1);
    // Statements that do not name the table never wait.
    await writer.record(event('journal-fence'));
    expect(writer.hasUncommitted()).toBe(true);
    await reads.query('select 1');
    expect(writer.hasUncommitted()).toBe(true);
    await writer.close();
    expect(await count(server.app.services.db, 'journal-fence')).toBe(2);
  });

  it('replays segments a killed process left, once each, skipping a torn last line and rows already written', async () => {
    const db = server.app.services.db;
    const dir = journalDir();
    const rows = Array.from({ length: 3 }, () => usageRowJson(event('journal-replay')));
    // The first row was committed before the kill; its segment was not yet removed.
    await db.query(
      `insert into usage_events (id, user_id, method, tool_name, status) select id, user_id, method, tool_name, status from json_populate_record(null::usage_events, $1::text::json)`,
      [rows[0]],
    );
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'usage-000000000001.ndjson'), `${rows[0]}\n${rows[1]}\n`);
    writeFileSync(join(dir, 'usage-000000000002.ndjson'), `${rows[2]}\n{"id":"torn`);
    const writer = await JournaledUsageWriter.open(db, dir, log);
    expect(await count(db, 'journal-replay')).toBe(3);
    expect(readdirSync(dir)).toEqual([]);
    // New segments continue the numbering, so a later replay keeps their order.
    await writer.record(event('journal-replay'));
    expect(readdirSync(dir)).toEqual(['usage-000000000003.ndjson']);
    await writer.close();
    expect(await count(db, 'journal-replay')).toBe(4);
  });

  // COPY costs the embedded database about a third less CPU per row than the INSERT (docs/benchmarks.md).
  it('the embedded database takes a batch by COPY, every field as the INSERT writes it; PostgreSQL by INSERT', async () => {
    const db = server.app.services.db;
    if (DB_KIND === 'postgres') return expect(db.copyJsonRows).toBeUndefined();
    const texts = ['plain', 'a "quoted", comma', 'line\nbreak\r\nand more', '', 'ünï ✓ 🎉 \\N', null];
    const events = texts.map((t, i): UsageEventInput => ({ ...event('copy-fields'), client: t, inputText: t, fidelity: i % 2 ? 'balanced' : null, cacheHit: i % 2 === 0, latencyMs: i * 1.6, at: new Date(Date.UTC(2026, 10, 27, 12, 0, i, 123)) }));
    const rows = events.map(usageRowJson);
    let copies = 0;
    const counted = { ...db, copyJsonRows: (table: string, columns: readonly string[], batch: readonly string[]) => (copies++, db.copyJsonRows!(table, columns, batch)) };
    await insertUsageRows(counted, rows, log);
    expect(copies).toBe(1);
    const back = await db.query<Record<string, unknown>>(
      `select id, user_id, key_id, project_id, environment, method, tool_name, client, fidelity, model, status, input_tokens, output_tokens,
              savings_percent, latency_ms, cache_hit, input_preview, to_json(created_at) #>> '{}' as created_at
       from usage_events where tool_name = 'copy-fields'`,
    );
    expect(back).toHaveLength(rows.length);
    for (const r of rows.map((j) => JSON.parse(j) as Record<string, unknown>)) {
      const got = back.find((b) => b.id === r.id)!;
      const { created_at: at, ...rest } = r;
      expect(got).toMatchObject(rest);
      expect(new Date(got.created_at as string).toISOString()).toBe(at);
    }
    // A batch COPY refuses (an id already in, as a replay brings) goes through the INSERT, which skips it.
    const again = [rows[0]!, usageRowJson(event('copy-fields'))];
    await insertUsageRows(counted, again, log);
    expect(copies).toBe(2);
    expect(await count(db, 'copy-fields')).toBe(rows.length + 1);
  });

  it('keeps acknowledging while the database is down, writes everything once it is back, and keeps it on disk when closed before', async () => {
    let down = true;
    const real = server.app.services.db;
    const flaky: Queryable = {
      query: (sql, params) => (down ? Promise.reject(new DatabaseUnavailableError('database circuit open')) : real.query(sql, params)),
    };
    const dir = journalDir();
    const writer = await JournaledUsageWriter.open(flaky, dir, log);
    await writer.record(event('journal-down'));
    await writer.record(event('journal-down'));
    await expect(writer.visible()).rejects.toBeInstanceOf(DatabaseUnavailableError);
    expect(readdirSync(dir).length).toBeGreaterThan(0);
    down = false;
    await writer.visible();
    expect(await count(real, 'journal-down')).toBe(2);
    // Closed while the database is down: the events stay in the journal for the next start.
    down = true;
    await writer.record(event('journal-down-later'));
    await writer.close();
    expect(readdirSync(dir).length).toBe(1);
    down = false;
    const next = await JournaledUsageWriter.open(flaky, dir, log);
    expect(await count(real, 'journal-down-later')).toBe(1);
    await next.close();
  });

  it('when the journal cannot be written, a call waits for its commit instead', async () => {
    const dir = journalDir();
    const writer = await JournaledUsageWriter.open(server.app.services.db, dir, log);
    rmSync(dir, { recursive: true, force: true });
    await writer.record(event('journal-nodisk'));
    expect(await count(server.app.services.db, 'journal-nodisk')).toBe(1);
    await writer.close();
  });
});

describe.skipIf(DB_KIND !== 'pglite')('usage journal in the service (PGlite on disk)', () => {
  it('a compression answered over HTTP is in /v1/usage/events at once, and in the database after shutdown', async () => {
    const data = mkdtempSync(join(tmpdir(), 'gc-journal-app-'));
    dirs.push(data);
    const disk = await startTestServer({ databaseUrl: null, dataDir: data });
    let closed = false;
    try {
      const res = await disk.request('POST', '/v1/compress', { body: { text: sampleDocument(), fidelity: 'balanced' } });
      expect(res.status).toBe(200);
      expect(readdirSync(join(data, 'usage-journal')).length).toBe(1);
      const events = await disk.request('GET', '/v1/usage/events');
      expect(events.status).toBe(200);
      expect((events.json as { total: number }).total).toBe(1);
      await disk.request('POST', '/v1/compress', { body: { text: `${sampleDocument()} Again.`, fidelity: 'balanced' } });
      await disk.close();
      closed = true;
      expect(readdirSync(join(data, 'usage-journal'))).toEqual([]);
      const store = await openStore({ databaseUrl: null, dataDir: data });
      try {
        expect((await store.query<{ n: number }>("select count(*)::int as n from usage_events where method = 'REST'"))[0]!.n).toBe(2);
      } finally {
        await store.close();
      }
    } finally {
      if (!closed) await disk.close();
    }
  });
});

// Background work that several instances on one PostgreSQL database all run must still happen once
// (issue 46; docs/deployment.md "Background work across instances"). Each "instance" here is its own
// connection pool on the same database, as separate processes are: the claims and locks under test are
// the database's, so what holds for two pools holds for two processes (test/batchqueue/two-instances.test.ts
// runs two real processes).
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueEmail, OutboxSender } from '../../src/domain/commerce/outbox.js';
import { claimDueFeed } from '../../src/domain/connectors/feeds.js';
import { CircuitBreaker } from '../../src/lib/breaker.js';
import type { EmailProvider } from '../../src/providers/email.js';
import { leaseClaimSql } from '../../src/domain/platform/leasedRunner.js';
import { ABANDONED_INGEST_MS } from '../../src/knowledge/hub.js';
import { ifAdvisoryLockFree, withAdvisoryLock } from '../../src/store/advisoryLock.js';
import type { Db } from '../../src/store/db.js';
import { openStore } from '../../src/store/index.js';
import { databaseUrl } from '../helpers/globalSetup.js';
import { DB_KIND, freshDatabase, startTestServer, type TestServer } from '../helpers/server.js';
import { DOCS, makeTenant, settle } from '../kb/helpers.js';
import { waitFor } from '../helpers/waitFor.js';

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

/** `n` instances' stores on one fresh (migrated) database. */
async function instances(n: number): Promise<Db[]> {
  const database = await freshDatabase();
  const dbs = await Promise.all(Array.from({ length: n }, () => openStore({ databaseUrl: database.databaseUrl, dataDir: 'memory://' })));
  cleanup.push(async () => {
    for (const db of dbs) await db.close();
    await database.drop();
  });
  return dbs;
}

/** Resolves `opened` when `open()` is called: holds work inside a lock until the test says so. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** Polls `check` (a database read) until it holds. */
async function waitUntil(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  await waitFor('condition', check, { timeoutMs });
}

describe.skipIf(DB_KIND === 'pglite')('background work across instances on one PostgreSQL (PostgreSQL only: an embedded database belongs to one process)', () => {
  it('instances starting together on an empty database apply each migration once', { timeout: 120_000 }, async () => {
    const admin = process.env.DATABASE_URL!;
    const name = `gc_test_${randomBytes(6).toString('hex')}`;
    const sql = postgres(admin, { max: 1, onnotice: () => {} });
    await sql.unsafe(`create database ${name}`);
    cleanup.push(async () => {
      await sql.unsafe(`drop database if exists ${name} with (force)`);
      await sql.end();
    });
    const dbs = await Promise.all([0, 1, 2].map(() => openStore({ databaseUrl: databaseUrl(admin, name), dataDir: 'memory://' })));
    try {
      const rows = await dbs[0]!.query<{ name: string; n: number }>('select name, count(*)::int as n from schema_migrations group by name');
      expect(rows.length).toBeGreaterThan(10);
      expect(rows.filter((r) => r.n !== 1)).toEqual([]);
    } finally {
      for (const db of dbs) await db.close();
    }
  });

  it('a due connector feed is claimed by one instance only, once per due time', async () => {
    const [a, b, c] = await instances(3);
    const [user] = await a!.query<{ id: string }>(`insert into users (email, plan) values ('feeds@example.com', 'team') returning id`);
    const [project] = await a!.query<{ id: string }>(`insert into projects (owner_id, name) values ($1, 'feeds') returning id`, [user!.id]);
    const feeds = await a!.query<{ id: string }>(
      `insert into connector_feeds (project_id, owner_id, type, name, source, max_items, schedule_seconds, next_sync_at)
       select $1, $2, 'rss', 'feed ' || i, 'https://example.com/' || i, 10, 60, now() - interval '1 second' from generate_series(1, 5) i returning id`,
      [project!.id, user!.id],
    );
    // Every instance polls at once, several times: each due feed goes to exactly one of them.
    const polls = [a, b, c].flatMap((db) => Array.from({ length: 4 }, () => claimDueFeed(db!, 60_000)));
    const claimed = (await Promise.all(polls)).filter((id): id is string => id !== null);
    expect(claimed.sort()).toEqual(feeds.map((f) => f.id).sort());
    // Claimed means no longer due for anyone until its sync ends (or the hold lapses: the claimer died).
    expect(await claimDueFeed(b!, 60_000)).toBeNull();
  });

  it('leased work: concurrent claims from several instances never take the same row twice', async () => {
    const [a, b] = await instances(2);
    const [user] = await a!.query<{ id: string }>(`insert into users (email, plan) values ('queue@example.com', 'team') returning id`);
    const [job] = await a!.query<{ id: string }>(`insert into batch_jobs (owner_id, total) values ($1, 200) returning id`, [user!.id]);
    await a!.query(`insert into batch_job_documents (job_id, ordinal, text, fidelity) select $1, i, 'text ' || i, 'balanced' from generate_series(0, 199) i`, [job!.id]);
    const claim = leaseClaimSql({ table: 'batch_job_documents', key: ['job_id', 'ordinal'], ready: 'pending', order: 'created_at, job_id, ordinal', returning: 'ordinal' });
    const taken = await Promise.all([a, b].flatMap((db, i) => Array.from({ length: 10 }, (_, k) => db!.query<{ ordinal: number }>(claim, [`instance-${i}-${k}`, 60_000, 7]))));
    const ordinals = taken.flat().map((r) => r.ordinal);
    expect(ordinals.length).toBeGreaterThan(0);
    expect(new Set(ordinals).size).toBe(ordinals.length); // no document twice
    const [counted] = await a!.query<{ running: number; twice: number }>(
      `select count(*) filter (where status = 'running')::int as running, count(*) filter (where attempts > 1)::int as twice from batch_job_documents`,
    );
    expect(counted).toEqual({ running: ordinals.length, twice: 0 });
  });

  it('outbox: a pass skips rows whose lease lapsed while it waited on a slow delivery (another instance sent them)', async () => {
    const [a, b] = await instances(2);
    const ids = await Promise.all([1, 2, 3].map((i) => enqueueEmail(a!, { to: `r${i}@example.test`, subject: `s${i}`, text: `t${i}` })));
    // Each instance's mail transport, as the receiving end sees it; A's first send hangs until released.
    const sent: Record<'a' | 'b', string[]> = { a: [], b: [] };
    const slow = gate();
    const sendingSlowly = gate();
    const mailer = (who: 'a' | 'b'): EmailProvider => ({
      name: 'local',
      async send(_message, outboxId) {
        if (who === 'a' && sent.a.length === 0) {
          sendingSlowly.open();
          await slow.opened;
        }
        sent[who].push(outboxId);
      },
      async close() {},
    });
    const options = { pollMs: 60_000, backoffBaseMs: 1000, backoffMaxMs: 1000, maxAttempts: 3, leaseMs: 300, batch: 10 };
    const senderA = new OutboxSender(a!, mailer('a'), new CircuitBreaker('a'), options, console);
    const senderB = new OutboxSender(b!, mailer('b'), new CircuitBreaker('b'), options, console);
    const passA = senderA.drainOnce();
    await sendingSlowly.opened;
    // A's leases lapse while its first delivery hangs: B's pass takes all three and sends them.
    await waitUntil(async () => (await a!.query(`select 1 from outbox where status = 'pending' and next_attempt_at <= now()`)).length === 3);
    expect(await senderB.drainOnce()).toBe(3);
    slow.open();
    await passA;
    expect(sent.b.sort()).toEqual([...ids].sort());
    // A finishes the send it had started (at least once: that one row twice), and sends nothing else.
    expect(sent.a).toHaveLength(1);
    expect(ids).toContain(sent.a[0]);
  });

  it('a once-at-a-time round (meter sync) runs on one instance while another holds its lock, and the next round runs after', async () => {
    const [a, b] = await instances(2);
    const holding = gate();
    const release = gate();
    const first = ifAdvisoryLockFree(a!, 'gc:meter-sync', async () => {
      holding.open();
      await release.opened;
      return 'a';
    });
    await holding.opened;
    expect(await ifAdvisoryLockFree(b!, 'gc:meter-sync', async () => 'b')).toBeNull();
    // A waiting holder (as migrations take it) queues behind the round instead.
    const queued = withAdvisoryLock(b!, 'gc:meter-sync', async () => 'b waited');
    release.open();
    expect(await first).toBe('a');
    expect(await queued).toBe('b waited');
    expect(await ifAdvisoryLockFree(b!, 'gc:meter-sync', async () => 'b')).toBe('b');
  });
});

describe(`Knowledge Hub ingestion abandoned by a dead instance (${DB_KIND})`, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('a live instance resumes an ingest another instance claimed and never committed, and leaves a fresh one to its runner', { timeout: 60_000 }, async () => {
    const hub = server.app.services.knowledge;
    await hub.ready;
    const t = await makeTenant(server);
    const kb = `/v1/projects/${t.projectId}/knowledge`;
    const created = await server.request('POST', `${kb}/items`, { body: { name: 'pg', text: DOCS.postgres }, key: t.keyA });
    expect(created.status).toBe(201);
    const other = await server.request('POST', `${kb}/items`, { body: { name: 'rockets', text: DOCS.rockets }, key: t.keyA });
    await settle(server);
    // What a dead instance leaves: a new version claimed ('indexing') three minutes ago, never committed;
    // and what a live one is doing: an item claimed just now.
    const db = server.app.services.db;
    const [version] = await db.query<{ id: string }>(
      `insert into kb_versions (item_id, number, content, content_hash) values ($1, 2, $2, 'abandoned') returning id`,
      [created.json.item_id, DOCS.rockets],
    );
    await db.query(`update kb_items set current_version_id = $2, status = 'indexing', updated_at = now() - interval '3 minutes' where id = $1`, [created.json.item_id, version!.id]);
    await db.query(`update kb_items set status = 'indexing', updated_at = now() where id = $1`, [other.json.item_id]);

    expect(await hub.resumePending(ABANDONED_INGEST_MS)).toBe(1);
    await settle(server);
    const rows = await db.query<{ id: string; status: string; chunk_count: number }>('select id, status, chunk_count from kb_items where id = any($1::uuid[]) order by name', [
      [created.json.item_id, other.json.item_id],
    ]);
    expect(rows.find((r) => r.id === created.json.item_id)).toMatchObject({ status: 'ready' });
    expect(rows.find((r) => r.id === created.json.item_id)!.chunk_count).toBeGreaterThan(0);
    expect(rows.find((r) => r.id === other.json.item_id)).toMatchObject({ status: 'indexing' }); // not taken from its live runner
    const [chunks] = await db.query<{ n: number }>('select count(*)::int as n from kb_chunks where item_id = $1 and version_id = $2', [created.json.item_id, version!.id]);
    expect(chunks!.n).toBeGreaterThan(0);
  });
});

// Issue 46, test 4: a 1,000-document queued batch on two real service processes sharing one PostgreSQL
// database; one instance is killed with SIGKILL midway, while both hold documents. The survivor claims
// the dead instance's documents once their leases lapse, and at the end every document has exactly one
// result and exactly one usage event (its id made from job and index), and the events' tokens are the
// job's summary. Exactly once comes from the database: claims `for update skip locked`, results and
// events written in one statement conditioned on the lease (docs/deployment.md).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stop } from '../../bench/lib/spawn.js';
import { documentEventId } from '../../src/domain/batchQueue/worker.js';
import { openStore } from '../../src/store/index.js';
import type { Db } from '../../src/store/db.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, freshDatabase } from '../helpers/server.js';
import { getWith, killHard, queueDocument, startService, waitForJob, type ServiceProcess } from './helpers.js';

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

const TOTAL = 1000;
/** Leases lapse fast so the survivor takes the dead instance's documents over within the test. */
const LEASE_MS = 1500;

/** Documents of `service` leased and running now (its instance id is host:pid:random). */
async function leasedBy(db: Db, service: ServiceProcess): Promise<number> {
  const [row] = await db.query<{ n: number }>(`select count(*)::int as n from batch_job_documents where status = 'running' and lease_owner like $1`, [`%:${service.pid}:%`]);
  return row!.n;
}

describe.skipIf(DB_KIND === 'pglite')('queued batch across two instances on one PostgreSQL (PostgreSQL only: one embedded database cannot be shared by two processes)', () => {
  it('1,000 documents, one instance killed midway: every document processed and billed exactly once', { timeout: 180_000 }, async () => {
    const database = await freshDatabase();
    const dirs = [mkdtempSync(join(tmpdir(), 'gc-two-a-')), mkdtempSync(join(tmpdir(), 'gc-two-b-'))];
    cleanup.push(async () => {
      await database.drop();
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
    });
    const env = {
      DATABASE_URL: database.databaseUrl!, PORT: '0', HOST: '127.0.0.1', POOL_THREADS: '1',
      BATCH_QUEUE_LEASE_MS: String(LEASE_MS), BATCH_QUEUE_POLL_MS: '100', BATCH_QUEUE_CONCURRENCY: '2',
    };
    // A migrates the new database and creates the owner; B joins the same database.
    const a = await startService({ ...env, DATA_DIR: dirs[0]! }, /(gc_[0-9a-f]{32})/, cleanup);
    const owner = /(gc_[0-9a-f]{32})/.exec(a.proc.output())![1]!;
    const b = await startService({ ...env, DATA_DIR: dirs[1]!, BOOTSTRAP_OWNER: 'false' }, /"port":(\d+)/, cleanup);
    const db = await openStore({ databaseUrl: database.databaseUrl, dataDir: 'memory://' });
    cleanup.push(() => db.close());

    const client = await connectMcp(a.url, owner);
    const documents = Array.from({ length: TOTAL }, (_, i) => ({ id: `doc-${i}`, text: queueDocument(i, 0.3) }));
    const queued = await call(client, 'batch_compress_queue', { documents });
    await client.close();
    expect(queued.isError, JSON.stringify(queued.data)).toBe(false);
    const jobId: string = queued.data.job_id;
    const started = Date.now();

    // Midway: half the documents stored, and both instances holding documents right now.
    const midway = await waitForJob(getWith(a.url, owner), jobId, 60_000, async (j) => j.progress.done >= TOTAL / 2 && (await leasedBy(db, a)) > 0 && (await leasedBy(db, b)) > 0);
    expect(midway.progress.done).toBeLessThan(TOTAL);
    await killHard(a);
    const killedAt = Date.now();
    const doneAtKill: number = midway.progress.done;

    const after = await waitForJob(getWith(b.url, owner), jobId, 120_000);
    const finishedAt = Date.now();
    expect(after.progress).toMatchObject({ total: TOTAL, done: TOTAL, succeeded: TOTAL, failed: 0, pending: 0 });
    // Exactly one result per document, in document order.
    expect(after.results.map((r: any) => r.index)).toEqual(documents.map((_, i) => i));
    expect(after.results.map((r: any) => r.id)).toEqual(documents.map((d) => d.id));
    for (const r of after.results) {
      expect(r.status).toBe('succeeded');
      expect(r.result.compressed_text.length).toBeGreaterThan(0);
    }
    // The documents the dead instance held were claimed again by the survivor.
    const resumed = after.results.filter((r: any) => r.attempts > 1).length;
    expect(resumed).toBeGreaterThan(0);

    // Billed exactly once: one success event per document (ids made from job and index, so a second
    // event for a document could not hide behind another's), and their tokens are the job's summary.
    const events = await db.query<{ id: string; input_tokens: number; output_tokens: number }>(
      `select id, input_tokens, output_tokens from usage_events where method = 'batch' and tool_name = 'batch_compress_queue' order by id`,
    );
    expect(events.map((e) => e.id)).toEqual(documents.map((_, i) => documentEventId(jobId, i)).sort());
    expect(events.reduce((n, e) => n + e.input_tokens, 0)).toBe(after.summary.total_original_tokens);
    expect(events.reduce((n, e) => n + e.output_tokens, 0)).toBe(after.summary.total_compressed_tokens);
    const [open] = await db.query<{ n: number }>(`select count(*)::int as n from batch_job_documents where status in ('pending', 'running') or lease_owner is not null`);
    expect(open!.n).toBe(0);

    console.log(
      `two instances: ${doneAtKill} of ${TOTAL} documents stored when instance A (pid ${a.pid}) was killed ${killedAt - started} ms after the enqueue; ` +
        `B finished the job ${finishedAt - killedAt} ms later (${resumed} document(s) A held were claimed again); ${events.length} usage events`,
    );
    await stop(b.proc.child);
  });
});

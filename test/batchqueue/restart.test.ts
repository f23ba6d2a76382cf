// Queued jobs are durable: the real process (node dist/src/main.js) is killed with SIGKILL mid-job; after
// a restart on the same store the job completes with every document's result, and no result that was
// stored before the kill changes or goes missing (results are final once written), and every document
// has exactly one usage event (issue 45: events commit with the results).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stop } from '../../bench/lib/spawn.js';
import { documentEventId } from '../../src/domain/batchQueue/worker.js';
import { openStore } from '../../src/store/index.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, freshDatabase } from '../helpers/server.js';
import { getWith, killHard, queueDocument, startService, waitForJob } from './helpers.js';

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
});

const start = (env: Record<string, string>, ready: RegExp) => startService(env, ready, cleanup);

const TOTAL = 60;

describe(`queued batch jobs survive a killed process (${DB_KIND})`, () => {
  it('kill -9 mid-job: after restart the job completes, every stored result unchanged, none lost', { timeout: 120_000 }, async () => {
    const db = await freshDatabase();
    const dataDir = mkdtempSync(join(tmpdir(), 'gc-batchq-'));
    cleanup.push(async () => {
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const env = {
      DATABASE_URL: db.databaseUrl ?? '', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', POOL_THREADS: '1',
      BATCH_QUEUE_LEASE_MS: '1500', BATCH_QUEUE_POLL_MS: '100', BATCH_QUEUE_CONCURRENCY: '2',
    };
    const t0 = Date.now();
    const first = await start(env, /(gc_[0-9a-f]{32})/);
    console.log(`first start ${Date.now() - t0} ms`);
    const owner = /(gc_[0-9a-f]{32})/.exec(first.proc.output())![1]!; // the bootstrap owner: Enterprise
    const get = (url: string) => getWith(url, owner);

    let client = await connectMcp(first.url, owner);
    const documents = Array.from({ length: TOTAL }, (_, i) => ({ id: `doc-${i}`, text: queueDocument(i), fidelity: i % 3 === 0 ? 'outline' : 'balanced' }));
    const queued = await call(client, 'batch_compress_queue', { documents });
    expect(queued.isError, JSON.stringify(queued.data)).toBe(false);
    const jobId: string = queued.data.job_id;
    await client.close();

    // Mid-job: some documents stored, most still to do.
    const before = await waitForJob(get(first.url), jobId, 60_000, (j) => j.progress.done >= 8);
    expect(before.status).toBe('running');
    expect(before.progress.done).toBeLessThan(TOTAL);
    await killHard(first);
    // What was stored before the kill (read after it: a result written as the process died counts too).
    const stored = before.results.filter((r: any) => r.status === 'succeeded');
    expect(stored.length).toBeGreaterThanOrEqual(8);

    const t1 = Date.now();
    const second = await start({ ...env, BOOTSTRAP_OWNER: 'false' }, /"port":(\d+)/);
    console.log(`second start ${Date.now() - t1} ms`);
    const restartedAt = Date.now();
    const after = await waitForJob(get(second.url), jobId, 90_000);
    const resumeMs = Date.now() - restartedAt;
    expect(after.progress).toMatchObject({ total: TOTAL, done: TOTAL, succeeded: TOTAL, failed: 0, pending: 0 });
    expect(after.results).toHaveLength(TOTAL);
    expect(after.results.map((r: any) => r.id)).toEqual(documents.map((d) => d.id));
    for (const r of after.results) {
      expect(r.status).toBe('succeeded');
      expect(r.result.compressed_text.length).toBeGreaterThan(0);
      expect(r.result.fidelity).toBe(documents[r.index]!.fidelity);
    }
    // Every result acknowledged before the kill is byte-identical after it, and was not redone.
    for (const s of stored) expect(after.results[s.index]).toEqual(s);
    const resumed = after.results.filter((r: any) => r.attempts > 1).length;
    console.log(`restart: ${stored.length} of ${TOTAL} documents stored before kill -9; job completed ${resumeMs} ms after the restarted process answered; ${resumed} document(s) leased at the kill were claimed again after their lease lapsed`);
    // At most the documents leased at the kill: a claim of 2 x BATCH_QUEUE_CONCURRENCY is taken when a
    // slot frees, so up to BATCH_QUEUE_CONCURRENCY - 1 others are still running then (2 x 2 + 1).
    expect(resumed).toBeLessThanOrEqual(5);

    // A new job on the restarted process works too, and a graceful stop is prompt.
    client = await connectMcp(second.url, owner);
    const again = await call(client, 'batch_compress_queue', { documents: [{ text: queueDocument(999) }] });
    await client.close();
    expect((await waitForJob(get(second.url), again.data.job_id)).progress.succeeded).toBe(1);
    const stopping = Date.now();
    await stop(second.proc.child);
    expect(Date.now() - stopping).toBeLessThan(10_000);

    // Usage: exactly one success event per document, kill -9 or not: each event commits in the same
    // statement as its document's result, with an id made from the document (documentEventId).
    const store = await openStore({ databaseUrl: db.databaseUrl, dataDir });
    try {
      const events = await store.query<{ id: string }>(
        `select id from usage_events where method = 'batch' and tool_name = 'batch_compress_queue' and status = 'success' order by id`,
      );
      const expected = [...documents.map((_, i) => documentEventId(jobId, i)), documentEventId(again.data.job_id, 0)].sort();
      expect(events.map((e) => e.id)).toEqual(expected);
      const [open] = await store.query<{ n: number }>(`select count(*)::int as n from batch_job_documents where status in ('pending', 'running')`);
      expect(open!.n).toBe(0);
    } finally {
      await store.close();
    }
  });
});

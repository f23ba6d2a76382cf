// batch_compress_queue through the official SDK client and GET /v1/batch-queue/{id}: results equal the
// synchronous compression of the same text, usage per document, plan gate, bad input, owner scoping,
// paging, per-document failures (quota) and the bounded concurrency of the worker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { hashApiKey } from '../../src/auth/keys.js';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { loadConfig } from '../../src/config.js';
import { createJob, QUEUE_MAX_DOCUMENT_CHARS, QUEUE_MAX_DOCUMENTS } from '../../src/domain/batchQueue/jobs.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { connectAs, newKey } from '../helpers/users.js';
import { queueDocument, waitForJob } from './helpers.js';

let server: TestServer;
let teamKey: string;
let team: Client;
const clients: Client[] = [];

beforeAll(async () => {
  const base = loadConfig({});
  server = await startTestServer({ batchQueue: { ...base.batchQueue, pollMs: 100, leaseMs: 3000, concurrency: 2 } });
  teamKey = await newKey(server, 'team');
  team = await connectMcp(server.url, teamKey);
  clients.push(team);
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await server?.close();
});

const getAs = (key: string) => (path: string) => server.request('GET', path, { key });

describe(`batch_compress_queue (${DB_KIND})`, () => {
  it('queues documents, returns a job id at once, and every result equals /v1/compress of the same document', async () => {
    const documents = [
      { id: 'a', text: queueDocument(1) },
      { id: 'b', text: queueDocument(2), fidelity: 'outline' },
      { text: queueDocument(3), query: 'quota alerts' },
      { id: 'd', text: queueDocument(4, 2), fidelity: 'detailed' },
      { id: 'e', text: 'A short note on caching.' },
    ];
    let maxRunning = 0;
    const sampler = setInterval(() => (maxRunning = Math.max(maxRunning, server.app.services.batchQueue.running)), 2);
    const queued = await call(team, 'batch_compress_queue', { documents, fidelity: 'balanced' });
    expect(queued.isError, JSON.stringify(queued.data)).toBe(false);
    expect(queued.data.job_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(queued.data.progress.total).toBe(5);
    expect(queued.data.status_url).toBe(`${server.url}/v1/batch-queue/${queued.data.job_id}`);

    const job = await waitForJob(getAs(teamKey), queued.data.job_id);
    clearInterval(sampler);
    expect(maxRunning).toBeLessThanOrEqual(2);
    expect(job.progress).toMatchObject({ total: 5, done: 5, succeeded: 5, failed: 0, pending: 0, percent: 100 });
    expect(job.results.map((r: any) => [r.index, r.id, r.status])).toEqual([
      [0, 'a', 'succeeded'], [1, 'b', 'succeeded'], [2, null, 'succeeded'], [3, 'd', 'succeeded'], [4, 'e', 'succeeded'],
    ]);
    expect(job.next_offset).toBeNull();
    expect(job.finished_at).not.toBeNull();
    let original = 0;
    let compressed = 0;
    for (const [i, doc] of documents.entries()) {
      const fidelity = doc.fidelity ?? 'balanced';
      const sync = await server.request('POST', '/v1/compress', { key: teamKey, body: { text: doc.text, fidelity, query: doc.query } });
      expect(sync.status).toBe(200);
      const r = job.results[i].result;
      expect(r.fidelity).toBe(fidelity);
      expect(r.compressed_text).toBe(sync.json.compressed_text);
      expect(r.original_tokens).toBe(sync.json.original_tokens);
      expect(r.compressed_tokens).toBe(sync.json.compressed_tokens);
      original += r.original_tokens;
      compressed += r.compressed_tokens;
    }
    expect(job.results[2].result.mode).toBe('query-guided');
    expect(job.summary).toMatchObject({ total_original_tokens: original, total_compressed_tokens: compressed, total_tokens_saved: original - compressed });

    // One usage event per document, method batch, with its token figures (as /v1/batch-compress records).
    const events = await server.app.services.db.query<{ input_tokens: number; output_tokens: number; status: string }>(
      `select input_tokens, output_tokens, status from usage_events where key_id = (select key_id from api_keys where key_hash = $1) and method = 'batch' and tool_name = 'batch_compress_queue'`,
      [hashApiKey(teamKey)],
    );
    expect(events.length).toBe(5);
    expect(events.every((e) => e.status === 'success')).toBe(true);
    expect(events.reduce((s, e) => s + e.input_tokens, 0)).toBe(original);
    expect(events.reduce((s, e) => s + e.output_tokens, 0)).toBe(compressed);
  });

  it('pages through the results with offset and limit', async () => {
    const queued = await call(team, 'batch_compress_queue', { documents: Array.from({ length: 7 }, (_, i) => ({ id: `p${i}`, text: queueDocument(i) })) });
    const done = await waitForJob(getAs(teamKey), queued.data.job_id);
    expect(done.results).toHaveLength(7);
    const page = await server.request('GET', `/v1/batch-queue/${queued.data.job_id}?offset=2&limit=3`, { key: teamKey });
    expect(page.status).toBe(200);
    expect(page.json.results.map((r: any) => r.id)).toEqual(['p2', 'p3', 'p4']);
    expect(page.json.next_offset).toBe(5);
    const last = await server.request('GET', `/v1/batch-queue/${queued.data.job_id}?offset=5&limit=3`, { key: teamKey });
    expect(last.json.results.map((r: any) => r.id)).toEqual(['p5', 'p6']);
    expect(last.json.next_offset).toBeNull();
    const bad = await server.request('GET', `/v1/batch-queue/${queued.data.job_id}?limit=0`, { key: teamKey });
    expect(bad.status).toBe(422);
  });

  it('refuses Pro and Free keys with plan_required naming the Team plan; Enterprise may queue', async () => {
    for (const plan of ['pro', 'free'] as const) {
      const client = await connectAs(server, plan);
      clients.push(client);
      const r = await call(client, 'batch_compress_queue', { documents: [{ text: queueDocument(1) }] });
      expect(r.isError).toBe(true);
      expect(r.data.error).toBe('plan_required');
      expect(r.data.detail).toMatch(/Team plan or higher/);
    }
    const enterprise = await connectAs(server, 'enterprise');
    clients.push(enterprise);
    const ok = await call(enterprise, 'batch_compress_queue', { documents: [{ text: queueDocument(9) }] });
    expect(ok.isError, JSON.stringify(ok.data)).toBe(false);
    const none = await server.app.services.db.query('select 1 from batch_jobs j join api_keys k on k.user_id = j.owner_id where k.plan in ($1, $2)', ['pro', 'free']);
    expect(none).toEqual([]);
  });

  it('refuses bad input with a clear detail and stores nothing', async () => {
    const before = (await server.app.services.db.query<{ n: number }>('select count(*)::int as n from batch_jobs'))[0]!.n;
    const cases: [unknown, RegExp][] = [
      [[], /at least one document/],
      [Array.from({ length: QUEUE_MAX_DOCUMENTS + 1 }, () => ({ text: 'x y z' })), new RegExp(`at most ${QUEUE_MAX_DOCUMENTS} documents; got ${QUEUE_MAX_DOCUMENTS + 1}`)],
      [[{ text: queueDocument(1) }, { text: 'a'.repeat(QUEUE_MAX_DOCUMENT_CHARS + 1) }], new RegExp(`document 1 is ${QUEUE_MAX_DOCUMENT_CHARS + 1} characters`)],
      [[{ text: queueDocument(1) }, { text: '' }], /document 1: text must not be empty/],
      [[{ text: queueDocument(1), fidelity: 'loose' }], /document 0: invalid fidelity 'loose'/],
    ];
    for (const [documents, detail] of cases) {
      const r = await call(team, 'batch_compress_queue', { documents });
      expect(r.isError).toBe(true);
      expect(r.data.detail).toMatch(detail);
    }
    const wrongType = await call(team, 'batch_compress_queue', { documents: 'not a list' });
    expect(wrongType.isError).toBe(true);
    expect(JSON.stringify(wrongType.data)).toMatch(/documents/); // the validation issues name the field
    const unknownField = await call(team, 'batch_compress_queue', { documents: [{ text: 'x', colour: 'red' }] });
    expect(unknownField.isError).toBe(true);
    const jobFidelity = await call(team, 'batch_compress_queue', { documents: [{ text: 'x' }], fidelity: 'tiny' });
    expect(jobFidelity.data.detail).toMatch(/Invalid fidelity 'tiny'/);
    const after = (await server.app.services.db.query<{ n: number }>('select count(*)::int as n from batch_jobs'))[0]!.n;
    expect(after).toBe(before);
  });

  it("another user's job is not found; unknown and malformed ids are 404; no key is 401", async () => {
    const queued = await call(team, 'batch_compress_queue', { documents: [{ text: queueDocument(5) }] });
    const jobId = queued.data.job_id;
    const other = await newKey(server, 'team');
    const stranger = await server.request('GET', `/v1/batch-queue/${jobId}`, { key: other });
    expect(stranger.status).toBe(404);
    expect(stranger.json.detail).toBe(`Batch job '${jobId}' not found`);
    expect((await server.request('GET', '/v1/batch-queue/00000000-0000-4000-8000-000000000000', { key: teamKey })).status).toBe(404);
    expect((await server.request('GET', '/v1/batch-queue/not-a-uuid', { key: teamKey })).status).toBe(404);
    expect((await server.request('GET', `/v1/batch-queue/${jobId}`, { key: null })).status).toBe(401);
    expect((await server.request('GET', `/v1/batch-queue/${jobId}`, { key: teamKey })).status).toBe(200);
  });

  it('a document that fails (quota exhausted mid-job) carries its error; the others keep their results', async () => {
    const key = await newKey(server, 'team');
    const db = server.app.services.db;
    await db.query('update api_keys set monthly_quota = 3, enforce_quota = true where key_hash = $1', [hashApiKey(key)]);
    const [row] = await db.query<{ monthly_quota: number | null }>('select monthly_quota from api_keys where key_hash = $1', [hashApiKey(key)]);
    expect(row?.monthly_quota).toBe(3);
    const client = await connectMcp(server.url, key);
    clients.push(client);
    const queued = await call(client, 'batch_compress_queue', { documents: Array.from({ length: 6 }, (_, i) => ({ text: queueDocument(20 + i) })) });
    expect(queued.isError, JSON.stringify(queued.data)).toBe(false);
    const job = await waitForJob(getAs(key), queued.data.job_id);
    // Two documents run at once, so up to one more than the quota may start before the count reaches it.
    expect(job.progress.succeeded).toBeGreaterThanOrEqual(3);
    expect(job.progress.succeeded).toBeLessThanOrEqual(4);
    expect(job.progress.failed).toBe(6 - job.progress.succeeded);
    for (const r of job.results) {
      if (r.status === 'failed') {
        expect(r.error).toMatch(/Monthly quota exhausted/);
        expect(r.result).toBeUndefined();
      } else expect(r.result.compressed_text.length).toBeGreaterThan(0);
    }
    // The exhausted key cannot queue another job.
    const refused = await call(client, 'batch_compress_queue', { documents: [{ text: 'x' }] });
    expect(refused.isError).toBe(true);
    expect(refused.data.error).toBe('quota_exceeded');
  });

  it('a job whose key was revoked fails its documents with the reason; a document claimed too often gives up', async () => {
    const db = server.app.services.db;
    const key = await newKey(server, 'team');
    const [k] = await db.query<{ key_id: string; user_id: string }>('select key_id, user_id from api_keys where key_hash = $1', [hashApiKey(key)]);
    await db.query(`update api_keys set status = 'revoked', revoked_at = now() where key_id = $1`, [k!.key_id]);
    const principal = { userId: k!.user_id, plan: 'team' as const, isAdmin: false, keyId: k!.key_id, environment: 'production', projectId: null, via: 'api_key' as const };
    const revoked = await db.transaction((tx) => createJob(tx, principal, [{ text: queueDocument(40) }, { text: queueDocument(41) }]));
    server.app.services.batchQueue.kick();
    // The owner reads it with another (active) key of theirs.
    const readerKey = (await createApiKey(db, { userId: k!.user_id, plan: 'team' })).key;
    const job = await waitForJob(getAs(readerKey), revoked.id);
    expect(job.progress).toMatchObject({ succeeded: 0, failed: 2 });
    expect(job.results.map((r: any) => r.error)).toEqual(['the API key that queued the job is no longer active', 'the API key that queued the job is no longer active']);

    // A document already claimed BATCH_QUEUE_MAX_ATTEMPTS times by processes that died: the next claim gives up.
    const tired = await db.transaction((tx) => createJob(tx, { ...principal, keyId: null, via: 'jwt' }, [{ text: queueDocument(42) }, { text: queueDocument(43) }]));
    await db.query(
      `update batch_job_documents set status = 'running', attempts = 3, lease_owner = 'dead-process', lease_expires_at = now() - interval '1 second' where job_id = $1 and ordinal = 0`,
      [tired.id],
    );
    server.app.services.batchQueue.kick();
    const done = await waitForJob(getAs(readerKey), tired.id);
    expect(done.results[0]).toMatchObject({ status: 'failed', attempts: 4 });
    expect(done.results[0].error).toMatch(/^interrupted: the document was claimed 4 times \(BATCH_QUEUE_MAX_ATTEMPTS 3\); giving up$/);
    expect(done.results[1]).toMatchObject({ status: 'succeeded', attempts: 1 }); // queued without a key (identity-provider session): runs as the user
  });
});

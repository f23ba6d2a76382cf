// Queued batch compression against the synchronous /v1/batch-compress, same process, same 1,000
// documents, measured in the same run: documents and tokens per second of each, and their ratio.
//   node dist/bench/batchqueue/run.js   (BENCH_DOCS, BENCH_DATABASE_URL to use PostgreSQL instead of PGlite)
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { packageRoot } from '../../src/lib/root.js';
import { spawnUntil, stop } from '../lib/spawn.js';
import { benchDocuments } from '../batch/documents.js';
import { sized } from '../lib/smoke.js';
import { freshDataDir } from '../lib/dataDir.js';

const DOCS = Number(process.env.BENCH_DOCS ?? sized(1000, 4));
const BATCH = 50; // the synchronous route's limit


const root = packageRoot();
const dataDir = freshDataDir('gc-bench-batchq-');
const service = await spawnUntil(
  join(root, 'dist/src/main.js'),
  { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '', BATCH_QUEUE_POLL_MS: '200', RATE_LIMIT_ENTERPRISE: '100000000' },
  /(gc_[0-9a-f]{32})/, // the owner's key, printed after "listening" on a fresh store (BENCH_DATABASE_URL: an empty database)
);
const output = service.output();
const key = /(gc_[0-9a-f]{32})/.exec(output)![1]!;
const url = `http://127.0.0.1:${/"port":(\d+)/.exec(output)![1]}`;
const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
const documents = benchDocuments(DOCS);

try {
  // Synchronous: 50 documents per request, one request at a time (4 documents in flight, as the queue's default).
  let syncTokens = 0;
  const syncStart = performance.now();
  for (let i = 0; i < DOCS; i += BATCH) {
    const res = await fetch(`${url}/v1/batch-compress`, { method: 'POST', headers, body: JSON.stringify({ documents: documents.slice(i, i + BATCH) }) });
    const body = (await res.json()) as { summary: { total_original_tokens: number; failed: number } };
    if (res.status !== 200 || body.summary.failed) throw new Error(`batch-compress: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    syncTokens += body.summary.total_original_tokens;
  }
  const syncSec = (performance.now() - syncStart) / 1000;

  // Queued: one tools/call enqueues all of them; the job is polled until completed.
  const client = new Client({ name: 'bench-batchq', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  const queueStart = performance.now();
  const queued = await client.callTool({ name: 'batch_compress_queue', arguments: { documents } });
  const enqueueMs = performance.now() - queueStart;
  if (queued.isError) throw new Error(`batch_compress_queue: ${JSON.stringify(queued.structuredContent)}`);
  const jobId = (queued.structuredContent as { job_id: string }).job_id;
  let job: { status: string; progress: { succeeded: number; failed: number }; summary: { total_original_tokens: number } };
  for (;;) {
    job = (await (await fetch(`${url}/v1/batch-queue/${jobId}?limit=1`, { headers })).json()) as typeof job;
    if (job.status === 'completed') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const queueSec = (performance.now() - queueStart) / 1000;
  await client.close();
  if (job.progress.failed) throw new Error(`queued job: ${job.progress.failed} documents failed`);
  const queueTokens = job.summary.total_original_tokens;

  const rows = [
    { name: `POST /v1/batch-compress (${DOCS / BATCH} requests of ${BATCH})`, sec: syncSec, docs: DOCS, tokens: syncTokens },
    { name: `batch_compress_queue (1 job of ${DOCS}, enqueue ${enqueueMs.toFixed(0)} ms)`, sec: queueSec, docs: job.progress.succeeded, tokens: queueTokens },
  ];
  console.log(`\nQueued vs synchronous batch compression, ${DOCS} documents (~${documents[0]!.text.length} chars each), ${process.env.BENCH_DATABASE_URL ? 'PostgreSQL' : 'PGlite on disk'}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (${new Date().toISOString()})\n`);
  console.log('| path | seconds | documents/s | input tokens/s |');
  console.log('|---|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.name} | ${r.sec.toFixed(2)} | ${(r.docs / r.sec).toFixed(1)} | ${(r.tokens / r.sec).toFixed(0)} |`);
  console.log(`\nqueue / batch-compress: documents/s ${(rows[1]!.docs / rows[1]!.sec / (rows[0]!.docs / rows[0]!.sec)).toFixed(3)}, tokens/s ${(rows[1]!.tokens / rows[1]!.sec / (rows[0]!.tokens / rows[0]!.sec)).toFixed(3)}`);
} finally {
  await stop(service.child);
  rmSync(dataDir, { recursive: true, force: true });
}

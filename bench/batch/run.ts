// Throughput of POST /v1/batch-compress and of the batch queue (batch_compress_queue + GET
// /v1/batch-queue/{id}) at rising concurrency, against the text engine's own rate on one thread of
// this process measured just before each level, so the ratio survives a noisy machine; and tokens per
// service CPU-second, the load-independent cost of each path.
//   node dist/bench/batch/run.js   (BENCH_DOCS documents per level, default 600; BENCH_DATABASE_URL for PostgreSQL)
import { readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { packageRoot } from '../../src/lib/root.js';
import { compressText } from '../../workers/text/index.js';
import { spawnUntil, stop } from '../lib/spawn.js';
import { benchDocuments } from './documents.js';
import { sized } from '../lib/smoke.js';
import { freshDataDir } from '../lib/dataDir.js';

const DOCS = Number(process.env.BENCH_DOCS ?? sized(600, 4));
/** Documents of each engine baseline. */
const ENGINE_DOCS = sized(50, 2);
const BATCH = 50; // the synchronous route's limit
const THREADS = 2;
const load = () => loadavg().map((l) => l.toFixed(1)).join(' / ');
const ownCpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
/** User + system CPU seconds of a process, all its threads (clock ticks of 10 ms). */
const cpuOf = (pid: number) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' '); return (Number(f[11]) + Number(f[12])) / 100; };

interface Rate { sec: number; docs: number; tokens: number; cpu: number }
const perSec = (r: Rate) => `${(r.docs / r.sec).toFixed(1)} | ${(r.tokens / r.sec).toFixed(0)}`;

/** The engine alone: the same kind of documents compressed one after another on this thread. */
async function engineRate(from: number, n = ENGINE_DOCS): Promise<Rate> {
  const docs = benchDocuments(n, from);
  let tokens = 0;
  const [t0, c0] = [performance.now(), ownCpu()];
  for (const d of docs) tokens += (await compressText({ text: d.text, fidelity: 'balanced' })).original_tokens;
  return { sec: (performance.now() - t0) / 1000, docs: docs.length, tokens, cpu: ownCpu() - c0 };
}

/** Runs `tasks` with at most `limit` at once. */
async function pool<T>(tasks: Array<() => Promise<T>>, limit: number): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < tasks.length) {
      const i = next++;
      out[i] = await tasks[i]!();
    }
  }));
  return out;
}

const root = packageRoot();
const dataDir = freshDataDir('gc-bench-batch-');
const service = await spawnUntil(
  join(root, 'dist/src/main.js'),
  { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '', POOL_THREADS: String(THREADS), BATCH_QUEUE_POLL_MS: '200', RATE_LIMIT_ENTERPRISE: '100000000' },
  /(gc_[0-9a-f]{32})/, // the owner's key, printed after "listening" on a fresh store (BENCH_DATABASE_URL: an empty database)
);
const output = service.output();
const key = /(gc_[0-9a-f]{32})/.exec(output)![1]!;
const url = `http://127.0.0.1:${/"port":(\d+)/.exec(output)![1]}`;
const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
let offset = 0; // every level compresses documents no earlier level saw

async function syncLevel(clients: number): Promise<Rate> {
  const docs = benchDocuments(DOCS, (offset += DOCS));
  const requests = Array.from({ length: Math.ceil(DOCS / BATCH) }, (_, r) => async () => {
    const res = await fetch(`${url}/v1/batch-compress`, { method: 'POST', headers, body: JSON.stringify({ documents: docs.slice(r * BATCH, (r + 1) * BATCH) }) });
    const body = (await res.json()) as { summary: { total_original_tokens: number; failed: number } };
    if (res.status !== 200 || body.summary.failed) throw new Error(`batch-compress: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    return body.summary.total_original_tokens;
  });
  const [t0, c0] = [performance.now(), cpuOf(service.child.pid!)];
  const tokens = (await pool(requests, clients)).reduce((s, t) => s + t, 0);
  return { sec: (performance.now() - t0) / 1000, docs: DOCS, tokens, cpu: cpuOf(service.child.pid!) - c0 };
}

async function queueLevel(client: Client, jobs: number): Promise<Rate> {
  const per = Math.ceil(DOCS / jobs);
  const [t0, c0] = [performance.now(), cpuOf(service.child.pid!)];
  const done = await Promise.all(Array.from({ length: jobs }, async (_, j) => {
    const queued = await client.callTool({ name: 'batch_compress_queue', arguments: { documents: benchDocuments(per, (offset += per)) } });
    if (queued.isError) throw new Error(`batch_compress_queue: ${JSON.stringify(queued.structuredContent)}`);
    const id = (queued.structuredContent as { job_id: string }).job_id;
    for (;;) {
      const job = (await (await fetch(`${url}/v1/batch-queue/${id}?limit=1`, { headers })).json()) as { status: string; progress: { succeeded: number; failed: number }; summary: { total_original_tokens: number } };
      if (job.status === 'completed') {
        if (job.progress.failed) throw new Error(`job ${j}: ${job.progress.failed} documents failed`);
        return job;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }));
  const cpu = cpuOf(service.child.pid!) - c0;
  return { sec: (performance.now() - t0) / 1000, docs: done.reduce((s, j) => s + j.progress.succeeded, 0), tokens: done.reduce((s, j) => s + j.summary.total_original_tokens, 0), cpu };
}

try {
  const startLoad = load();
  await engineRate(1e6, 2 * ENGINE_DOCS); // warm-up: JIT, tokenizer tables
  await syncLevel(1); // warm-up of the service's pool threads and database
  // Each level is measured right after a baseline of its own (the load moves within minutes).
  const rows: Array<[string, Rate, Rate]> = [];
  const measure = async (name: string, level: () => Promise<Rate>) => {
    const engine = await engineRate((offset += 1000));
    rows.push([name, await level(), engine]);
  };
  for (const c of sized([1, 2, 4, 8], [1])) await measure(`POST /v1/batch-compress, ${c} client${c > 1 ? 's' : ''} (requests of ${BATCH})`, () => syncLevel(c));
  const client = new Client({ name: 'bench-batch', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  for (const j of sized([1, 2, 4], [1])) await measure(`batch_compress_queue, ${j} job${j > 1 ? 's' : ''} at once (${Math.ceil(DOCS / j)} documents each)`, () => queueLevel(client, j));
  await client.close();

  const e = rows.reduce((a, [, , r]) => ({ sec: a.sec + r.sec, docs: a.docs + r.docs, tokens: a.tokens + r.tokens, cpu: a.cpu + r.cpu }), { sec: 0, docs: 0, tokens: 0, cpu: 0 });
  console.log(`\nBatch throughput, ${DOCS} documents a level (~${benchDocuments(1)[0]!.text.length} chars, ~${Math.round(e.tokens / e.docs)} tokens each), ${process.env.BENCH_DATABASE_URL ? 'PostgreSQL' : 'PGlite on disk'}, ${THREADS} pool threads; load average ${startLoad} at start, ${load()} at end (${new Date().toISOString()})\n`);
  console.log(`Baseline: the text engine alone on one thread of the bench process, ${ENGINE_DOCS} documents just before each level: ${(e.docs / e.sec).toFixed(1)} documents/s, ${(e.tokens / e.sec).toFixed(0)} tokens/s, ${(e.tokens / e.cpu).toFixed(0)} tokens per CPU-second over all levels.`);
  console.log('"÷ engine" = the level\'s tokens/s over that baseline (2 pool threads: at most ~2 on an idle 2-core machine); tokens per service CPU-second = input tokens over the service process\'s CPU (all threads), against the engine\'s tokens per CPU-second: the load-independent cost of the path.\n');
  console.log('| path | seconds | documents/s | input tokens/s | ÷ engine (same minute) | tokens per service CPU-s | ÷ engine tokens per CPU-s |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const [name, r, b] of rows) console.log(`| ${name} | ${r.sec.toFixed(2)} | ${perSec(r)} | ${(r.tokens / r.sec / (b.tokens / b.sec)).toFixed(2)} | ${(r.tokens / r.cpu).toFixed(0)} | ${(r.tokens / r.cpu / (e.tokens / e.cpu)).toFixed(2)} |`);
} finally {
  await stop(service.child);
  rmSync(dataDir, { recursive: true, force: true });
}

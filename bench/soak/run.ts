// Soak: mixed traffic for BENCH_MINUTES (default 30) against a service in its own process, reporting
// per interval the latency of each kind of call, the answers by status and the service's RSS, then the
// drift: last interval against the first (latency ratios) and RSS growth per minute over the second
// half (a leak shows there, after warm-up). Bounded: fixed concurrency, a capped Knowledge Hub.
// `npm run bench:soak` (BENCH_MINUTES=2 for a short look; BENCH_DATABASE_URL for PostgreSQL). Not in CI.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as hdr from 'hdr-histogram-js';
import { packageRoot } from '../../src/lib/root.js';
import { spawnUntil, stop } from '../lib/spawn.js';
import { sized } from '../lib/smoke.js';
import { freshDataDir } from '../lib/dataDir.js';

const MINUTES = Number(process.env.BENCH_MINUTES ?? sized(30, 0.05));
const INTERVALS = Math.max(2, Number(process.env.BENCH_INTERVALS ?? Math.min(30, Math.ceil(MINUTES))));
const INTERVAL_MS = (MINUTES * 60_000) / INTERVALS;
const root = packageRoot();
const dataDir = freshDataDir('gc-soak-');
const NO_LIMITS = { RATE_LIMIT_FREE: '100000000', RATE_LIMIT_PRO: '100000000', RATE_LIMIT_TEAM: '100000000', RATE_LIMIT_ENTERPRISE: '100000000' };
const env = { DATA_DIR: dataDir, DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '', ...NO_LIMITS };
const key = JSON.parse(execFileSync(process.execPath, [join(root, 'dist/src/cli/keys.js'), 'create', '--plan', 'enterprise'], { env: { ...process.env, ...env } }).toString()).key as string;
const service = await spawnUntil(join(root, 'dist/src/main.js'), { ...env, PORT: '0', HOST: '127.0.0.1', BOOTSTRAP_OWNER: 'false' }, /"msg":"listening".*"port":(\d+)/);
const base = `http://127.0.0.1:${service.match[1]}`;
const pid = service.child.pid!;
const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

const prose = readFileSync(join(root, 'node_modules/postgres/README.md'), 'utf8');
const code = readFileSync(join(root, 'src/http/server.ts'), 'utf8');
const slice = (n: number) => {
  const at = Math.floor(Math.random() * Math.max(1, prose.length - n));
  return prose.slice(at, at + n);
};

type Kind = 'compress' | 'compress_cached' | 'compress_code' | 'kb_ingest' | 'kb_query' | 'mcp_tool' | 'liveness';
const KINDS: Kind[] = ['compress', 'compress_cached', 'compress_code', 'kb_ingest', 'kb_query', 'mcp_tool', 'liveness'];
const histogram = () => hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: 3 });
interface Interval {
  latency: Record<Kind, hdr.Histogram>;
  statuses: Record<string, number>;
  rss: number;
}
const newInterval = (): Interval => ({ latency: Object.fromEntries(KINDS.map((k) => [k, histogram()])) as Record<Kind, hdr.Histogram>, statuses: {}, rss: 0 });
const intervals: Interval[] = [];
let current = newInterval();

async function timed(kind: Kind, run: () => Promise<number>) {
  const t0 = process.hrtime.bigint();
  let status: number;
  try {
    status = await run();
  } catch {
    status = 0; // connection-level failure
  }
  current.latency[kind].recordValue(Math.max(1, Number((process.hrtime.bigint() - t0) / 1000n)));
  const label = status === 200 || status === 201 ? String(status) : `${kind} ${status}`;
  current.statuses[label] = (current.statuses[label] ?? 0) + 1;
}
const post = async (path: string, body: unknown) => {
  const res = await fetch(base + path, { method: 'POST', headers, body: JSON.stringify(body) });
  await res.arrayBuffer();
  return res.status;
};

const project = await (await fetch(`${base}/v1/projects`, { method: 'POST', headers, body: JSON.stringify({ name: 'soak' }) })).json();
const mcp = new Client({ name: 'soak', version: '1.0.0' });
await mcp.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));

const repeated = slice(3000);
const KB_CAP = 300; // items ingested at most; the hub then only answers queries
let ingested = 0;
const mix: (() => Promise<void>)[] = [
  () => timed('compress', () => post('/v1/compress', { text: slice(2000 + Math.floor(Math.random() * 20_000)), fidelity: 'balanced' })),
  () => timed('compress_cached', () => post('/v1/compress', { text: repeated, fidelity: 'balanced' })),
  () => timed('compress_code', () => post('/v1/compress-code', { code, language: 'typescript' })),
  () =>
    ingested++ < KB_CAP
      ? timed('kb_ingest', () => post(`/v1/projects/${project.project_id}/knowledge/items`, { name: `soak ${ingested}`, content: slice(4000) }))
      : timed('kb_query', () => post(`/v1/projects/${project.project_id}/knowledge/query`, { query: 'connection pool timeout' })),
  () => timed('kb_query', () => post(`/v1/projects/${project.project_id}/knowledge/query`, { query: 'prepared statements and transactions' })),
  // A tool error is the caller's (422 here); a transport failure is counted as 0.
  () => timed('mcp_tool', async () => ((await mcp.callTool({ name: 'optimize_for_model', arguments: { text: slice(3000), model: 'gpt-4o' } })).isError ? 422 : 200)),
];

const until = Date.now() + MINUTES * 60_000;
const CONCURRENCY = 6;
const senders = Array.from({ length: CONCURRENCY }, async () => {
  while (Date.now() < until) await mix[Math.floor(Math.random() * mix.length)]!();
});
const probe = (async () => {
  while (Date.now() < until) {
    await timed('liveness', async () => (await fetch(`${base}/health/liveness`)).status);
    await new Promise((r) => setTimeout(r, 50));
  }
})();
const ticker = setInterval(() => {
  current.rss = rssMb();
  intervals.push(current);
  current = newInterval();
  process.stderr.write(`interval ${intervals.length}/${INTERVALS}: RSS ${intervals.at(-1)!.rss.toFixed(0)} MB\n`);
}, INTERVAL_MS);
await Promise.all([...senders, probe]);
clearInterval(ticker);
if (intervals.length < INTERVALS) {
  current.rss = rssMb();
  intervals.push(current);
}
await mcp.close();

const ms = (h: hdr.Histogram, p: number) => (h.totalCount ? (h.getValueAtPercentile(p) / 1000).toFixed(1) : '-');
console.log(`soak, ${MINUTES} min, ${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}, ${new Date().toISOString()}; database ${env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}; ${CONCURRENCY} senders + a liveness probe every 50 ms`);
console.log(`| interval | RSS MB | answers by status | ${KINDS.map((k) => `${k} p50 / p99 ms`).join(' | ')} |`);
console.log(`|---:|---:|---|${KINDS.map(() => '---').join('|')}|`);
intervals.forEach((iv, i) => {
  const statuses = Object.entries(iv.statuses).map(([s, n]) => `${s}: ${n}`).join(', ');
  console.log(`| ${i + 1} | ${iv.rss.toFixed(0)} | ${statuses} | ${KINDS.map((k) => `${ms(iv.latency[k], 50)} / ${ms(iv.latency[k], 99)}`).join(' | ')} |`);
});

// Drift: last interval against the first, and RSS slope over the second half (least squares).
const first = intervals[0]!;
const last = intervals.at(-1)!;
const ratio = (k: Kind, p: number) => {
  const a = first.latency[k].getValueAtPercentile(p);
  const b = last.latency[k].getValueAtPercentile(p);
  return a && b ? (b / a).toFixed(2) : '-';
};
const half = intervals.slice(Math.floor(intervals.length / 2));
const xs = half.map((_, i) => (i * INTERVAL_MS) / 60_000);
const mean = (v: number[]) => v.reduce((s, x) => s + x, 0) / v.length;
const mx = mean(xs);
const my = mean(half.map((iv) => iv.rss));
const slope = xs.reduce((s, x, i) => s + (x - mx) * (half[i]!.rss - my), 0) / Math.max(1e-9, xs.reduce((s, x) => s + (x - mx) ** 2, 0));
console.log('\n| drift (last interval / first) | p50 | p99 |');
console.log('|---|---:|---:|');
for (const k of KINDS) console.log(`| ${k} | ${ratio(k, 50)} | ${ratio(k, 99)} |`);
console.log(`\nRSS: first ${first.rss.toFixed(0)} MB, last ${last.rss.toFixed(0)} MB, peak ${Math.max(...intervals.map((iv) => iv.rss)).toFixed(0)} MB; second-half slope ${slope.toFixed(2)} MB/min`);
const failures = intervals.reduce((n, iv) => n + Object.entries(iv.statuses).filter(([s]) => / (0|5\d\d)$/.test(s)).reduce((m, [, c]) => m + c, 0), 0);
console.log(`answers >= 500 or connection failures: ${failures}`);

await stop(service.child);
rmSync(dataDir, { recursive: true, force: true });

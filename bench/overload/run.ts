// Overload bench: a burst of large compressions at twice what the pool can hold (running plus
// queued), one key bursting while a second key sends a steady trickle. Reports the answers by status,
// /health/liveness latency during the burst, the trickle key's latency (fair share), the service's
// peak RSS and how soon it serves normally again. `npm run bench:overload`; figures in docs/reliability.md.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import * as hdr from 'hdr-histogram-js';
import { packageRoot } from '../../src/lib/root.js';
import { spawnUntil, stop } from '../lib/spawn.js';

const root = packageRoot();
const THREADS = 2;
const MAX_QUEUE = 8;
const CAPACITY = THREADS + MAX_QUEUE;
const BURST = 2 * CAPACITY * 10; // twice the capacity, ten times over while the burst lasts

const dataDir = mkdtempSync(join(tmpdir(), 'gc-overload-'));
const env = { DATA_DIR: dataDir, DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '' };
const newKey = (plan: string) => JSON.parse(execFileSync(process.execPath, [join(root, 'dist/src/cli/keys.js'), 'create', '--plan', plan], { env: { ...process.env, ...env } }).toString()).key as string;
const burster = newKey('free');
const trickler = newKey('free');
const service = await spawnUntil(
  join(root, 'dist/src/main.js'),
  { ...env, PORT: '0', HOST: '127.0.0.1', BOOTSTRAP_OWNER: 'false', POOL_THREADS: String(THREADS), POOL_MAX_QUEUE: String(MAX_QUEUE), RATE_LIMIT_FREE: '100000000' },
  /"msg":"listening".*"port":(\d+)/,
);
const url = `http://127.0.0.1:${service.match[1]}`;
const pid = service.child.pid!;
const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

// About 80k tokens of real prose per request.
const readme = readFileSync(join(root, 'node_modules/postgres/README.md'), 'utf8');
const big = JSON.stringify({ text: readme.repeat(Math.ceil(320_000 / readme.length)).slice(0, 320_000), fidelity: 'balanced' });
const small = JSON.stringify({ text: readme.slice(0, 4000), fidelity: 'balanced' });
const post = async (key: string, body: string) => {
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/compress`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - t0, retryAfter: res.headers.get('retry-after') };
};

const idleRss = rssMb();
let peakRss = idleRss;
const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, rssMb())), 50);
const probeProc = await spawnUntil(join(root, 'dist/bench/overload/probe.js'), { PROBE_URL: url }, /probing/);
let bursting = true;
const trickle = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 600_000, numberOfSignificantValueDigits: 3 });
const trickleStatus: Record<number, number> = {};
const trickling = (async () => {
  while (bursting) {
    const r = await post(trickler, small);
    trickleStatus[r.status] = (trickleStatus[r.status] ?? 0) + 1;
    if (r.status === 200) trickle.recordValue(Math.max(1, Math.round(r.ms)));
    await new Promise((res) => setTimeout(res, 50));
  }
})();

const started = performance.now();
const burst = await Promise.all(Array.from({ length: BURST }, () => post(burster, big)));
const burstSeconds = (performance.now() - started) / 1000;
bursting = false;
await trickling;
probeProc.child.removeAllListeners('exit');
const probeDone = new Promise<void>((r) => probeProc.child.once('exit', () => r()));
probeProc.child.kill('SIGTERM');
await probeDone;
const liveness = JSON.parse(probeProc.output().trim().split('\n').pop()!) as { probes: number; p50: number; p99: number; max: number };
clearInterval(rssTimer);
const recoverStart = performance.now();
const after = await post(burster, small);
const recoveryMs = performance.now() - recoverStart;

const byStatus: Record<number, number> = {};
for (const r of burst) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
const refusedWithoutRetry = burst.filter((r) => r.status >= 500 && !r.retryAfter).length;
const q = (h: hdr.Histogram, p: number) => h.getValueAtPercentile(p).toFixed(1);

console.log(`overload bench, ${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}, ${new Date().toISOString()}`);
console.log(`database ${env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}; pool ${THREADS} threads + ${MAX_QUEUE} queued; burst of ${BURST} compressions of ~80k tokens from one key (${burstSeconds.toFixed(1)} s)`);
console.log('| measure | value |');
console.log('|---|---|');
console.log(`| burst answers by status | ${Object.entries(byStatus).map(([s, n]) => `${s}: ${n}`).join(', ')} |`);
console.log(`| refusals without Retry-After | ${refusedWithoutRetry} |`);
console.log(`| /health/liveness during the burst (probed from its own process), p50 / p99 / max ms | ${liveness.p50} / ${liveness.p99} / ${liveness.max} (${liveness.probes} probes) |`);
console.log(`| second key's small compressions during the burst, p50 / p99 ms | ${q(trickle, 50)} / ${q(trickle, 99)} (${Object.entries(trickleStatus).map(([s, n]) => `${s}: ${n}`).join(', ')}) |`);
console.log(`| RSS idle / peak MB | ${idleRss.toFixed(0)} / ${peakRss.toFixed(0)} |`);
console.log(`| first small compression after the burst | ${after.status} in ${recoveryMs.toFixed(0)} ms |`);

await stop(service.child);
rmSync(dataDir, { recursive: true, force: true });

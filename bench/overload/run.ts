// Overload bench: a burst of large compressions at twice what the pool can hold (running plus
// queued), one key bursting while a second key sends a steady trickle. Reports the answers by status,
// /health/liveness latency during the burst, the trickle key's latency (fair share), the service's
// peak RSS and how soon it serves normally again. `npm run bench:overload`; figures in docs/reliability.md.
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import * as hdr from 'hdr-histogram-js';
import { packageRoot } from '../../src/lib/root.js';
import { spawnUntil, stop } from '../lib/spawn.js';
import { sized } from '../lib/smoke.js';
import { freshDataDir } from '../lib/dataDir.js';

const root = packageRoot();
const THREADS = 2;
const MAX_QUEUE = 8;
const CAPACITY = THREADS + MAX_QUEUE;
const BURST = sized(2 * CAPACITY * 10, 2 * CAPACITY); // twice the capacity, ten times over, arriving at once
const SUSTAIN_SECONDS = Number(process.env.BENCH_SECONDS ?? sized(15, 1));
/** Characters of each large request (about 80k tokens; smoke: about 5k). */
const BIG_CHARS = sized(320_000, 20_000);

const dataDir = freshDataDir('gc-overload-');
const env = { DATA_DIR: dataDir, DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '' };
const newKey = (plan: string) => JSON.parse(execFileSync(process.execPath, [join(root, 'dist/src/cli/keys.js'), 'create', '--plan', plan], { env: { ...process.env, ...env } }).toString()).key as string;
const burster = newKey('free');
const trickler = newKey('free');
const service = await spawnUntil(
  join(root, 'dist/src/main.js'),
  { ...env, PORT: '0', HOST: '127.0.0.1', BOOTSTRAP_OWNER: 'false', POOL_THREADS: String(THREADS), POOL_MAX_QUEUE: String(MAX_QUEUE), RATE_LIMIT_FREE: '100000000' },
  /"msg":"listening".*"port":(\d+)/,
  60_000,
  // BENCH_PROFILE_DIR=dir: the service writes a CPU profile of every thread there when it stops.
  process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : [],
);
const url = `http://127.0.0.1:${service.match[1]}`;
const pid = service.child.pid!;
const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

// About 80k tokens of real prose per request.
const readme = readFileSync(join(root, 'node_modules/postgres/README.md'), 'utf8');
const big = JSON.stringify({ text: readme.repeat(Math.ceil(BIG_CHARS / readme.length)).slice(0, BIG_CHARS), fidelity: 'balanced' });
const small = JSON.stringify({ text: readme.slice(0, 4000), fidelity: 'balanced' });
const post = async (key: string, body: string) => {
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/compress`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - t0, retryAfter: res.headers.get('retry-after') };
};

type Answer = Awaited<ReturnType<typeof post>>;
const idleRss = rssMb();
let peakRss = idleRss;
const rssTimer = setInterval(() => (peakRss = Math.max(peakRss, rssMb())), 50);

/** Runs one load shape while a probe (own process) reads liveness and a second key trickles small compressions. */
async function phase(load: () => Promise<Answer[]>) {
  const probeProc = await spawnUntil(join(root, 'dist/bench/overload/probe.js'), { PROBE_URL: url }, /probing/);
  let loading = true;
  const trickle = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 600_000, numberOfSignificantValueDigits: 3 });
  const trickleStatus: Record<number, number> = {};
  const trickling = (async () => {
    while (loading) {
      const r = await post(trickler, small);
      trickleStatus[r.status] = (trickleStatus[r.status] ?? 0) + 1;
      if (r.status === 200) trickle.recordValue(Math.max(1, Math.round(r.ms)));
      await new Promise((res) => setTimeout(res, 50));
    }
  })();
  const started = performance.now();
  const answers = await load();
  const seconds = (performance.now() - started) / 1000;
  loading = false;
  await trickling;
  probeProc.child.removeAllListeners('exit');
  const probeDone = new Promise<void>((r) => probeProc.child.once('exit', () => r()));
  probeProc.child.kill('SIGTERM');
  await probeDone;
  const liveness = JSON.parse(probeProc.output().trim().split('\n').pop()!) as { probes: number; p50: number; p99: number; max: number };
  const byStatus: Record<number, number> = {};
  for (const r of answers) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
  return { seconds, answers, byStatus, liveness, trickle, trickleStatus };
}

// Spike: the whole burst arrives at once.
const spike = await phase(() => Promise.all(Array.from({ length: BURST }, () => post(burster, big))));
// Sustained: twice the capacity in flight for SUSTAIN_SECONDS, each sender resending at once (100 ms after a refusal).
const sustained = await phase(async () => {
  const until = performance.now() + SUSTAIN_SECONDS * 1000;
  const answers: Answer[] = [];
  await Promise.all(
    Array.from({ length: 2 * CAPACITY }, async () => {
      while (performance.now() < until) {
        const r = await post(burster, big);
        answers.push(r);
        if (r.status !== 200) await new Promise((res) => setTimeout(res, 100));
      }
    }),
  );
  return answers;
});
clearInterval(rssTimer);
const recoverStart = performance.now();
const after = await post(burster, small);
const recoveryMs = performance.now() - recoverStart;

const q = (h: hdr.Histogram, p: number) => h.getValueAtPercentile(p).toFixed(1);
const statuses = (m: Record<number, number>) => Object.entries(m).map(([s, n]) => `${s}: ${n}`).join(', ');
const noRetry = (answers: Answer[]) => answers.filter((r) => r.status >= 500 && !r.retryAfter).length;

console.log(`overload bench, ${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}, ${new Date().toISOString()}`);
console.log(`database ${env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}; pool ${THREADS} threads + ${MAX_QUEUE} queued; compressions of ~80k tokens from one key`);
console.log(`spike: ${BURST} at once (${spike.seconds.toFixed(1)} s); sustained: ${2 * CAPACITY} in flight for ${sustained.seconds.toFixed(1)} s`);
console.log('| measure | spike | sustained |');
console.log('|---|---|---|');
console.log(`| answers by status | ${statuses(spike.byStatus)} | ${statuses(sustained.byStatus)} |`);
console.log(`| refusals without Retry-After | ${noRetry(spike.answers)} | ${noRetry(sustained.answers)} |`);
console.log(`| /health/liveness (own process), p50 / p99 / max ms | ${spike.liveness.p50} / ${spike.liveness.p99} / ${spike.liveness.max} (${spike.liveness.probes} probes) | ${sustained.liveness.p50} / ${sustained.liveness.p99} / ${sustained.liveness.max} (${sustained.liveness.probes} probes) |`);
console.log(`| second key's small compressions, p50 / p99 ms | ${q(spike.trickle, 50)} / ${q(spike.trickle, 99)} (${statuses(spike.trickleStatus)}) | ${q(sustained.trickle, 50)} / ${q(sustained.trickle, 99)} (${statuses(sustained.trickleStatus)}) |`);
console.log(`| RSS idle / peak MB (whole run) | ${idleRss.toFixed(0)} / ${peakRss.toFixed(0)} | |`);
console.log(`| first small compression after the load | ${after.status} in ${recoveryMs.toFixed(0)} ms | |`);

await stop(service.child);
rmSync(dataDir, { recursive: true, force: true });

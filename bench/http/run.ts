// HTTP load benchmark: the service's /health/liveness and /v1/compress (cache hit, computed) on each HTTP
// engine this runtime loads (uWebSockets.js, node:http), each next to a bare hello-world on the same engine, and computed compression next to the same compression run directly
// in as many threads as the pool has. The targets are measured in turn, ROUNDS times over, so a change
// of load on a shared machine hits every target alike; each figure is the median over the rounds of
// its ratio to the baseline measured in the same round.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import { packageRoot } from '../../src/lib/root.js';
import { loadUws, UWS_BUILDS } from '../../src/http/engine/uwsEngine.js';
import { spawnUntil, stop } from '../lib/spawn.js';
import { benchDocument, createKey, targets } from './targets.js';
import { SMOKE, sized } from '../lib/smoke.js';
import { seedDataDir } from '../lib/dataDir.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? sized(4, 1));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? sized(3, 1));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? sized(32, 2));
const THREADS = Number(process.env.POOL_THREADS ?? availableParallelism());
// Smoke: no nice, so the few calls finish promptly on a machine busy with other work.
const NICE = Number(process.env.POOL_THREAD_NICE ?? sized(10, 0));

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); null elsewhere. */
function cpuSeconds(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return null;
  }
}

interface Sample {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** Server process CPU microseconds per answered request. */
  cpuUs: number | null;
}

async function load(opts: autocannon.Options, pid: number): Promise<Sample> {
  const cpu0 = cpuSeconds(pid);
  const r = await autocannon({ connections: CONNECTIONS, duration: DURATION, ...opts });
  const cpu1 = cpuSeconds(pid);
  const answered = r.requests.total;
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.errors,
    non2xx: r.non2xx,
    cpuUs: cpu0 === null || cpu1 === null || answered === 0 ? null : ((cpu1 - cpu0) * 1e6) / answered,
  };
}

/**
 * The same compression, called directly in THREADS worker threads for DURATION: compressions per second,
 * and this process's CPU per compression (autocannon is idle meanwhile, so that is the threads' work).
 */
async function engine(text: string): Promise<{ rate: number; cpuUs: number }> {
  const file = join(packageRoot(), 'dist/bench/http/engineWorker.js');
  const cpu0 = process.cpuUsage();
  const counts = await Promise.all(
    Array.from({ length: THREADS }, () => new Promise<number>((resolve, reject) => {
      const w = new Worker(file, { workerData: { text, ms: DURATION * 1000, nice: NICE } });
      w.once('message', (n: number) => resolve(n));
      w.once('error', reject);
    })),
  );
  const cpu = process.cpuUsage(cpu0);
  const calls = counts.reduce((a, b) => a + b, 0);
  return { rate: calls / DURATION, cpuUs: (cpu.user + cpu.system) / calls };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const root = packageRoot();
const dataDir = mkdtempSync(join(tmpdir(), 'gc-bench-'));
const doc = benchDocument();

/** Both HTTP engines where this runtime loads uWS (docs/runtime.md), each with its own bare baseline. */
// Smoke: node:http alone (the other engine repeats the same steps).
const engineNames = (process.env.BENCH_ENGINES ?? (SMOKE ? 'node' : UWS_BUILDS.some((b) => loadUws(b, () => '').ok) ? 'uws,node' : 'node')).split(',') as ('uws' | 'node')[];
const started: Awaited<ReturnType<typeof spawnUntil>>[] = [];
interface Side {
  name: 'uws' | 'node';
  helloUrl: string;
  helloPid: number;
  servicePid: number;
  t: ReturnType<typeof targets>;
  info: string;
}
const sides: Side[] = [];

try {
  for (const name of engineNames) {
    // One embedded database per service: a PGlite folder has one owner (docs/reliability.md).
    const keys = { free: createKey(seedDataDir(join(dataDir, name)), 'free'), enterprise: createKey(join(dataDir, name), 'enterprise') };
    const hello = await spawnUntil(join(root, 'dist/bench/http/hello.js'), { PORT: '0', HTTP_ENGINE: name }, /listening (\d+)/);
    started.push(hello);
    const service = await spawnUntil(
      join(root, 'dist/src/main.js'),
      {
        PORT: '0', HOST: '127.0.0.1', DATA_DIR: join(dataDir, name), DATABASE_URL: process.env.DATABASE_URL ?? '', BOOTSTRAP_OWNER: 'false', HTTP_ENGINE: name,
        RATE_LIMIT_FREE: '100000000', RATE_LIMIT_ENTERPRISE: '100000000', POOL_THREADS: String(THREADS), POOL_THREAD_NICE: String(NICE),
      },
      /"msg":"listening".*"port":(\d+)/,
    );
    started.push(service);
    const engineInfo = /"http_engine_package":("[^"]*"|null)/.exec(service.output())?.[1] ?? '';
    sides.push({
      name,
      helloUrl: `http://127.0.0.1:${hello.match[1]}/`,
      helloPid: hello.child.pid!,
      servicePid: service.child.pid!,
      t: targets(`http://127.0.0.1:${service.match[1]}`, keys, doc),
      info: name === 'uws' ? `uWS ${engineInfo.replace(/"/g, '')}` : 'node:http',
    });
  }
  // Tokens per compression, from the service's own answer (the Enterprise call also fills each cache).
  let tokens = 0;
  for (const side of sides) {
    const { hit } = side.t;
    const first = await fetch(hit.url as string, { method: 'POST', headers: hit.headers as Record<string, string>, body: hit.body as string });
    tokens = ((await first.json()) as { original_tokens: number }).original_tokens;
  }
  const loadBefore = loadavg();
  const rows = new Map<string, Sample[]>();
  const push = (key: string, s: Sample) => rows.set(key, [...(rows.get(key) ?? []), s]);
  const engineRuns: { rate: number; cpuUs: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const side of sides) {
      push(`${side.name}:bare`, await load({ url: side.helloUrl }, side.helloPid));
      push(`${side.name}:liveness`, await load(side.t.liveness, side.servicePid));
      push(`${side.name}:hit`, await load(side.t.hit, side.servicePid));
      push(`${side.name}:computed`, await load(side.t.computed, side.servicePid));
    }
    engineRuns.push(await engine(doc));
  }
  const loadAfter = loadavg();
  const label = (side: Side, target: string) =>
    ({
      bare: `${side.info}: bare hello (baseline)`,
      liveness: `${side.info}: GET /health/liveness`,
      hit: `${side.info}: POST /v1/compress (balanced, ${doc.length} chars, Enterprise: cache hits)`,
      computed: `${side.info}: POST /v1/compress (same, Free: computed in the pool)`,
    })[target]!;
  console.log(
    `\nHTTP load on Node ${process.version}, ${CONNECTIONS} connections, ${ROUNDS} rounds x ${DURATION} s per target, autocannon in-process, servers in child processes, ` +
      `${THREADS} pool threads at nice ${NICE}, database ${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'} (${new Date().toISOString()}); ` +
      `load average ${loadBefore.map((l) => l.toFixed(1)).join(' ')} before, ${loadAfter.map((l) => l.toFixed(1)).join(' ')} after\n`,
  );
  console.log('| target | req/s (median) | req/s vs its engine\'s bare (median of rounds) | per round | server CPU µs/request | p50 ms | p99 ms | errors | non-2xx |');
  console.log('|---|---:|---:|---|---:|---:|---:|---:|---:|');
  for (const side of sides) {
    const bare = rows.get(`${side.name}:bare`)!;
    for (const target of ['bare', 'liveness', 'hit', 'computed']) {
      const samples = rows.get(`${side.name}:${target}`)!;
      const ratios = samples.map((s, i) => s.rps / bare[i]!.rps);
      const cpu = samples.map((s) => s.cpuUs).filter((c): c is number => c !== null);
      console.log(
        `| ${label(side, target)} | ${median(samples.map((s) => s.rps)).toFixed(0)} | ${median(ratios).toFixed(3)} | ${ratios.map((r) => r.toFixed(2)).join(' ')} | ` +
          `${cpu.length ? median(cpu).toFixed(0) : '-'} | ${median(samples.map((s) => s.p50))} | ${median(samples.map((s) => s.p99))} | ` +
          `${samples.reduce((a, s) => a + s.errors, 0)} | ${samples.reduce((a, s) => a + s.non2xx, 0)} |`,
      );
    }
  }
  if (sides.length === 2) {
    const [a, b] = sides as [Side, Side];
    const ratio = (target: string) => median(rows.get(`${b.name}:${target}`)!.map((s, i) => s.rps / rows.get(`${a.name}:${target}`)![i]!.rps));
    console.log(`\n${b.info} vs ${a.info}, req/s (median of rounds): bare ${ratio('bare').toFixed(2)}x, liveness ${ratio('liveness').toFixed(2)}x, cache hit ${ratio('hit').toFixed(2)}x, computed ${ratio('computed').toFixed(2)}x`);
  }
  const engineCpu = median(engineRuns.map((e) => e.cpuUs));
  for (const side of sides) {
    const computed = rows.get(`${side.name}:computed`)!;
    const shares = computed.map((s, i) => s.rps / engineRuns[i]!.rate);
    const serviceCpu = median(computed.map((s) => s.cpuUs ?? NaN));
    console.log(
      `\n${side.info}: computed compression at saturation: ${(median(computed.map((s) => s.rps)) * tokens).toFixed(0)} tokens/s through HTTP ` +
        `vs ${(median(engineRuns.map((e) => e.rate)) * tokens).toFixed(0)} tokens/s for the engine called directly in ${THREADS} threads ` +
        `(${tokens} tokens a call): ${(median(shares) * 100).toFixed(0)}% (per round ${shares.map((r) => (r * 100).toFixed(0) + '%').join(' ')}). ` +
        `CPU per compression: ${engineCpu.toFixed(0)} µs direct, ${serviceCpu.toFixed(0)} µs in the service process (event loop and pool threads): ` +
        `the engine's share ${((engineCpu / serviceCpu) * 100).toFixed(0)}%.`,
    );
  }
} finally {
  for (const p of started) await stop(p.child);
  rmSync(dataDir, { recursive: true, force: true });
}

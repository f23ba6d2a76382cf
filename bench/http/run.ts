// HTTP load benchmark: the service's /health/liveness and /v1/compress (cache hit, computed) next to a
// bare uWebSockets.js hello-world, and computed compression next to the same compression run directly
// in as many threads as the pool has. The targets are measured in turn, ROUNDS times over, so a change
// of load on a shared machine hits every target alike; each figure is the median over the rounds of
// its ratio to the baseline measured in the same round.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import { packageRoot } from '../../src/lib/root.js';
import { spawnUntil, stop } from '../lib/spawn.js';
import { benchDocument, createKey, targets } from './targets.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const THREADS = Number(process.env.POOL_THREADS ?? availableParallelism());
const NICE = Number(process.env.POOL_THREAD_NICE ?? 10);

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
const keys = { free: createKey(dataDir, 'free'), enterprise: createKey(dataDir, 'enterprise') };
const hello = await spawnUntil(join(root, 'dist/bench/http/hello.js'), { PORT: '0' }, /listening (\d+)/);
const service = await spawnUntil(
  join(root, 'dist/src/main.js'),
  {
    PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: process.env.DATABASE_URL ?? '', BOOTSTRAP_OWNER: 'false',
    RATE_LIMIT_FREE: '100000000', RATE_LIMIT_ENTERPRISE: '100000000', POOL_THREADS: String(THREADS), POOL_THREAD_NICE: String(NICE),
  },
  /"msg":"listening".*"port":(\d+)/,
);
const serviceUrl = `http://127.0.0.1:${service.match[1]}`;
const doc = benchDocument();
const t = targets(serviceUrl, keys, doc);
const helloPid = hello.child.pid!;
const servicePid = service.child.pid!;

try {
  // Tokens per compression, from the service's own answer (the Enterprise call also fills the cache).
  const first = await fetch(t.hit.url as string, { method: 'POST', headers: t.hit.headers as Record<string, string>, body: t.hit.body as string });
  const tokens = ((await first.json()) as { original_tokens: number }).original_tokens;
  const loadBefore = loadavg();
  const rows: Record<string, Sample[]> = { bare: [], liveness: [], hit: [], computed: [] };
  const engineRuns: { rate: number; cpuUs: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    rows.bare!.push(await load({ url: `http://127.0.0.1:${hello.match[1]}/` }, helloPid));
    rows.liveness!.push(await load(t.liveness, servicePid));
    rows.hit!.push(await load(t.hit, servicePid));
    rows.computed!.push(await load(t.computed, servicePid));
    engineRuns.push(await engine(doc));
  }
  const loadAfter = loadavg();
  const names: Record<string, string> = {
    bare: 'bare uWS hello (baseline)',
    liveness: 'GET /health/liveness',
    hit: `POST /v1/compress (balanced, ${doc.length} chars, Enterprise: cache hits)`,
    computed: `POST /v1/compress (same, Free: computed in the pool)`,
  };
  const bare = rows.bare!;
  console.log(
    `\nHTTP load, ${CONNECTIONS} connections, ${ROUNDS} rounds x ${DURATION} s per target, autocannon in-process, servers in child processes, ` +
      `${THREADS} pool threads at nice ${NICE}, database ${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'} (${new Date().toISOString()}); ` +
      `load average ${loadBefore.map((l) => l.toFixed(1)).join(' ')} before, ${loadAfter.map((l) => l.toFixed(1)).join(' ')} after\n`,
  );
  console.log('| target | req/s (median) | req/s vs bare (median of rounds) | per round | server CPU µs/request | p50 ms | p99 ms | errors | non-2xx |');
  console.log('|---|---:|---:|---|---:|---:|---:|---:|---:|');
  for (const [key, samples] of Object.entries(rows)) {
    const ratios = samples.map((s, i) => s.rps / bare[i]!.rps);
    const cpu = samples.map((s) => s.cpuUs).filter((c): c is number => c !== null);
    console.log(
      `| ${names[key]} | ${median(samples.map((s) => s.rps)).toFixed(0)} | ${median(ratios).toFixed(3)} | ${ratios.map((r) => r.toFixed(2)).join(' ')} | ` +
        `${cpu.length ? median(cpu).toFixed(0) : '-'} | ${median(samples.map((s) => s.p50))} | ${median(samples.map((s) => s.p99))} | ` +
        `${samples.reduce((a, s) => a + s.errors, 0)} | ${samples.reduce((a, s) => a + s.non2xx, 0)} |`,
    );
  }
  const shares = rows.computed!.map((s, i) => s.rps / engineRuns[i]!.rate);
  const engineCpu = median(engineRuns.map((e) => e.cpuUs));
  const serviceCpu = median(rows.computed!.map((s) => s.cpuUs ?? NaN));
  console.log(
    `\nComputed compression at saturation: ${(median(rows.computed!.map((s) => s.rps)) * tokens).toFixed(0)} tokens/s through HTTP ` +
      `vs ${(median(engineRuns.map((e) => e.rate)) * tokens).toFixed(0)} tokens/s for the engine called directly in ${THREADS} threads ` +
      `(${tokens} tokens a call): ${(median(shares) * 100).toFixed(0)}% (per round ${shares.map((r) => (r * 100).toFixed(0) + '%').join(' ')}). ` +
      `CPU per compression: ${engineCpu.toFixed(0)} µs direct, ${serviceCpu.toFixed(0)} µs in the service process (event loop and pool threads): ` +
      `the engine's share ${((engineCpu / serviceCpu) * 100).toFixed(0)}%.`,
  );
} finally {
  await stop(service.child);
  await stop(hello.child);
  rmSync(dataDir, { recursive: true, force: true });
}

// A/B of two builds of the service on the same machine in the same run: BENCH_BASE_ROOT names a copy
// of the package (its dist/ built from the baseline commit); this checkout is B. Each round measures
// every target on A then B (the order alternates per round), so a change of load hits both alike; the
// figures are medians over rounds of B/A req/s and server CPU µs per answered request.
// Usage: BENCH_BASE_ROOT=/tmp/base node dist/bench/http/ab.js [hit,computed,liveness]
import { readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { packageRoot } from '../../src/lib/root.js';
import { spawnUntil, stop } from '../lib/spawn.js';
import { createKey, targets } from './targets.js';
import { SMOKE, sized } from '../lib/smoke.js';
import { freshDataDir } from '../lib/dataDir.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? sized(4, 1));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? sized(4, 1));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? sized(32, 2));
// Smoke: this checkout against itself (no second build at hand).
const baseRoot = process.env.BENCH_BASE_ROOT ?? (SMOKE ? packageRoot() : undefined);
if (!baseRoot) throw new Error('set BENCH_BASE_ROOT to the baseline package copy');
const which = (process.argv[2] ?? 'hit,computed').split(',') as (keyof ReturnType<typeof targets>)[];

/** CPU seconds of the process, or of its main thread (the event loop) when `thread`. */
const cpuSeconds = (pid: number, thread = false) => {
  const f = readFileSync(thread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function start(root: string) {
  const dataDir = freshDataDir('gc-ab-');
  const keys = { free: createKey(dataDir, 'free'), enterprise: createKey(dataDir, 'enterprise') };
  const s = await spawnUntil(
    join(root, 'dist/src/main.js'),
    { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: process.env.DATABASE_URL ?? '', BOOTSTRAP_OWNER: 'false', RATE_LIMIT_FREE: '100000000', RATE_LIMIT_ENTERPRISE: '100000000', LOG_REQUESTS: 'false' },
    /"msg":"listening".*"port":(\d+)/,
  );
  const t = targets(`http://127.0.0.1:${s.match[1]}`, keys);
  await fetch(t.hit.url as string, { method: 'POST', headers: t.hit.headers as Record<string, string>, body: t.hit.body as string });
  return { ...s, t, dataDir };
}

const sides = [await start(baseRoot), await start(packageRoot())];
const results = new Map<string, { rps: number[][]; cpu: number[][]; loop: number[][] }>(which.map((w) => [w, { rps: [[], []], cpu: [[], []], loop: [[], []] }]));
const before = loadavg();
try {
  for (const side of sides) for (const w of which) await autocannon({ ...side.t[w], connections: CONNECTIONS, duration: 1 }); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const w of which) {
      for (const i of round % 2 ? [1, 0] : [0, 1]) {
        const pid = sides[i]!.child.pid!;
        const c0 = cpuSeconds(pid);
        const l0 = cpuSeconds(pid, true);
        const r = await autocannon({ ...sides[i]!.t[w], connections: CONNECTIONS, duration: DURATION });
        const c1 = cpuSeconds(pid);
        const l1 = cpuSeconds(pid, true);
        if (r.non2xx || r.errors) console.log(`warning: ${w} side ${i ? 'B' : 'A'}: ${r.non2xx} non-2xx, ${r.errors} errors`);
        results.get(w)!.rps[i]!.push(r.requests.average);
        results.get(w)!.cpu[i]!.push(((c1 - c0) * 1e6) / Math.max(1, r.requests.total));
        results.get(w)!.loop[i]!.push(((l1 - l0) * 1e6) / Math.max(1, r.requests.total));
      }
    }
  }
} finally {
  for (const s of sides) {
    await stop(s.child);
    rmSync(s.dataDir, { recursive: true, force: true });
  }
}
const after = loadavg();
console.log(`A/B ${ROUNDS} rounds x ${DURATION} s, ${CONNECTIONS} connections, database ${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}; load ${before.map((l) => l.toFixed(1)).join(' ')} before, ${after.map((l) => l.toFixed(1)).join(' ')} after`);
console.log('| target | A req/s | B req/s | B/A req/s (median of rounds) | per round | A CPU µs/req | B CPU µs/req | B/A CPU | A event loop µs/req | B event loop µs/req | B/A event loop |');
console.log('|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|');
for (const [w, r] of results) {
  const ratios = r.rps[1]!.map((b, k) => b / r.rps[0]![k]!);
  const cpuA = median(r.cpu[0]!);
  const cpuB = median(r.cpu[1]!);
  const loopA = median(r.loop[0]!);
  const loopB = median(r.loop[1]!);
  console.log(
    `| ${w} | ${median(r.rps[0]!).toFixed(0)} | ${median(r.rps[1]!).toFixed(0)} | ${median(ratios).toFixed(3)} | ${ratios.map((x) => x.toFixed(2)).join(' ')} | ` +
      `${cpuA.toFixed(0)} | ${cpuB.toFixed(0)} | ${(cpuB / cpuA).toFixed(3)} | ${loopA.toFixed(0)} | ${loopB.toFixed(0)} | ${(loopB / loopA).toFixed(3)} |`,
  );
}

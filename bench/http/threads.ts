// CPU per thread of the service under one target's load (Linux /proc): which thread spends what.
// Usage: node dist/bench/http/threads.js [liveness|hit|computed]
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { packageRoot } from '../../src/lib/root.js';
import { spawnUntil, stop } from '../lib/spawn.js';
import { createKey, targets } from './targets.js';
import { sized } from '../lib/smoke.js';
import { freshDataDir } from '../lib/dataDir.js';

function threads(pid: number): Map<string, { name: string; cpu: number }> {
  const out = new Map<string, { name: string; cpu: number }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const f = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
    out.set(tid, { name: tid === String(pid) ? 'main (event loop)' : name, cpu: (Number(f[11]) + Number(f[12])) / 100 });
  }
  return out;
}

const which = (process.argv[2] ?? 'computed') as 'liveness' | 'hit' | 'computed';
const dataDir = freshDataDir('gc-threads-');
const keys = { free: createKey(dataDir, 'free'), enterprise: createKey(dataDir, 'enterprise') };
const service = await spawnUntil(
  join(packageRoot(), 'dist/src/main.js'),
  { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: process.env.DATABASE_URL ?? '', BOOTSTRAP_OWNER: 'false', RATE_LIMIT_FREE: '100000000', RATE_LIMIT_ENTERPRISE: '100000000' },
  /"msg":"listening".*"port":(\d+)/,
);
try {
  const target = targets(`http://127.0.0.1:${service.match[1]}`, keys)[which];
  // One call first: it fills the cache (hit) and warms a pool thread, so warm-up load is not a queue of misses.
  await fetch(target.url as string, { method: target.method ?? 'GET', headers: target.headers as Record<string, string>, body: target.body as string | undefined });
  await autocannon({ ...target, connections: sized(32, 2), duration: sized(2, 1) });
  const pid = service.child.pid!;
  const before = threads(pid);
  const r = await autocannon({ ...target, connections: sized(32, 2), duration: Number(process.env.BENCH_SECONDS ?? sized(8, 1)) });
  const after = threads(pid);
  const n = r.requests.total;
  console.log(`${which}: ${n} requests, ${r.requests.average.toFixed(0)} req/s, non-2xx ${r.non2xx}, errors ${r.errors}, timeouts ${r.timeouts}; CPU µs per request by thread:`);
  const rows = [...after].map(([tid, a]) => ({ tid, name: a.name, us: ((a.cpu - (before.get(tid)?.cpu ?? 0)) * 1e6) / n })).filter((x) => x.us > 0);
  for (const x of rows.sort((a, b) => b.us - a.us)) console.log(`${x.us.toFixed(0).padStart(7)}  ${x.name} (${x.tid})`);
} finally {
  await stop(service.child);
  rmSync(dataDir, { recursive: true, force: true });
}

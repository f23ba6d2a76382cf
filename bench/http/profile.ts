// Where the service spends its event-loop time under load: starts it with --cpu-prof, drives one
// target with autocannon, stops it and prints the self time summed per function (top 40).
// Usage: node dist/bench/http/profile.js [liveness|hit|computed]
// BENCH_PROFILE_THREAD=<thread id> reads that worker thread's profile instead (ids are listed; the
// pool's threads are the busy ones under a computed load), over the same measured window.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { packageRoot } from '../../src/lib/root.js';
import { spawnUntil, stop } from '../lib/spawn.js';
import { createKey, targets } from './targets.js';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
let stopMs = 0;
const which = (process.argv[2] ?? 'hit') as keyof ReturnType<typeof targets>;
const root = packageRoot();
const dataDir = mkdtempSync(join(tmpdir(), 'gc-prof-'));
const profDir = mkdtempSync(join(tmpdir(), 'gc-prof-out-'));
const keys = { free: createKey(dataDir, 'free'), enterprise: createKey(dataDir, 'enterprise') };
const service = await spawnUntil(
  join(root, 'dist/src/main.js'),
  { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: process.env.DATABASE_URL ?? '', BOOTSTRAP_OWNER: 'false', RATE_LIMIT_FREE: '100000000', RATE_LIMIT_ENTERPRISE: '100000000', LOG_REQUESTS: 'false' },
  /"msg":"listening".*"port":(\d+)/,
  60_000,
  ['--cpu-prof', `--cpu-prof-dir=${profDir}`],
);
try {
  const target = targets(`http://127.0.0.1:${service.match[1]}`, keys)[which];
  await fetch(target.url as string, { method: target.method ?? 'GET', headers: target.headers as Record<string, string>, body: target.body as string | undefined });
  await autocannon({ ...target, connections: 32, duration: 2 }); // warm-up
  const result = await autocannon({ ...target, connections: 32, duration: SECONDS });
  console.log(`${which}: ${result.requests.average.toFixed(0)} req/s, non-2xx ${result.non2xx}`);
} finally {
  const stopping = performance.now();
  await stop(service.child);
  stopMs = performance.now() - stopping;
}
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[]; startTime: number };
// Files are CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile; thread 0 is the event loop.
const files = new Map(readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile')).map((f) => [Number(f.split('.')[4]), f]));
const read = (tid: number) => JSON.parse(readFileSync(join(profDir, files.get(tid) ?? ''), 'utf8')) as Profile;
const sampleTimes = (p: Profile) => {
  const t: number[] = [];
  p.timeDeltas.reduce((acc, d, i) => (t[i] = acc + d), p.startTime);
  return t;
};
if (!files.has(0)) throw new Error('no profile written');
// Only the measured run: the event loop's last SECONDS before shutdown began (startup and warm-up left
// out). Profile times share one clock across threads, so a worker's profile is cut to the same window.
const mainTimes = sampleTimes(read(0));
const end = mainTimes[mainTimes.length - 1]! - stopMs * 1000;
const start = end - SECONDS * 1e6;
const thread = Number(process.env.BENCH_PROFILE_THREAD ?? 0);
console.log(`thread ${thread} (profiles: threads ${[...files.keys()].sort((a, b) => a - b).join(', ')})`);
const profile = read(thread);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const name = (n: Node) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;
const times = sampleTimes(profile);
const self = new Map<string, number>();
const byArea = new Map<string, number>();
// Self time by where the code lives: a package, one of our files, node itself, wasm (PGlite), GC.
const area = (n: Node) => {
  const url = n.callFrame.url;
  if (url.startsWith('wasm://')) return 'wasm (PGlite)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const own = /\/dist\/(.*)$/.exec(url);
  if (own) return own[1]!;
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/').slice(0, 2).join('/');
  return n.callFrame.functionName || '(native)';
};
const inclusive = new Map<string, number>();
let total = 0;
let idle = 0;
profile.samples.forEach((id, i) => {
  if (times[i]! < start || times[i]! > end) return;
  const dt = profile.timeDeltas[i] ?? 0;
  const n = byId.get(id)!;
  total += dt;
  if (n.callFrame.functionName === '(idle)') idle += dt;
  self.set(name(n), (self.get(name(n)) ?? 0) + dt);
  byArea.set(area(n), (byArea.get(area(n)) ?? 0) + dt);
  // Inclusive time of our own functions (dist/src): what each of them costs with what it calls.
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const node = byId.get(at)!;
    if (!/\/dist\/(src|workers)\//.test(node.callFrame.url)) continue;
    const k = name(node);
    if (!seen.has(k)) inclusive.set(k, (inclusive.get(k) ?? 0) + dt);
    seen.add(k);
  }
});
const busy = total - idle;
const top = (m: Map<string, number>, n: number) => [...m].filter(([k]) => !k.startsWith('(idle)')).sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${((v / busy) * 100).toFixed(1).padStart(5)}%  ${k}`).join('\n');
console.log(`window ${(total / 1e6).toFixed(2)} s, busy ${(busy / 1e6).toFixed(2)} s (shares below are of busy time)\n\nself time by area:\n${top(byArea, 25)}\n\nself time:\n${top(self, 40)}\n\ninclusive, own functions:\n${top(inclusive, 30)}`);
rmSync(dataDir, { recursive: true, force: true });
rmSync(profDir, { recursive: true, force: true });

// Where the service spends its event-loop time under load: starts it with --cpu-prof, drives one
// target with autocannon, stops it and prints the self time summed per function (top 40).
// Usage: node dist/bench/http/profile.js [liveness|hit|computed|small]
// `small` is a computed compression of a ≤ 100-token text. Also prints, over every thread of the
// service, the µs of CPU per request of each step of the request (bench/http/steps.ts): the profile's
// shares of busy time scaled to the service's CPU per request read from /proc over the measured run.
// BENCH_PROFILE_THREAD=<thread id> reads that worker thread's profile instead (ids are listed; the
// pool's threads are the busy ones under a computed load), over the same measured window.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { packageRoot } from '../../src/lib/root.js';
import { spawnUntil, stop } from '../lib/spawn.js';
import { processCpuUs } from '../mcp/cpu.js';
import { stepOf, type CallFrame } from './steps.js';
import { createKey, targets } from './targets.js';
import { sized } from '../lib/smoke.js';
import { freshDataDir } from '../lib/dataDir.js';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

const SECONDS = Number(process.env.BENCH_SECONDS ?? sized(8, 1));
let stopMs = 0;
let requests = 0;
let cpuPerRequest = 0;
const which = (process.argv[2] ?? 'hit') as keyof ReturnType<typeof targets> | 'small';
// About 60 tokens of prose: the ≤ 100-token compression of issue 49.
const SMALL_TEXT =
  'The service compresses documents before they reach a language model. Each request is authenticated, ' +
  'routed, counted against the plan, and answered with the shorter text and its token counts, so that ' +
  'callers can see how much they saved on every call.';
const root = packageRoot();
const dataDir = freshDataDir('gc-prof-');
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
  const base = `http://127.0.0.1:${service.match[1]}`;
  const target = which === 'small' ? targets(base, keys, SMALL_TEXT).computed : targets(base, keys)[which];
  console.log(`engine: ${/"http_engine":"([^"]+)"/.exec(service.output())?.[1]}, database: ${process.env.DATABASE_URL ? 'postgres' : 'pglite'}`);
  await fetch(target.url as string, { method: target.method ?? 'GET', headers: target.headers as Record<string, string>, body: target.body as string | undefined });
  await autocannon({ ...target, connections: sized(32, 2), duration: sized(2, 1) }); // warm-up
  const cpu0 = processCpuUs(service.child.pid!);
  const result = await autocannon({ ...target, connections: sized(32, 2), duration: SECONDS });
  requests = result.requests.total;
  cpuPerRequest = (processCpuUs(service.child.pid!) - cpu0) / requests;
  console.log(`${which}: ${result.requests.average.toFixed(0)} req/s, non-2xx ${result.non2xx}, service CPU (all threads, /proc) ${cpuPerRequest.toFixed(0)} µs/request`);
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

// Every thread of the service, same window: busy time per step, scaled to µs of CPU per request.
const steps = new Map<string, number>();
const threadBusy: string[] = [];
let allBusy = 0;
for (const tid of [...files.keys()].sort((a, b) => a - b)) {
  const p = read(tid);
  const ids = new Map(p.nodes.map((n) => [n.id, n]));
  const up = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) up.set(c, n.id);
  const t = sampleTimes(p);
  const stackCache = new Map<number, string | null>();
  let busyHere = 0;
  const kinds = new Set<string>();
  p.samples.forEach((id, i) => {
    if (t[i]! < start || t[i]! > end) return;
    let step = stackCache.get(id);
    if (step === undefined) {
      const stack: CallFrame[] = [];
      for (let at: number | undefined = id; at !== undefined; at = up.get(at)) stack.push(ids.get(at)!.callFrame);
      step = stepOf(stack);
      stackCache.set(id, step);
    }
    if (step === null) return;
    const dt = p.timeDeltas[i] ?? 0;
    busyHere += dt;
    kinds.add(step);
    steps.set(step, (steps.get(step) ?? 0) + dt);
  });
  allBusy += busyHere;
  const role = tid === 0 ? 'event loop' : kinds.has('PGlite (wasm)') ? 'PGlite' : kinds.has('compression engine') ? 'pool' : 'other';
  threadBusy.push(`${tid} (${role}) ${(busyHere / requests).toFixed(1)} µs/req`);
}
const scale = cpuPerRequest / (allBusy / requests);
console.log(`\n## steps, all threads: ${which}, ${requests} requests, ${cpuPerRequest.toFixed(0)} µs CPU/request (/proc); profile busy ${(allBusy / requests).toFixed(0)} µs/request, scaled ×${scale.toFixed(2)}`);
console.log(`threads (profile busy): ${threadBusy.join('; ')}\n`);
console.log('| step | µs CPU/request | share |\n|---|---:|---:|');
for (const [k, v] of [...steps].sort((a, b) => b[1] - a[1])) {
  if (v / allBusy < 0.003) continue;
  console.log(`| ${k} | ${((v / allBusy) * cpuPerRequest).toFixed(1)} | ${((v / allBusy) * 100).toFixed(1)}% |`);
}
rmSync(dataDir, { recursive: true, force: true });
rmSync(profDir, { recursive: true, force: true });

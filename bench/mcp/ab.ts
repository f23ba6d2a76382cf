// Two builds side by side: the same MCP and REST calls (pairs.ts) against a baseline build
// (BASELINE_ROOT, a package root holding its own dist/) and this one, alternated call by call, so
// that a busy machine slows both alike. Prints, per pair, the MCP − REST paired median of each build
// and their CPU per call. AB_PAIRS=0,2 picks pairs by index (default: all).
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { packageRoot } from '../../src/lib/root.js';
import { measurePair } from '../lib/latency.js';
import { spawnUntil, stop } from '../lib/spawn.js';
import { measureCpu } from './cpu.js';
import { pairs, type Pair } from './pairs.js';
import { newKey, serviceEnv } from './service.js';
import { SMOKE, sized } from '../lib/smoke.js';
import { freshDataDir } from '../lib/dataDir.js';

const N = Number(process.env.BENCH_N ?? sized(500, 2));
/** Rounds before the measured ones. */
const WARMUP = sized(50, 1);
// Smoke: this build against itself (no second build at hand).
const baselineRoot = process.env.BASELINE_ROOT ?? (SMOKE ? packageRoot() : undefined);
if (!baselineRoot) throw new Error('set BASELINE_ROOT to the package root of the baseline build');

async function start(root: string) {
  const dataDir = freshDataDir('gc-bench-mcp-ab-');
  const proKey = newKey(root, dataDir, 'pro');
  const freeKey = newKey(root, dataDir, 'free');
  const service = await spawnUntil(join(root, 'dist/src/main.js'), serviceEnv(dataDir), /"msg":"listening".*"port":(\d+)/);
  const base = `http://127.0.0.1:${service.match[1]}`;
  const client = new Client({ name: 'bench-mcp-ab', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${proKey}` } } }));
  const close = async () => {
    await client.close();
    await stop(service.child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  // The bench's own root for both: the same pairs (and documents) against either build.
  return { pid: service.child.pid!, pairs: pairs(packageRoot(), base, freeKey, client), close };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]! / 1000;
const overhead = (p: Pair) => async () => {
  const t0 = process.hrtime.bigint();
  await p.rest();
  const t1 = process.hrtime.bigint();
  await p.mcp();
  return Number(process.hrtime.bigint() - t1 - (t1 - t0)) / 1000;
};

const old = await start(baselineRoot);
const now = await start(packageRoot());
const picked = process.env.AB_PAIRS ? process.env.AB_PAIRS.split(',').map(Number) : old.pairs.map((_, i) => i);
try {
  const lines: string[] = [];
  for (const i of picked) {
    const [o, n] = [old.pairs[i]!, now.pairs[i]!];
    // Each round: REST then MCP on one build, then the other build (paired differences per build).
    const diffs = { old: [] as number[], now: [] as number[] };
    for (let r = 0; r < N + WARMUP; r++) {
      const order = r % 2 ? ([['old', o], ['now', n]] as const) : ([['now', n], ['old', o]] as const);
      for (const [name, p] of order) {
        const d = await overhead(p)();
        if (r >= WARMUP) diffs[name].push(d);
      }
    }
    const mcpOnly = await measurePair(o.mcp, n.mcp, N);
    const cpu = await measureCpu([old.pid, now.pid], o.mcp, n.mcp, sized(10, 1), Math.ceil(N / 10));
    const restCpu = await measureCpu([old.pid, now.pid], o.rest, n.rest, sized(10, 1), Math.ceil(N / 10));
    const f = (x: number) => x.toFixed(0);
    lines.push(`| ${o.name} | baseline | ${median(diffs.old).toFixed(3)} | ${mcpOnly.a.p50} | ${f(cpu.a.server)} / ${f(restCpu.a.server)} | ${f(cpu.a.client)} / ${f(restCpu.a.client)} |`);
    lines.push(`| | this build | ${median(diffs.now).toFixed(3)} | ${mcpOnly.b.p50} | ${f(cpu.b.server)} / ${f(restCpu.b.server)} | ${f(cpu.b.client)} / ${f(restCpu.b.client)} |`);
    lines.push(`| | MCP this build − baseline, paired median | ${mcpOnly.diffP50.toFixed(3)} | | | |`);
  }
  console.log(`\nbaseline ${baselineRoot} vs this build (${new Date().toISOString()}; 1-min load average ${loadavg()[0]!.toFixed(1)}; n = ${N})\n`);
  console.log('| work | build | MCP − REST, median of paired differences ms | MCP p50 ms | CPU µs/call, service: MCP / REST | client: MCP / REST |');
  console.log('|---|---|---:|---:|---:|---:|');
  for (const l of lines) console.log(l);
} finally {
  await old.close();
  await now.close();
}

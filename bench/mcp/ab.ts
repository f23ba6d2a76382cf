// Two builds side by side: the same MCP and REST calls against a baseline build (BASELINE_ROOT, a
// package root holding its own dist/) and this one, alternated call by call, so that a busy machine
// slows both alike. Prints the MCP − REST paired median of each build and their CPU per call.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { packageRoot } from '../../src/lib/root.js';
import { measurePair } from '../lib/latency.js';
import { spawnUntil, stop } from '../lib/spawn.js';
import { measureCpu } from './cpu.js';
import { newKey, serviceEnv } from './service.js';

const N = Number(process.env.BENCH_N ?? 500);
const baselineRoot = process.env.BASELINE_ROOT;
if (!baselineRoot) throw new Error('set BASELINE_ROOT to the package root of the baseline build');
const small = 'Estimate the tokens of this short sentence, please.';

async function start(root: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'gc-bench-mcp-ab-'));
  const key = newKey(root, dataDir, 'pro');
  const service = await spawnUntil(join(root, 'dist/src/main.js'), serviceEnv(dataDir), /"msg":"listening".*"port":(\d+)/);
  const base = `http://127.0.0.1:${service.match[1]}`;
  const client = new Client({ name: 'bench-mcp-ab', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  const rest = async () => {
    const res = await fetch(`${base}/v1/recommend`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ document: small }) });
    if (!res.ok) throw new Error(`/v1/recommend -> ${res.status}`);
    await res.arrayBuffer();
  };
  const mcp = async () => {
    const result = await client.callTool({ name: 'estimate_tokens', arguments: { text: small } });
    if (result.isError) throw new Error(JSON.stringify(result.content));
  };
  const close = async () => {
    await client.close();
    await stop(service.child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { pid: service.child.pid!, rest, mcp, close };
}

const old = await start(baselineRoot);
const now = await start(packageRoot());
try {
  // Each round: REST then MCP on one build, then the other build (paired differences per build).
  const overhead = (s: typeof old) => async () => {
    const t0 = process.hrtime.bigint();
    await s.rest();
    const t1 = process.hrtime.bigint();
    await s.mcp();
    return Number(process.hrtime.bigint() - t1 - (t1 - t0)) / 1000;
  };
  const diffs = { old: [] as number[], now: [] as number[] };
  for (let i = 0; i < N + 50; i++) {
    const order = i % 2 ? ([['old', old], ['now', now]] as const) : ([['now', now], ['old', old]] as const);
    for (const [name, s] of order) {
      const d = await overhead(s)();
      if (i >= 50) diffs[name].push(d);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]! / 1000;
  const mcpOnly = await measurePair(old.mcp, now.mcp, N);
  const cpu = await measureCpu([old.pid, now.pid], old.mcp, now.mcp, 10, Math.ceil(N / 10));
  const restCpu = await measureCpu([old.pid, now.pid], old.rest, now.rest, 10, Math.ceil(N / 10));
  console.log(`\nbaseline ${baselineRoot} vs this build (${new Date().toISOString()}; 1-min load average ${loadavg()[0]!.toFixed(1)}; n = ${N})\n`);
  console.log('| build | MCP − REST, median of paired differences ms | MCP p50 ms | CPU µs/call, service: MCP / REST | client: MCP / REST |');
  console.log('|---|---:|---:|---:|---:|');
  const f = (x: number) => x.toFixed(0);
  console.log(`| baseline | ${median(diffs.old).toFixed(3)} | ${mcpOnly.a.p50} | ${f(cpu.a.server)} / ${f(restCpu.a.server)} | ${f(cpu.a.client)} / ${f(restCpu.a.client)} |`);
  console.log(`| this build | ${median(diffs.now).toFixed(3)} | ${mcpOnly.b.p50} | ${f(cpu.b.server)} / ${f(restCpu.b.server)} | ${f(cpu.b.client)} / ${f(restCpu.b.client)} |`);
  console.log(`\nMCP this build − baseline, median of paired differences: ${mcpOnly.diffP50.toFixed(3)} ms`);
} finally {
  await old.close();
  await now.close();
}

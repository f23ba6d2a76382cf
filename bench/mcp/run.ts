// MCP vs REST latency, same server, same run (pairs.ts): a short and a balanced compression over
// MCP (optimize_for_model) vs POST /v1/compress, both writing a usage event, and the older token-count
// pair (estimate_tokens vs POST /v1/recommend), where only MCP writes one. Bar (issue 23): MCP adds
// at most 0.5 ms at the median of paired calls.
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { packageRoot } from '../../src/lib/root.js';
import { measurePair, type LatencySummary } from '../lib/latency.js';
import { spawnUntil, stop } from '../lib/spawn.js';
import { measureCpu, type CpuPerCall } from './cpu.js';
import { pairs } from './pairs.js';
import { newKey, serviceEnv } from './service.js';
import { sized } from '../lib/smoke.js';
import { freshDataDir } from '../lib/dataDir.js';

const N = Number(process.env.BENCH_N ?? sized(300, 2));
const root = packageRoot();
const dataDir = freshDataDir('gc-bench-mcp-');
const proKey = newKey(root, dataDir, 'pro');
const freeKey = newKey(root, dataDir, 'free');
const service = await spawnUntil(join(root, 'dist/src/main.js'), serviceEnv(dataDir), /"msg":"listening".*"port":(\d+)/);
const base = `http://127.0.0.1:${service.match[1]}`;
const client = new Client({ name: 'bench-mcp', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${proKey}` } } }));

try {
  const work = pairs(root, base, freeKey, client);
  const rows: [string, { a: LatencySummary; b: LatencySummary; diffP50: number }, { a: CpuPerCall; b: CpuPerCall }][] = [];
  for (const { name, rest, mcp } of work) {
    // REST and MCP calls alternate, so load from anything else on the machine hits both alike.
    rows.push([name, await measurePair(rest, mcp, N), await measureCpu(service.child.pid!, rest, mcp, sized(10, 1), Math.ceil(N / 10))]);
  }
  const mode = process.env.MCP_SSE_RESPONSES === 'false' ? 'MCP_SSE_RESPONSES=false' : 'default answer format';
  console.log(`\nMCP (session, ${mode}) vs REST, alternating sequential calls, same server and run (${new Date().toISOString()}; 1-min load average ${loadavg()[0]!.toFixed(1)})\n`);
  console.log('| work | REST p50 ms | MCP p50 ms | MCP − REST p50 ms | median of paired differences ms | REST p99 ms | MCP p99 ms | n |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [name, { a: r, b: m, diffP50 }] of rows) {
    console.log(`| ${name} | ${r.p50} | ${m.p50} | ${(m.p50 - r.p50).toFixed(3)} | ${diffP50.toFixed(3)} | ${r.p99} | ${m.p99} | ${r.n} |`);
  }
  console.log('\nCPU time per call, µs (service: all its threads; client: this process), alternating blocks\n');
  console.log('| work | REST service | MCP service | REST client | MCP client | MCP − REST, service + client |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const [name, , { a: r, b: m }] of rows) {
    const f = (x: number) => x.toFixed(0);
    console.log(`| ${name} | ${f(r.server)} | ${f(m.server)} | ${f(r.client)} | ${f(m.client)} | ${f(m.server + m.client - r.server - r.client)} |`);
  }
} finally {
  await client.close();
  await stop(service.child);
  rmSync(dataDir, { recursive: true, force: true });
}

// Where a call's service CPU goes, by thread: the short compression pair (pairs.ts) against one
// service, each side in its own blocks, CPU per thread from /proc/<pid>/task/*/schedstat grouped by
// thread name (main: the event loop; "V8 DefaultWorke": GC and compiler helpers; pool threads...).
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { packageRoot } from '../../src/lib/root.js';
import { spawnUntil, stop } from '../lib/spawn.js';
import { pairs } from './pairs.js';
import { newKey, serviceEnv } from './service.js';
import { sized } from '../lib/smoke.js';
import { freshDataDir } from '../lib/dataDir.js';

const N = Number(process.env.BENCH_N ?? sized(1000, 2));
/** Alternating REST and MCP blocks, N calls of each kind in all. */
const BLOCKS = sized(20, 2);
const PAIR = Number(process.env.THREADS_PAIR ?? 0);
const root = packageRoot();

function threads(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = tid === String(pid) ? 'main' : `${readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()} ${process.env.THREADS_BY_TID ? tid : ''}`.trim();
      const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      out.set(name, (out.get(name) ?? 0) + ns / 1000);
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return out;
}

const dataDir = freshDataDir('gc-bench-mcp-thr-');
const proKey = newKey(root, dataDir, 'pro');
const freeKey = newKey(root, dataDir, 'free');
const service = await spawnUntil(join(root, 'dist/src/main.js'), serviceEnv(dataDir), /"msg":"listening".*"port":(\d+)/, 60_000, process.env.SERVICE_NODE_ARGS?.split(' ') ?? []);
const base = `http://127.0.0.1:${service.match[1]}`;
const client = new Client({ name: 'bench-mcp-threads', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${proKey}` } } }));
const pair = pairs(root, base, freeKey, client)[PAIR]!;
try {
  const sums = { rest: new Map<string, number>(), mcp: new Map<string, number>() };
  for (let i = 0; i < sized(100, 1); i++) await pair.rest(), await pair.mcp();
  for (let block = 0; block < BLOCKS; block++) {
    const kind = block % 2 ? 'mcp' : 'rest';
    const before = threads(service.child.pid!);
    for (let i = 0; i < N / (BLOCKS / 2); i++) await pair[kind]();
    for (const [k, v] of threads(service.child.pid!)) sums[kind].set(k, (sums[kind].get(k) ?? 0) + v - (before.get(k) ?? 0));
  }
  console.log(`\n${pair.name}: service CPU µs per call by thread (n = ${N} each; load ${loadavg()[0]!.toFixed(1)})\n`);
  console.log('| thread | REST | MCP | MCP − REST |\n|---|---:|---:|---:|');
  for (const k of new Set([...sums.rest.keys(), ...sums.mcp.keys()])) {
    const [r, m] = [(sums.rest.get(k) ?? 0) / N, (sums.mcp.get(k) ?? 0) / N];
    if (r > 1 || m > 1) console.log(`| ${k} | ${r.toFixed(0)} | ${m.toFixed(0)} | ${(m - r).toFixed(0)} |`);
  }
} finally {
  await client.close();
  await stop(service.child);
  rmSync(dataDir, { recursive: true, force: true });
}

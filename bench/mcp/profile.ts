// Where MCP's extra time goes: the same number of estimate_tokens calls over MCP and of
// /v1/recommend calls over REST, each against its own service child started with --cpu-prof
// (startup costs the same in both and cancels out), and the SDK client profiled in this process.
// Prints self time per function and per area, MCP minus REST, in µs per call.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { packageRoot } from '../../src/lib/root.js';
import { newKey, serviceEnv } from './service.js';
import { spawnUntil, stop } from '../lib/spawn.js';
import { stepOf, type CallFrame } from '../http/steps.js';
import { sized } from '../lib/smoke.js';
import { freshDataDir } from '../lib/dataDir.js';

const N = Number(process.env.BENCH_N ?? sized(3000, 2));
const TOP = Number(process.env.PROFILE_TOP ?? 25);
const root = packageRoot();
const small = 'Estimate the tokens of this short sentence, please.';
// PROFILE_PAIR=compress: optimize_for_model vs /v1/compress on the same short text (both write a usage
// event); default: estimate_tokens vs /v1/recommend (only MCP writes one).
const pair = process.env.PROFILE_PAIR === 'compress' ? 'compress' : 'tokens';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time (µs) per function key, over every profile in a directory (main thread and workers). */
function selfTimes(profiles: Profile[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of profiles) {
    const byId = new Map(p.nodes.map((n) => [n.id, n]));
    p.samples.forEach((id, i) => {
      const f = byId.get(id)!.callFrame;
      const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*\/dist\//, '')}:${f.lineNumber + 1}`;
      out.set(key, (out.get(key) ?? 0) + (p.timeDeltas[i] ?? 0));
    });
  }
  return out;
}

/** Busy time (µs) per request step (bench/http/steps.ts), over every profile in a directory. */
function stepTimes(profiles: Profile[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of profiles) {
    const byId = new Map(p.nodes.map((n) => [n.id, n]));
    const up = new Map<number, number>();
    for (const n of p.nodes) for (const c of n.children ?? []) up.set(c, n.id);
    const memo = new Map<number, string | null>();
    p.samples.forEach((id, i) => {
      let step = memo.get(id);
      if (step === undefined) {
        const stack: CallFrame[] = [];
        for (let at: number | undefined = id; at !== undefined; at = up.get(at)) stack.push(byId.get(at)!.callFrame);
        memo.set(id, (step = stepOf(stack)));
      }
      if (step !== null) out.set(step, (out.get(step) ?? 0) + (p.timeDeltas[i] ?? 0));
    });
  }
  return out;
}

function stepReport(mcp: Map<string, number>, rest: Map<string, number>): void {
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0) / N;
  console.log(`\n## service steps, profile busy µs per call (all threads, startup included in both; n = ${N})\n`);
  console.log(`| step | MCP | REST | MCP − REST |\n|---|---:|---:|---:|`);
  const keys = [...new Set([...mcp.keys(), ...rest.keys()])].sort((a, b) => (mcp.get(b) ?? 0) - (mcp.get(a) ?? 0));
  for (const k of keys) {
    const m = (mcp.get(k) ?? 0) / N;
    const r = (rest.get(k) ?? 0) / N;
    if (Math.max(m, r) < 2) continue;
    console.log(`| ${k} | ${m.toFixed(1)} | ${r.toFixed(1)} | ${(m - r).toFixed(1)} |`);
  }
  console.log(`| **total** | ${sum(mcp).toFixed(1)} | ${sum(rest).toFixed(1)} | ${(sum(mcp) - sum(rest)).toFixed(1)} |`);
}

function area(key: string): string {
  const rules: [RegExp, string][] = [
    [/@modelcontextprotocol\/sdk\/dist\/esm\/server\//, 'sdk server transport'],
    [/@modelcontextprotocol\/sdk\/dist\/esm\/client\//, 'sdk client transport'],
    [/@modelcontextprotocol\/sdk\/dist\/esm\/shared\//, 'sdk protocol'],
    [/@modelcontextprotocol\/sdk|zod\//, 'sdk schemas (zod)'],
    [/ajv/, 'ajv'],
    [/ src\/mcp\//, 'src/mcp'],
    [/ src\/(http|auth)\//, 'src/http+auth'],
    [/ src\//, 'src other'],
    [/undici|webstreams|internal\/(web|url|fetch)/, 'node fetch/web streams/URL'],
    [/^\(garbage collector\)/, 'gc'],
  ];
  return rules.find(([re]) => re.test(key))?.[1] ?? 'other';
}

function readProfiles(dir: string): Profile[] {
  return readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Profile);
}

function report(title: string, mcp: Map<string, number>, rest: Map<string, number>): void {
  const keys = new Set([...mcp.keys(), ...rest.keys()]);
  const diff = [...keys].map((k) => [k, ((mcp.get(k) ?? 0) - (rest.get(k) ?? 0)) / N] as const).filter(([k]) => !/^\((idle|program)\)/.test(k));
  const areas = new Map<string, number>();
  for (const [k, us] of diff) areas.set(area(k), (areas.get(area(k)) ?? 0) + us);
  console.log(`\n## ${title}: self time, MCP − REST, µs per call (n = ${N})\n`);
  console.log('| area | µs/call |\n|---|---:|');
  for (const [a, us] of [...areas].sort((x, y) => y[1] - x[1])) console.log(`| ${a} | ${us.toFixed(1)} |`);
  console.log('\n| function | µs/call |\n|---|---:|');
  for (const [k, us] of diff.sort((x, y) => y[1] - x[1]).slice(0, TOP)) console.log(`| ${k} | ${us.toFixed(1)} |`);
}

/** Runs `calls` against a fresh profiled service; returns the service's and this process's self times. */
async function profiled(kind: 'mcp' | 'rest'): Promise<{ server: Map<string, number>; client: Map<string, number>; steps: Map<string, number> }> {
  const dataDir = freshDataDir('gc-prof-mcp-');
  const profDir = mkdtempSync(join(tmpdir(), 'gc-prof-out-'));
  // Free bypasses the semantic cache: /v1/compress then runs every time, as optimize_for_model does.
  const key = newKey(root, dataDir, kind === 'rest' && pair === 'compress' ? 'free' : 'pro');
  const service = await spawnUntil(join(root, 'dist/src/main.js'), serviceEnv(dataDir), /"msg":"listening".*"port":(\d+)/, 60_000, ['--cpu-prof', `--cpu-prof-dir=${profDir}`]);
  const base = `http://127.0.0.1:${service.match[1]}`;
  const session = new Session();
  session.connect();
  let client: Client | null = null;
  try {
    let call: () => Promise<unknown>;
    if (kind === 'mcp') {
      client = new Client({ name: 'bench-mcp', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
      call = pair === 'compress'
        ? () => client!.callTool({ name: 'optimize_for_model', arguments: { text: small, fidelity: 'balanced', model: 'gpt-4o' } })
        : () => client!.callTool({ name: 'estimate_tokens', arguments: { text: small } });
    } else {
      call = async () => {
        const [path, body] = pair === 'compress' ? ['/v1/compress', { text: small, fidelity: 'balanced', model: 'gpt-4o' }] : ['/v1/recommend', { document: small }];
        const res = await fetch(base + path, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        await res.arrayBuffer();
      };
    }
    for (let i = 0; i < sized(200, 1); i++) await call();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
    for (let i = 0; i < N; i++) await call();
    const { profile } = await session.post('Profiler.stop');
    await client?.close();
    await stop(service.child);
    const profiles = readProfiles(profDir);
    return { server: selfTimes(profiles), steps: stepTimes(profiles), client: selfTimes([profile as unknown as Profile]) };
  } finally {
    session.disconnect();
    if (service.child.exitCode === null) await stop(service.child);
    rmSync(dataDir, { recursive: true, force: true });
    if (process.env.PROFILE_KEEP) console.log(`${kind} profiles kept in ${profDir}`);
    else rmSync(profDir, { recursive: true, force: true });
  }
}

const rest = await profiled('rest');
const mcp = await profiled('mcp');
report('service (all threads)', mcp.server, rest.server);
report('client (this process)', mcp.client, rest.client);
stepReport(mcp.steps, rest.steps);

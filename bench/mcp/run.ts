// MCP vs REST latency, same server, same run: tools/call estimate_tokens vs POST /v1/recommend
// (both: one token count in the pool), and a balanced compression over MCP (optimize_for_model)
// vs POST /v1/compress. Bar from the issue: MCP adds at most 1 ms at the median.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { packageRoot } from '../../src/lib/root.js';
import { measurePair, type LatencySummary } from '../lib/latency.js';
import { spawnUntil, stop } from '../lib/spawn.js';

const N = Number(process.env.BENCH_N ?? 300);
const root = packageRoot();
const dataDir = mkdtempSync(join(tmpdir(), 'gc-bench-mcp-'));
// Rate limits off for the measurement: the bench is the only client.
const NO_LIMITS = { RATE_LIMIT_FREE: '100000000', RATE_LIMIT_PRO: '100000000', RATE_LIMIT_TEAM: '100000000', RATE_LIMIT_ENTERPRISE: '100000000' };
const env = { DATA_DIR: dataDir, DATABASE_URL: '', ...NO_LIMITS };
const newKey = (plan: string) =>
  JSON.parse(execFileSync(process.execPath, [join(root, 'dist/src/cli/keys.js'), 'create', '--plan', plan], { env: { ...process.env, ...env } }).toString()).key as string;

// Keys first (the CLI opens the embedded database; the server then takes it over).
const proKey = newKey('pro');
const freeKey = newKey('free');
const service = await spawnUntil(join(root, 'dist/src/main.js'), { ...env, PORT: '0', HOST: '127.0.0.1', BOOTSTRAP_OWNER: 'false', POOL_THREADS: '2' }, /"msg":"listening".*"port":(\d+)/);
const base = `http://127.0.0.1:${service.match[1]}`;
const doc = readFileSync(join(root, 'node_modules/typescript/README.md'), 'utf8');
const small = 'Estimate the tokens of this short sentence, please.';

const client = new Client({ name: 'bench-mcp', version: '1.0.0' });
await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${proKey}` } } }));

const rest = (path: string, key: string, body: unknown) => async () => {
  const res = await fetch(base + path, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${path} -> ${res.status}`);
  await res.arrayBuffer();
};
const mcp = (name: string, args: Record<string, unknown>) => async () => {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(JSON.stringify(result.content));
};

try {
  // REST and MCP calls alternate, so load from anything else on the machine hits both alike.
  const rows: [string, { a: LatencySummary; b: LatencySummary; diffP50: number }][] = [];
  rows.push([
    'token count (estimate_tokens vs /v1/recommend)',
    await measurePair(rest('/v1/recommend', freeKey, { document: small }), mcp('estimate_tokens', { text: small }), N),
  ]);
  rows.push([
    `balanced compression, ${doc.length} chars (optimize_for_model vs /v1/compress, uncached)`,
    await measurePair(rest('/v1/compress', freeKey, { text: doc, fidelity: 'balanced', model: 'gpt-4o' }), mcp('optimize_for_model', { text: doc, fidelity: 'balanced', model: 'gpt-4o' }), N),
  ]);
  console.log(`\nMCP (session, JSON responses) vs REST, alternating sequential calls, same server and run (${new Date().toISOString()}; 1-min load average ${loadavg()[0]!.toFixed(1)})\n`);
  console.log('| work | REST p50 ms | MCP p50 ms | MCP − REST p50 ms | median of paired differences ms | REST p99 ms | MCP p99 ms | n |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [name, { a: r, b: m, diffP50 }] of rows) {
    console.log(`| ${name} | ${r.p50} | ${m.p50} | ${(m.p50 - r.p50).toFixed(3)} | ${diffP50.toFixed(3)} | ${r.p99} | ${m.p99} | ${r.n} |`);
  }
} finally {
  await client.close();
  await stop(service.child);
  rmSync(dataDir, { recursive: true, force: true });
}

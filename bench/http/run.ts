// HTTP load benchmark: the service's /health/liveness and /v1/compress next to a bare
// uWebSockets.js hello-world measured in the same run, reported as ratios.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { packageRoot } from '../../src/lib/root.js';
import { spawnUntil, stop } from '../lib/spawn.js';

const DURATION = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);

interface Row {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

async function load(name: string, opts: autocannon.Options): Promise<Row> {
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION, ...opts });
  return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors, non2xx: result.non2xx };
}

const root = packageRoot();
const dataDir = mkdtempSync(join(tmpdir(), 'gc-bench-'));
// A Free key (no semantic cache) measures real compression; an Enterprise key measures cache hits.
const newKey = (plan: string) =>
  JSON.parse(execFileSync(process.execPath, [join(root, 'dist/src/cli/keys.js'), 'create', '--plan', plan], { env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' } }).toString()).key as string;
const freeKey = newKey('free');
const enterpriseKey = newKey('enterprise');
const hello = await spawnUntil(join(root, 'dist/bench/http/hello.js'), { PORT: '0' }, /listening (\d+)/);
const service = await spawnUntil(join(root, 'dist/src/main.js'), { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, DATABASE_URL: '', BOOTSTRAP_OWNER: 'false', RATE_LIMIT_FREE: '100000000', RATE_LIMIT_ENTERPRISE: '100000000' }, /"msg":"listening".*"port":(\d+)/);
const servicePort = Number(service.match[1]);
const helloUrl = `http://127.0.0.1:${hello.match[1]}`;
const serviceUrl = `http://127.0.0.1:${servicePort}`;

const doc = await import('node:fs').then((fs) => fs.readFileSync(join(root, 'node_modules/typescript/README.md'), 'utf8'));
const compressBody = JSON.stringify({ text: doc, fidelity: 'balanced' });
const post = (key: string) => ({ method: 'POST' as const, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: compressBody });

try {
  const rows: Row[] = [];
  rows.push(await load('bare uWS hello (baseline)', { url: helloUrl + '/' }));
  rows.push(await load('GET /health/liveness', { url: serviceUrl + '/health/liveness' }));
  rows.push(await load(`POST /v1/compress (balanced, ${doc.length} chars, Free: computed)`, { url: serviceUrl + '/v1/compress', ...post(freeKey) }));
  rows.push(await load(`POST /v1/compress (same, Enterprise: cache hits)`, { url: serviceUrl + '/v1/compress', ...post(enterpriseKey) }));
  const base = rows[0]!;
  console.log(`\nHTTP load, ${CONNECTIONS} connections x ${DURATION}s each, autocannon in-process, servers in child processes (${new Date().toISOString()})\n`);
  // autocannon reports whole milliseconds, so latency is shown absolute; throughput is the ratio.
  console.log('| target | req/s | req/s vs baseline | p50 ms | p99 ms | errors | non-2xx |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    console.log(`| ${r.name} | ${r.rps.toFixed(0)} | ${(r.rps / base.rps).toFixed(3)} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.non2xx} |`);
  }
} finally {
  await stop(service.child);
  await stop(hello.child);
  rmSync(dataDir, { recursive: true, force: true });
}

// The whole Python standard library through POST /v1/compress-code/structural on a started service
// (2 pool threads), end to end: JSON upload, parsing spread across the pool, graph, rank, render.
// Run: npm run build && node dist/bench/code/http.js   Bar from the issue: under 20 s on this machine.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/lib/root.js';
import { spawnUntil, stop } from '../lib/spawn.js';
import { load, pythonStdlib, walk } from './corpora.js';

const root = packageRoot();
const dataDir = mkdtempSync(join(tmpdir(), 'gc-bench-structural-'));
const env = { DATA_DIR: dataDir, DATABASE_URL: '', RATE_LIMIT_ENTERPRISE: '100000000' };
const key = JSON.parse(execFileSync(process.execPath, [join(root, 'dist/src/cli/keys.js'), 'create', '--plan', 'enterprise'], { env: { ...process.env, ...env } }).toString()).key as string;
const service = await spawnUntil(join(root, 'dist/src/main.js'), { ...env, PORT: '0', HOST: '127.0.0.1', BOOTSTRAP_OWNER: 'false', POOL_THREADS: '2' }, /"msg":"listening".*"port":(\d+)/);
const url = `http://127.0.0.1:${service.match[1]}/v1/compress-code/structural`;

const py = pythonStdlib();
const corpus = load('Python stdlib (full)', py, walk(py, ['.py'], ['site-packages']));
const query = 'parse HTTP response headers and cookies';
const cpuOf = (pid: number): number => {
  const stat = execFileSync('cat', [`/proc/${pid}/stat`]).toString().split(') ')[1]!.split(' ');
  return (Number(stat[11]) + Number(stat[12])) / 100; // utime + stime, clock ticks of 10 ms
};

try {
  // Warm-up: grammar load and JIT in each pool thread, as on a running server.
  const small = JSON.stringify({ files: corpus.files.slice(0, 40), query, token_budget: 2000 });
  await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: small });

  const body = JSON.stringify({ files: corpus.files, query, focus_symbols: ['HTTPConnection.request'], token_budget: 8000 });
  console.log(`Structural over HTTP: ${corpus.files.length} files (${corpus.skipped} skipped), JSON body ${(body.length / 1e6).toFixed(1)} MB, 2 pool threads; load average ${loadavg().map((l) => l.toFixed(1)).join(' / ')}`);
  console.log('| run | wall s | service CPU s | status | units | output tokens | original tokens |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (let run = 1; run <= 3; run++) {
    const cpu0 = cpuOf(service.child.pid!);
    const t0 = performance.now();
    const res = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
    const json = (await res.json()) as { units: number; compressed_tokens: number; original_tokens: number };
    const wall = (performance.now() - t0) / 1000;
    console.log(`| ${run} | ${wall.toFixed(2)} | ${(cpuOf(service.child.pid!) - cpu0).toFixed(1)} | ${res.status} | ${json.units} | ${json.compressed_tokens} | ${json.original_tokens} |`);
  }
} finally {
  await stop(service.child);
  rmSync(dataDir, { recursive: true, force: true });
}

// The whole Python standard library through POST /v1/compress-code/structural on a started service
// (2 pool threads), end to end: JSON upload, parsing spread across the pool, graph, rank, render.
// Run: npm run build && node dist/bench/code/http.js   Bar from the issue: under 20 s on this machine.
// BENCH_BASELINE_ROOT=<another built checkout> alternates each request with that checkout's service
// (same corpus, same minute) and prints the ratios, so a shared machine's load cancels out.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../src/lib/root.js';
import { spawnUntil, stop } from '../lib/spawn.js';
import { load, pythonStdlib, walk } from './corpora.js';
import { sized } from '../lib/smoke.js';
import { freshDataDir } from '../lib/dataDir.js';

interface Service { name: string; url: string; key: string; dataDir: string; child: Awaited<ReturnType<typeof spawnUntil>>['child'] }

/** A started service of the checkout at `root`, with an Enterprise key of its own on a fresh PGlite. */
async function start(name: string, root: string): Promise<Service> {
  const dataDir = freshDataDir('gc-bench-structural-');
  const env = { DATA_DIR: dataDir, DATABASE_URL: '', RATE_LIMIT_ENTERPRISE: '100000000' };
  const key = JSON.parse(execFileSync(process.execPath, [join(root, 'dist/src/cli/keys.js'), 'create', '--plan', 'enterprise'], { env: { ...process.env, ...env } }).toString()).key as string;
  const service = await spawnUntil(join(root, 'dist/src/main.js'), { ...env, PORT: '0', HOST: '127.0.0.1', BOOTSTRAP_OWNER: 'false', POOL_THREADS: '2' }, /"msg":"listening".*"port":(\d+)/);
  return { name, url: `http://127.0.0.1:${service.match[1]}/v1/compress-code/structural`, key, dataDir, child: service.child };
}

const services = [await start('this checkout', packageRoot())];
if (process.env.BENCH_BASELINE_ROOT) services.push(await start(`baseline ${process.env.BENCH_BASELINE_ROOT}`, process.env.BENCH_BASELINE_ROOT));

const py = pythonStdlib();
const corpus = load(sized('Python stdlib (full)', 'Python stdlib (first files)'), py, walk(py, ['.py'], ['site-packages']), sized(Infinity, 20_000));
const query = 'parse HTTP response headers and cookies';
const cpuOf = (pid: number): number => {
  const stat = execFileSync('cat', [`/proc/${pid}/stat`]).toString().split(') ')[1]!.split(' ');
  return (Number(stat[11]) + Number(stat[12])) / 100; // utime + stime, clock ticks of 10 ms
};

const post = (s: Service, body: string) =>
  fetch(s.url, { method: 'POST', headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' }, body });

try {
  // Warm-up: grammar load and JIT in each pool thread, as on a running server.
  const small = JSON.stringify({ files: corpus.files.slice(0, 40), query, token_budget: 2000 });
  for (const s of services) await (await post(s, small)).arrayBuffer();

  const body = JSON.stringify({ files: corpus.files, query, focus_symbols: ['HTTPConnection.request'], token_budget: 8000 });
  console.log(`Structural over HTTP: ${corpus.files.length} files (${corpus.skipped} skipped), JSON body ${(body.length / 1e6).toFixed(1)} MB, 2 pool threads, POOL_THREAD_NICE ${process.env.POOL_THREAD_NICE ?? 'default'}; load average ${loadavg().map((l) => l.toFixed(1)).join(' / ')}`);
  console.log('| run | service | load avg (1 min) | wall s | service CPU s | status | units | output tokens | original tokens |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|');
  const totals = services.map(() => ({ wall: 0, cpu: 0 }));
  for (let run = 1; run <= sized(3, 1); run++) {
    for (const [i, s] of services.entries()) {
      const load = loadavg()[0]!.toFixed(1);
      const cpu0 = cpuOf(s.child.pid!);
      const t0 = performance.now();
      const res = await post(s, body);
      const json = (await res.json()) as { units: number; compressed_tokens: number; original_tokens: number };
      const wall = (performance.now() - t0) / 1000;
      const cpu = cpuOf(s.child.pid!) - cpu0;
      totals[i]!.wall += wall;
      totals[i]!.cpu += cpu;
      console.log(`| ${run} | ${s.name} | ${load} | ${wall.toFixed(2)} | ${cpu.toFixed(1)} | ${res.status} | ${json.units} | ${json.compressed_tokens} | ${json.original_tokens} |`);
    }
  }
  if (services.length > 1) console.log(`\nthis checkout / baseline, summed over the runs: wall ${(totals[0]!.wall / totals[1]!.wall).toFixed(3)}, service CPU ${(totals[0]!.cpu / totals[1]!.cpu).toFixed(3)}`);
} finally {
  for (const s of services) {
    await stop(s.child);
    rmSync(s.dataDir, { recursive: true, force: true });
  }
}

// Every bench entry point runs at its smallest configuration (BENCH_SMOKE=1, bench/lib/smoke.ts) from
// dist/, exits 0 and leaves `git status` as it found it (issue 50): a bench that breaks, or that writes
// into the checkout without --write-docs, fails here instead of in someone's next measurement.
// Benches run one after another on the embedded database; the few that only work on PostgreSQL run on
// the PostgreSQL path instead (and the rest are not run twice).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/lib/root.js';
import { skipReason as scaleSkipReason } from '../scale/cluster.js';

const root = packageRoot();
const ON_POSTGRES = Boolean(process.env.DATABASE_URL);

interface Bench {
  /** Arguments after the script. */
  args?: string[];
  /** Only works on PostgreSQL (takes the server from BENCH_DATABASE_URL / DATABASE_URL). */
  postgres?: true;
  /** Why it is not run yet, or a check that says why it cannot run on this machine (null: it can). */
  skip?: string | (() => Promise<string | null> | string | null);
  /** ms; the default suits a bench that starts one service. */
  timeout?: number;
}

const python = () => (spawnSync('python3', ['--version']).status === 0 ? null : 'needs python3 (its standard library is the corpus)');

/** Every entry point under bench/, with how its smoke run is made. */
const BENCHES: Record<string, Bench> = {
  'bench/batch/run.ts': {},
  'bench/batchqueue/run.ts': {},
  'bench/code/http.ts': { skip: python },
  'bench/code/run.ts': { skip: python, timeout: 120_000 },
  'bench/codeintel/incremental.ts': { skip: python },
  'bench/codeintel/oracle.ts': {},
  'bench/codeintel/run.ts': { skip: python },
  'bench/codeintel/scan.ts': { skip: python },
  'bench/codeintel/search.ts': { skip: python },
  'bench/detect/run.ts': {},
  'bench/docslookup/run.ts': {},
  'bench/embeddings/run.ts': {},
  'bench/embeddings/tune.ts': {},
  'bench/engine/run.ts': {},
  'bench/hostile/run.ts': {},
  'bench/http/ab.ts': {}, // smoke: this checkout against itself
  'bench/http/profile.ts': {},
  'bench/http/run.ts': {},
  'bench/http/threads.ts': {},
  'bench/kb/run.ts': { postgres: true }, // its recall step reads the persisted embeddings from PostgreSQL
  'bench/markers/code.ts': { skip: python },
  'bench/markers/run.ts': {},
  'bench/mcp/ab.ts': {}, // smoke: this build against itself
  'bench/mcp/profile.ts': {},
  'bench/mcp/run.ts': {},
  'bench/mcp/threads.ts': {},
  'bench/mcp/transport.ts': {},
  'bench/memory/run.ts': { postgres: true }, // PostgreSQL at 1, 2 and 4 pool threads against PGlite
  'bench/overload/run.ts': {},
  'bench/quality/actionable.ts': {},
  'bench/quality/chosenOracle.ts': {},
  'bench/quality/clauses.ts': {},
  'bench/quality/oracle.ts': {},
  'bench/quality/properties.ts': { args: ['--sample', '1'] },
  'bench/quality/run.ts': {},
  'bench/scale/run.ts': { postgres: true, skip: scaleSkipReason }, // instances behind HAProxy on PostgreSQL and Redis
  'bench/soak/run.ts': {},
};

// ---- entry points on disk ------------------------------------------------------------------------

function benchFiles(dir = join(root, 'bench')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? benchFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [relative(root, join(dir, e.name))] : [],
  );
}

/** Bench files another bench file imports (a relative specifier) or starts (a dist/bench/… path or a './x.js' worker). */
function usedByOthers(files: string[]): Set<string> {
  const used = new Set<string>();
  for (const f of files) {
    const text = readFileSync(join(root, f), 'utf8');
    for (const [, spec] of text.matchAll(/['"`](\.\.?\/[^'"`\s]+\.js)['"`]/g)) used.add(relative(root, resolve(root, dirname(f), spec!)).replace(/\.js$/, '.ts'));
    for (const [, path] of text.matchAll(/['"`](?:[^'"`\s]*\/)?dist\/(bench\/[^'"`\s]+)\.js['"`]/g)) used.add(`${path}.ts`);
  }
  return used;
}

/** Entry points: bench files no other bench file uses (libraries, spawned servers and workers are used). */
function benchEntryPoints(): string[] {
  const files = benchFiles();
  const used = usedByOthers(files);
  return files.filter((f) => !used.has(f)).sort();
}

// ---- running one --------------------------------------------------------------------------------

const gitStatus = () => spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: root, encoding: 'utf8' }).stdout;

/** A migrated embedded database the benches copy (bench/lib/dataDir.ts) instead of each paying initdb. */
let template: string | null = null;

/** The bench's environment: smoke size, and a database only where it needs PostgreSQL (else PGlite, from the template). */
function benchEnv(bench: Bench): NodeJS.ProcessEnv {
  const { DATABASE_URL: admin, BENCH_DATABASE_URL: _b, BENCH_DATA_TEMPLATE: _t, ...env } = process.env;
  if (bench.postgres && admin) return { ...env, BENCH_SMOKE: '1', DATABASE_URL: admin, BENCH_DATABASE_URL: admin };
  return { ...env, BENCH_SMOKE: '1', ...(template ? { BENCH_DATA_TEMPLATE: template } : {}) };
}

/** Runs `script` in its own process group (its services die with it on a timeout). */
function run(script: string, bench: Bench, timeoutMs: number): Promise<{ code: number | null; output: string; ms: number }> {
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [script, ...(bench.args ?? [])], { cwd: root, env: benchEnv(bench), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const timer = setTimeout(() => {
      output += `\n(killed after ${timeoutMs} ms)`;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, timeoutMs);
    child.on('error', fail);
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ code, output, ms: performance.now() - t0 });
    });
  });
}

const tail = (s: string) => s.split('\n').slice(-40).join('\n');

describe('every bench runs at its smallest configuration and leaves the checkout unchanged', () => {
  it('the list of benches is the list of entry points on disk', () => {
    expect(Object.keys(BENCHES).sort(), 'a new bench: add it to BENCHES with its smoke configuration (and give it one with bench/lib/smoke.ts)').toEqual(benchEntryPoints());
  });

  beforeAll(() => {
    if (ON_POSTGRES || !existsSync(join(root, 'dist/src/cli/keys.js'))) return;
    // Any CLI command opens the folder's database and migrates it; listing an unknown user's keys changes nothing else.
    const dir = mkdtempSync(join(tmpdir(), 'gc-bench-template-'));
    const { DATABASE_URL: _d, ...env } = process.env;
    const r = spawnSync(process.execPath, [join(root, 'dist/src/cli/keys.js'), 'list', '--user', '00000000-0000-0000-0000-000000000000'], { env: { ...env, DATA_DIR: dir }, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`template database: ${r.stderr}`);
    template = dir;
  }, 120_000);
  afterAll(() => {
    if (template) rmSync(template, { recursive: true, force: true });
  });

  const dist = (file: string) => join(root, 'dist', file.replace(/\.ts$/, '.js'));
  for (const [file, bench] of Object.entries(BENCHES)) {
    // BENCH_SMOKE_TIMEOUT_MS: one timeout for all, on a machine much slower (or busier) than CI.
    const timeout = Number(process.env.BENCH_SMOKE_TIMEOUT_MS) || (bench.timeout ?? 90_000);
    it(file, async (ctx) => {
      const reason = typeof bench.skip === 'function' ? await bench.skip() : (bench.skip ?? null);
      const path = bench.postgres ? (ON_POSTGRES ? null : 'needs PostgreSQL: runs on the PostgreSQL path') : ON_POSTGRES ? 'runs on the PGlite path' : null;
      if (reason ?? path) {
        console.log(`bench smoke: ${file} skipped: ${reason ?? path}`);
        return ctx.skip();
      }
      expect(existsSync(dist(file)), `${dist(file)}: run npm run build`).toBe(true);
      const before = gitStatus();
      const r = await run(dist(file), bench, timeout);
      console.log(`bench smoke: ${file} ${(r.ms / 1000).toFixed(1)} s`);
      expect(r.code, `${file} exited with ${r.code}:\n${tail(r.output)}`).toBe(0);
      expect(gitStatus(), `${file} changed the checkout`).toBe(before);
    }, timeout + 10_000);
  }
});

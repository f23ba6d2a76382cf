// The CLI's database commands (`gc keys …` without GC_URL, `npm run keys`) while a real server process
// (`node dist/src/main.js`, as `npm start` runs it) serves the same database. On an embedded PGlite
// folder they refuse, naming the server and how to go through its API (issue 45: a key created beside
// the server was printed but never worked); through the API the key works; once the server is gone,
// also after kill -9, the local command runs and the next server accepts its key. A second server on
// the same folder refuses to start. On PostgreSQL both may write: the key works at once.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnUntil, stop } from '../../bench/lib/spawn.js';
import { packageRoot } from '../../src/lib/root.js';
import { LOCK_FILE } from '../../src/store/dataDirLock.js';
import { runNode, type Run } from '../helpers/runNode.js';
import { DB_KIND, freshDatabase } from '../helpers/server.js';

const root = packageRoot();
const MAIN = join(root, 'dist/src/main.js');
const GC = join(root, 'dist/src/cli/gc.js');
const KEYS = join(root, 'dist/src/cli/keys.js');


/** The service's environment for one database; no GC_URL/GC_KEY unless given. */
function baseEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { GC_URL: _u, GC_KEY: _k, DATABASE_URL: _d, DATA_DIR: _p, HOST: _h, ...base } = process.env;
  return { ...base, POOL_THREADS: '1', ...extra };
}

function run(script: string, args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return runNode(script, args, env);
}

const keyStatus = async (port: number, key: string) => (await fetch(`http://127.0.0.1:${port}/v1/keys`, { headers: { authorization: `Bearer ${key}` } })).status;

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c().catch(() => undefined);
});

async function store(): Promise<Record<string, string>> {
  const db = await freshDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'gc-cli-lock-'));
  cleanup.push(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await db.drop();
  });
  return db.databaseUrl ? { DATABASE_URL: db.databaseUrl, DATA_DIR: dataDir } : { DATA_DIR: dataDir };
}

async function server(env: NodeJS.ProcessEnv, ready: RegExp) {
  const proc = await spawnUntil(MAIN, { ...env, PORT: '0' }, ready);
  cleanup.push(async () => {
    if (proc.child.exitCode === null && proc.child.signalCode === null) await stop(proc.child);
  });
  return { ...proc, port: Number(/"msg":"listening".*?"port":(\d+)/.exec(proc.output())![1]) };
}

describe.runIf(DB_KIND === 'pglite')('CLI key commands beside a running server on one PGlite folder', () => {
  it('refuse naming the server and its port; through its API the key works; after kill -9 the local command runs and its key works', async () => {
    const env = baseEnv(await store());
    const first = await server(env, /(gc_[0-9a-f]{32})/);
    const ownerKey = first.match[1]!;
    const pid = first.child.pid!;

    // gc keys create (local mode) and npm run keys: refused, nothing printed on stdout, exit 4 (unavailable).
    const gcLocal = await run(GC, ['keys', 'create', '--plan', 'pro', '--name', 'ci'], env);
    expect(gcLocal.code, gcLocal.stderr).toBe(4);
    expect(gcLocal.stdout).toBe('');
    expect(gcLocal.stderr).toContain(`the server (pid ${pid}, port ${first.port}`);
    expect(gcLocal.stderr).toContain(`GC_URL=http://localhost:${first.port}`);
    const npmKeys = await run(KEYS, ['create', '--plan', 'pro'], env);
    expect(npmKeys.code).toBe(4);
    expect(npmKeys.stdout).toBe('');
    expect(npmKeys.stderr).toContain(`pid ${pid}`);
    expect(npmKeys.stderr).not.toContain('usage:');
    const list = await run(GC, ['keys', 'list', '--user', '00000000-0000-4000-8000-000000000000'], env);
    expect(list.code).toBe(4);

    // A second `npm start` on the same folder: refused before opening anything, naming the first.
    const second = await run(MAIN, [], { ...env, PORT: '0' });
    expect(second.code).toBe(1);
    expect(second.stdout + second.stderr).toContain(`pid ${pid}, port ${first.port}`);
    expect(second.stdout + second.stderr).not.toContain('"msg":"listening"');

    // The way the message gives: through the server's API, the key is usable at once.
    const viaApi = await run(GC, ['--json', 'keys', 'create', '--name', 'ci'], { ...env, GC_URL: `http://localhost:${first.port}`, GC_KEY: ownerKey });
    expect(viaApi.code, viaApi.stderr).toBe(0);
    const apiKey = JSON.parse(viaApi.stdout).key as string;
    expect(apiKey).toMatch(/^gc_[0-9a-f]{32}$/);
    expect(await keyStatus(first.port, apiKey)).toBe(200);

    // kill -9: the lock stays behind, stale; the CLI takes it over, writes, and releases it.
    const gone = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await gone;
    expect(existsSync(join(env.DATA_DIR!, LOCK_FILE))).toBe(true);
    const local = await run(GC, ['--json', 'keys', 'create', '--plan', 'pro', '--name', 'ci'], env);
    expect(local.code, local.stderr).toBe(0);
    const localKey = JSON.parse(local.stdout).key as string;
    expect(existsSync(join(env.DATA_DIR!, LOCK_FILE))).toBe(false);

    // The next server serves both keys; a clean stop removes its lock.
    const next = await server(env, /"msg":"listening"/);
    expect(await keyStatus(next.port, localKey)).toBe(200);
    expect(await keyStatus(next.port, apiKey)).toBe(200);
    await stop(next.child);
    expect(existsSync(join(env.DATA_DIR!, LOCK_FILE))).toBe(false);
  }, 240_000);
});

describe.runIf(DB_KIND === 'postgres')('CLI key commands beside a running server on PostgreSQL', () => {
  it('write beside the server (no folder lock): the key works at once', async () => {
    const env = baseEnv(await store());
    const running = await server(env, /(gc_[0-9a-f]{32})/);
    const local = await run(GC, ['--json', 'keys', 'create', '--plan', 'pro', '--name', 'ci'], env);
    expect(local.code, local.stderr).toBe(0);
    expect(await keyStatus(running.port, JSON.parse(local.stdout).key)).toBe(200);
    expect(existsSync(join(env.DATA_DIR!, LOCK_FILE))).toBe(false);
  }, 120_000);
});

// The `gc` command line (issue 24) as a terminal program: run in a pseudo-terminal (tmux) and read from
// the screen; piped, with clean JSON on stdout; its exit codes; local mode (engines in-process, no
// server, no database) and server mode (GC_URL, GC_KEY) against a real server.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliEnv, runNode, type Run } from '../helpers/runNode.js';
import { freshDatabase, startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/waitFor.js';

const GC = join(process.cwd(), 'dist/src/cli/gc.js');
const DOCS = join(process.cwd(), 'docs');


/** Runs gc with pipes (not a terminal); the environment has no GC_URL/GC_KEY unless given. */
function gc(args: string[], env: Record<string, string> = {}, input?: string): Promise<Run> {
  return runNode(GC, args, cliEnv(env), input ?? '');
}

let work: string;
let folder: string;
let fileCount = 0;
let server: TestServer;
let serverEnv: Record<string, string>;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'gc-cli-'));
  // A folder of 60 text documents (more than one 50-document batch), in two levels, plus a binary file.
  folder = join(work, 'corpus');
  mkdirSync(join(folder, 'nested'), { recursive: true });
  const docs = readdirSync(DOCS).filter((f) => f.endsWith('.md')).sort();
  for (let i = 0; fileCount < 60; i++) {
    const name = docs[i % docs.length]!;
    const text = readFileSync(join(DOCS, name), 'utf8');
    writeFileSync(join(folder, i % 2 ? 'nested' : '', `${String(i).padStart(2, '0')}-${name}`), text);
    fileCount++;
  }
  writeFileSync(join(folder, 'image.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]));
  server = await startTestServer();
  serverEnv = { GC_URL: server.url, GC_KEY: server.ownerKey };
}, 60_000);

afterAll(async () => {
  await server?.close();
});

describe('gc piped: clean JSON on stdout, nothing on stderr', () => {
  it('local: a folder gives one JSON document with a row per text file and the totals', async () => {
    const run = await gc(['--json', 'compress', folder, '-f', 'outline']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe(''); // no progress bar when stderr is not a terminal
    const out = JSON.parse(run.stdout);
    expect(out.mode).toBe('local');
    expect(out.results).toHaveLength(fileCount); // the binary file is left out
    expect(out.results.every((r: any) => r.error === null && r.compressed_tokens < r.original_tokens)).toBe(true);
    expect(out.summary.files).toBe(fileCount);
    expect(out.summary.tokens_saved).toBe(out.results.reduce((n: number, r: any) => n + r.tokens_saved, 0));
    expect(out.summary.savings_percent).toBeGreaterThan(50);
  }, 60_000);

  it('local: stdin (-) and a file compress in-process; text mode prints only the compressed text', async () => {
    const text = readFileSync(join(DOCS, 'architecture.md'), 'utf8');
    const json = await gc(['compress', '-', '--json', '-q', 'worker pool'], {}, text);
    expect(json.code).toBe(0);
    const r = JSON.parse(json.stdout);
    expect(r).toMatchObject({ file: '-', mode: 'query-guided', fidelity: 'balanced' });
    expect(r.compressed_tokens).toBeLessThan(r.original_tokens);
    const plain = await gc(['compress', join(DOCS, 'architecture.md')]);
    expect(plain.code).toBe(0);
    expect(plain.stderr).toBe('');
    expect(plain.stdout.length).toBeLessThan(text.length);
    expect(() => JSON.parse(plain.stdout)).toThrow();
  }, 30_000);

  it('a reader that stops early (| head) on a large output (gc code src, 800 kB) ends gc quietly: no EPIPE trace', () => {
    const run = spawnSync('sh', ['-c', `${JSON.stringify(process.execPath)} ${JSON.stringify(GC)} code ${JSON.stringify(join(process.cwd(), 'src'))} --json | head -c 20`], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(run.status).toBe(0);
    expect(run.stdout).toHaveLength(20);
    expect(run.stderr).toBe('');
  }, 30_000);

  it('local: gc code ranks a repository within a budget, and gives a file its skeleton', async () => {
    const repo = await gc(['code', join(process.cwd(), 'src/cli'), '--budget', '600', '--json', '-q', 'progress bar']);
    expect(repo.code).toBe(0);
    expect(repo.stderr).toBe('');
    const r = JSON.parse(repo.stdout);
    expect(r.files).toBeGreaterThan(3);
    expect(r.token_budget).toBe(600);
    expect(r.compressed_tokens).toBeLessThanOrEqual(600);
    expect(r.output).toContain('compress');
    const file = await gc(['code', join(process.cwd(), 'src/cli/gc/common.ts'), '--json']);
    expect(file.code).toBe(0);
    expect(JSON.parse(file.stdout)).toMatchObject({ language: 'typescript' });
  }, 60_000);

  it('server: a folder goes in 50-document batches; usage and keys answer JSON', async () => {
    const run = await gc(['--json', 'compress', folder], serverEnv);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    const out = JSON.parse(run.stdout);
    expect(out.mode).toBe('server');
    expect(out.results).toHaveLength(fileCount);
    expect(out.results.map((r: any) => r.file)).toContain(join('nested', '01-' + readdirSync(DOCS).filter((f) => f.endsWith('.md')).sort()[1]));
    // The server's figures are the local engine's (same engine, same tokenizer) within 1%: the server's
    // markers carry names and an expand id (docs/markers.md), which the selection prices.
    const local = JSON.parse((await gc(['--json', 'compress', folder])).stdout);
    expect(Math.abs(out.summary.tokens_saved - local.summary.tokens_saved)).toBeLessThan(local.summary.tokens_saved * 0.01);

    const usage = await gc(['usage', '--json'], serverEnv);
    expect(usage.code).toBe(0);
    expect(JSON.parse(usage.stdout).monthly_compressions).toBeGreaterThanOrEqual(fileCount);

    const created = await gc(['keys', 'create', '--name', 'cli-test', '--json'], serverEnv);
    expect(created.code, created.stderr).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key.key).toMatch(/^gc_[0-9a-f]{32}$/);
    const list = JSON.parse((await gc(['keys', 'list', '--json'], serverEnv)).stdout);
    expect(list.keys.map((k: any) => k.key_id)).toContain(key.key_id);
    const revoked = await gc(['keys', 'revoke', key.key_id, '--json'], serverEnv);
    expect(revoked.code).toBe(0);
    expect(JSON.parse(revoked.stdout).status).toBe('revoked');
    // The revoked key no longer works: an authentication failure (exit 3).
    const denied = await gc(['usage'], { GC_URL: server.url, GC_KEY: key.key });
    expect(denied.code).toBe(3);
  }, 90_000);
});

describe('gc keys locally: the operator commands on the database (was npm run keys)', () => {
  it('creates a user with a key, lists and revokes it; the old entry point still works', async () => {
    const database = await freshDatabase(); // PostgreSQL when DATABASE_URL is set, else PGlite in a folder
    const env: Record<string, string> = database.databaseUrl ? { DATABASE_URL: database.databaseUrl } : { DATA_DIR: join(work, 'pglite') };
    try {
      const created = await gc(['keys', 'create', '--plan', 'pro', '--name', 'ops', '--json'], env);
      expect(created.code, created.stderr).toBe(0);
      const c = JSON.parse(created.stdout);
      expect(c).toMatchObject({ plan: 'pro', key: expect.stringMatching(/^gc_[0-9a-f]{32}$/) });
      const list = await gc(['keys', 'list', '--user', c.user_id, '--json'], env);
      expect(JSON.parse(list.stdout).map((k: any) => k.key_id)).toEqual([c.key_id]);
      const table = await gc(['keys', 'list', '--user', c.user_id], env);
      expect(table.stdout).toMatch(new RegExp(`^${c.key_id}\\s+ops\\s+pro\\s+active`, 'm'));
      const revoked = await gc(['keys', 'revoke', c.key_id, '--user', c.user_id, '--json'], env);
      expect(JSON.parse(revoked.stdout)).toEqual({ key_id: c.key_id, outcome: 'revoked' });
      expect((await gc(['keys', 'list', '--json'], env)).code).toBe(2); // --user is required without a server
      const old = spawnSync(process.execPath, [join(process.cwd(), 'dist/src/cli/keys.js'), 'revoke', '--user', c.user_id, '--key', c.key_id], { env: { ...process.env, ...env }, encoding: 'utf8' });
      expect(old.stdout.trim()).toBe('already-revoked');
    } finally {
      await database.drop();
    }
  }, 60_000);
});

describe('gc exit codes', () => {
  it('0 on success and --help, 2 on wrong arguments or input, 3 on bad credentials, 4 when the server is unreachable', async () => {
    expect((await gc(['--help'])).code).toBe(0);
    expect((await gc(['--version'])).code).toBe(0);
    const cases: [string[], Record<string, string>, number, RegExp][] = [
      [['compress', join(work, 'missing.md')], {}, 2, /no such file/],
      [['compress', join(DOCS, 'architecture.md'), '-f', 'tiny'], {}, 2, /valid values: abstract, outline, balanced, detailed, raw/],
      [['frobnicate'], {}, 2, /unknown command/],
      [['compress', '-'], {}, 2, /empty/],
      [['usage'], {}, 2, /set GC_URL/],
      [['bench', 'nope'], {}, 2, /unknown benchmark/],
      [['usage'], { GC_URL: server.url, GC_KEY: 'gc_' + '0'.repeat(32) }, 3, /401/],
      [['usage'], { GC_URL: server.url }, 3, /GC_KEY/],
      [['usage'], { GC_URL: 'http://127.0.0.1:9', GC_KEY: 'gc_x' }, 4, /cannot reach/],
      [['compress', join(DOCS, 'architecture.md'), '-f', 'tiny'], serverEnv, 2, /tiny/],
    ];
    const names: Record<number, string> = { 1: 'failure', 2: 'usage', 3: 'auth', 4: 'unavailable' };
    for (const [args, env, code, message] of cases) {
      const run = await gc(args, env);
      expect(run.code, `semcomp ${args.join(' ')}: ${run.stderr}`).toBe(code);
      expect(run.stderr).toMatch(message);
      expect(run.stderr.trim().split('\n').length, run.stderr).toBeLessThanOrEqual(2); // the error and a hint, not the help
      expect(run.stdout).toBe('');
      // --json: the same exit code, the error as one JSON document on stdout, nothing on stderr.
      const json = await gc(['--json', ...args], env);
      expect(json.code, `semcomp --json ${args.join(' ')}`).toBe(code);
      expect(json.stderr).toBe('');
      const { error } = JSON.parse(json.stdout);
      expect(error.code).toBe(names[code]);
      expect(error.exit_code).toBe(code);
      expect(error.message).toMatch(message);
    }
  }, 60_000);
});

const TMUX = spawnSync('tmux', ['-V']).status === 0;

describe.skipIf(!TMUX)('gc in a terminal (tmux)', () => {
  it('a folder shows a live progress bar, then the table of tokens saved', async () => {
    const socket = `gc-test-${process.pid}`;
    const tmux = (...args: string[]) => spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
    const script = join(work, 'run.sh');
    // The pane stays after gc exits (sleep), with its exit status on the last line.
    writeFileSync(script, `cd ${JSON.stringify(work)}\nGC_URL=${server.url} GC_KEY=${server.ownerKey} ${JSON.stringify(process.execPath)} ${JSON.stringify(GC)} compress corpus\necho "EXIT=$?"\nsleep 60\n`);
    const started = tmux('new-session', '-d', '-s', 'gc', '-x', '120', '-y', '200', `sh ${script}`);
    expect(started.status, started.stderr).toBe(0);
    try {
      let screen = '';
      const counts = new Set<number>(); // the bar's values seen while it ran
      await waitFor(() => `gc to exit:\n${screen}`, () => {
        screen = tmux('capture-pane', '-p', '-t', 'gc').stdout;
        const bar = /compressing \|[█░]+\| (\d+)\/\d+ files/.exec(screen);
        if (bar) counts.add(Number(bar[1]));
        return /EXIT=\d+/.test(screen);
      }, { timeoutMs: 60_000, everyMs: 50 });
      expect(screen).toMatch(/EXIT=0/);
      // Live: the bar was seen before the last file was done, not only in its final state.
      expect([...counts].some((n) => n < fileCount), `bar values seen: ${[...counts].join(', ')}`).toBe(true);
      // The bar's last state stays on the screen: every file done.
      expect(screen).toMatch(new RegExp(`compressing \\|[█░]+\\| ${fileCount}/${fileCount} files \\| [\\d,]+ tokens saved`));
      // Then the table: header, one row per file, the total.
      expect(screen).toMatch(/file\s+original\s+compressed\s+saved\s+saved %/);
      const rows = screen.split('\n').filter((l) => /^(nested\/)?\d\d-\S+\.md\s+[\d,]+\s+[\d,]+\s+[\d,]+\s+[\d.]+%/.test(l));
      expect(rows).toHaveLength(fileCount);
      expect(screen).toMatch(/^total\s+[\d,]+\s+[\d,]+\s+[\d,]+\s+[\d.]+%/m);
    } finally {
      tmux('kill-server');
    }
  }, 90_000);

  it('Ctrl-C during the bar stops with 130, no table, and the cursor visible again', async () => {
    const socket = `gc-test-int-${process.pid}`;
    const tmux = (...args: string[]) => spawnSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
    // Five copies of the corpus (300 files) in local mode: long enough to interrupt.
    const big = join(work, 'big');
    mkdirSync(big, { recursive: true });
    for (let i = 0; i < 5; i++) spawnSync('cp', ['-r', folder, join(big, String(i))]);
    const script = join(work, 'interrupt.sh');
    // The shell traps INT (a handler, so gc still gets the default) to stay and print the exit status.
    writeFileSync(script, `trap 'true' INT\ncd ${JSON.stringify(work)}\n${JSON.stringify(process.execPath)} ${JSON.stringify(GC)} compress big -f outline\necho "EXIT=$?"\nsleep 60\n`);
    expect(tmux('new-session', '-d', '-s', 'gc', '-x', '120', '-y', '40', `sh ${script}`).status).toBe(0);
    try {
      let screen = '';
      const capture = () => (screen = tmux('capture-pane', '-p', '-t', 'gc').stdout);
      await waitFor(() => `the bar past its first file:\n${screen}`, () => /compressing \|.*\| [1-9]\d*\/300 files/.test(capture()), { timeoutMs: 30_000 });
      expect(screen).toMatch(/compressing \|/);
      expect(tmux('display', '-p', '-t', 'gc', '#{cursor_flag}').stdout.trim()).toBe('0'); // the bar hides the cursor
      tmux('send-keys', '-t', 'gc', 'C-c');
      await waitFor(() => `gc to exit after Ctrl-C:\n${screen}`, () => /EXIT=\d+/.test(capture()), { timeoutMs: 30_000 });
      expect(screen).toMatch(/EXIT=130/);
      expect(screen).not.toMatch(/^total\s/m);
      expect(tmux('display', '-p', '-t', 'gc', '#{cursor_flag}').stdout.trim()).toBe('1');
    } finally {
      tmux('kill-server');
    }
  }, 60_000);
});

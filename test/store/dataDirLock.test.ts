// One owner per embedded database folder (src/store/dataDirLock.ts), with real second processes: a
// live holder refuses them by name, a holder killed with SIGKILL or whose pid now belongs to another
// process is taken over, a clean release frees the folder, and racing takeovers have one winner.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/lib/log.js';
import { packageRoot } from '../../src/lib/root.js';
import { acquireDataDirLock, acquireDataDirLockFor, DataDirLockedError, LEASE_MS, LOCK_FILE, processStartTicks, type LockHolder } from '../../src/store/dataDirLock.js';
import { DB_KIND, freshDatabase } from '../helpers/server.js';

const LOCK_MODULE = pathToFileURL(join(packageRoot(), 'dist/src/store/dataDirLock.js')).href;
// A second process: takes the folder's lock and holds it until its stdin closes; prints one JSON line.
const CHILD = `
import { acquireDataDirLock } from ${JSON.stringify(LOCK_MODULE)};
try {
  const lock = await acquireDataDirLock(process.argv[1], 'cli');
  console.log(JSON.stringify({ won: true, pid: process.pid }));
  process.stdin.resume();
  process.stdin.on('end', () => { lock.release(); process.exit(0); });
} catch (err) {
  console.log(JSON.stringify({ won: false, pid: process.pid, message: err.message, holder: err.holder ?? null }));
}`;

type Outcome = { won: boolean; pid: number; message?: string; holder?: LockHolder | null };

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function folder(): string {
  const d = mkdtempSync(join(tmpdir(), 'gc-lock-'));
  dirs.push(d);
  return d;
}

/** Starts a child that tries the lock; resolves with its outcome line (it keeps holding if it won). */
function contender(dir: string): Promise<{ child: ChildProcess; outcome: Outcome }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, dir], { stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve({ child, outcome: JSON.parse(line!) as Outcome });
    });
    child.once('exit', (code) => (out.includes('\n') ? undefined : reject(new Error(`contender exited ${code} without an outcome`))));
  });
}

const exited = (child: ChildProcess) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

describe(`the data folder lock (${DB_KIND})`, () => {
  it('records pid, start time, host, role and port; a second process is refused with a message naming the holder', async () => {
    const dir = folder();
    const lock = await acquireDataDirLock(dir, 'server');
    lock.setPort(8123);
    const recorded = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as LockHolder;
    expect(recorded).toMatchObject({ pid: process.pid, start_ticks: processStartTicks(process.pid), hostname: hostname(), role: 'server', port: 8123 });
    expect(Date.parse(recorded.since)).not.toBeNaN();

    const { outcome } = await contender(dir);
    expect(outcome.won).toBe(false);
    expect(outcome.message).toContain(`pid ${process.pid}`);
    expect(outcome.message).toContain('port 8123');
    expect(outcome.message).toContain(recorded.since);
    // This process too: a second owner in one process is a second owner.
    await expect(acquireDataDirLock(dir, 'cli')).rejects.toBeInstanceOf(DataDirLockedError);

    lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    const after = await contender(dir);
    expect(after.outcome.won).toBe(true);
    after.child.stdin!.end();
    await exited(after.child);
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it('a holder killed with SIGKILL leaves a stale lock that the next process takes over', async () => {
    const dir = folder();
    const holder = await contender(dir);
    expect(holder.outcome.won).toBe(true);
    await expect(acquireDataDirLock(dir, 'server')).rejects.toThrow(`pid ${holder.outcome.pid}`);
    holder.child.kill('SIGKILL');
    await exited(holder.child);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid).toBe(holder.outcome.pid);
    const lock = await acquireDataDirLock(dir, 'server');
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
    lock.release();
  });

  it('a lock whose pid now belongs to another process (another start time) is stale', async () => {
    const dir = folder();
    const other = await contender(folder()); // a live process that never held this folder
    const reused: LockHolder = { pid: other.outcome.pid, start_ticks: '1', hostname: hostname(), role: 'server', port: 8080, since: '2026-01-01T00:00:00.000Z' };
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify(reused));
    const lock = await acquireDataDirLock(dir, 'cli');
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid, role: 'cli' });
    lock.release();
    // The same pid with its real start time is a live holder.
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ ...reused, start_ticks: processStartTicks(other.outcome.pid) }));
    await expect(acquireDataDirLock(dir, 'cli')).rejects.toThrow(`pid ${other.outcome.pid}`);
  });

  it('a lock from another host: refused while its heartbeat is fresh, taken over once it is older than the lease', async () => {
    const dir = folder();
    const path = join(dir, LOCK_FILE);
    writeFileSync(path, JSON.stringify({ pid: 4242, start_ticks: '7', hostname: 'elsewhere.example', role: 'server', port: 8080, since: '2026-01-01T00:00:00.000Z' }));
    const err = await acquireDataDirLock(dir, 'server').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataDirLockedError);
    expect((err as Error).message).toContain('pid 4242 on host elsewhere.example');
    expect((err as Error).message).toContain(`remove ${path}`);
    // Its holder stopped touching it (a container killed, then recreated under a new host name).
    const lastBeat = new Date(Date.now() - LEASE_MS - 1000);
    utimesSync(path, lastBeat, lastBeat);
    const lock = await acquireDataDirLock(dir, 'server');
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ pid: process.pid, hostname: hostname() });
    // Our own heartbeat keeps the lock fresh for other hosts.
    utimesSync(path, lastBeat, lastBeat);
    lock.beat();
    expect(Date.now() - statSync(path).mtimeMs).toBeLessThan(LEASE_MS);
    lock.release();
  });

  it('an unreadable lock file is never taken as stale: refused, naming the file to remove', async () => {
    const dir = folder();
    writeFileSync(join(dir, LOCK_FILE), 'not json');
    await expect(acquireDataDirLock(dir, 'cli')).rejects.toThrow(`remove ${join(dir, LOCK_FILE)} if no server or gc command uses this folder`);
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8')).toBe('not json');
  });

  it('four processes racing for one stale lock: exactly one takes it over', async () => {
    const dir = folder();
    const dead = await contender(dir);
    dead.child.kill('SIGKILL');
    await exited(dead.child);
    const outcomes = (await Promise.all([1, 2, 3, 4].map(() => contender(dir)))).map((c) => c.outcome);
    const winners = outcomes.filter((o) => o.won);
    expect(winners).toHaveLength(1);
    for (const o of outcomes.filter((o) => !o.won)) expect(o.holder?.pid).toBe(winners[0]!.pid);
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid).toBe(winners[0]!.pid);
  });

  it('applies to an on-disk PGlite only: not to memory:// nor to PostgreSQL', async () => {
    expect(await acquireDataDirLockFor({ databaseUrl: null, dataDir: 'memory://' }, 'server')).toBeNull();
    const dir = folder();
    expect(await acquireDataDirLockFor({ databaseUrl: 'postgres://root@127.0.0.1:5432/test', dataDir: dir }, 'server')).toBeNull();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it('startApp takes the lock before opening the database and releases it after closing; a second start is refused', async () => {
    const database = await freshDatabase();
    const dir = folder();
    const onDisk = !database.databaseUrl;
    const config = loadConfig({}, { host: '127.0.0.1', port: 0, poolThreads: 1, bootstrapOwner: false, databaseUrl: database.databaseUrl, dataDir: dir, shutdownGraceMs: 2000 });
    const app = await startApp(config, createLogger(false));
    try {
      if (onDisk) {
        expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8'))).toMatchObject({ pid: process.pid, role: 'server', port: app.port });
        await expect(startApp(config, createLogger(false))).rejects.toThrow(`port ${app.port}`);
      } else {
        expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
      }
    } finally {
      await app.close();
      await database.drop();
    }
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    if (onDisk) {
      // Free again: another process takes it.
      const next = await contender(dir);
      expect(next.outcome.won).toBe(true);
    }
  }, 120_000);
});

// A PostgreSQL and a Redis started by the test itself, so a test can stop and restart them without
// touching the shared servers other tests use. PostgreSQL refuses to run as root: as root, its
// commands run as the `postgres` system user.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function postgresBin(): string | null {
  try {
    return execFileSync('pg_config', ['--bindir']).toString().trim();
  } catch {
    return null;
  }
}

/** Whether this machine can start its own PostgreSQL and Redis (the CI machine can). */
export function canStartOwnServices(): boolean {
  const bin = postgresBin();
  if (!bin || !existsSync(join(bin, 'initdb'))) return false;
  try {
    execFileSync('redis-server', ['--version']);
    return true;
  } catch {
    return false;
  }
}

const asRoot = userInfo().uid === 0;
function command(bin: string, args: string[]): [string, string[]] {
  return asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
}

function waitForExit(child: ChildProcess): Promise<void> {
  return child.exitCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', () => r()));
}

export interface OwnPostgres {
  url: string;
  /** Stops the server at once, as a crash would (immediate shutdown: clients see their connections cut). */
  stop(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = postgresBin()!;
  const dir = mkdtempSync(join(tmpdir(), 'gc-own-pg-'));
  if (asRoot) execFileSync('chown', ['-R', 'postgres', dir]);
  const [init, initArgs] = command(join(bin, 'initdb'), ['-D', join(dir, 'data'), '-A', 'trust', '-U', 'gc', '--no-sync']);
  execFileSync(init, initArgs, { stdio: 'ignore' });
  const port = await freePort();
  const data = join(dir, 'data');
  const pgCtl = (args: string[]) => {
    const [cmd, argv] = command(join(bin, 'pg_ctl'), ['-D', data, ...args]);
    execFileSync(cmd, argv, { stdio: 'ignore', timeout: 60_000 });
  };
  let running = false;
  const start = async () => {
    pgCtl(['start', '-w', '-l', join(dir, 'log'), '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`]);
    running = true;
  };
  // Immediate shutdown: every server process exits at once and clients see their connections cut, as in a crash.
  const stop = async () => {
    if (!running) return;
    running = false;
    pgCtl(['stop', '-w', '-m', 'immediate']);
  };
  await start();
  return {
    url: `postgres://gc@127.0.0.1:${port}/postgres`,
    start,
    stop,
    async destroy() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface OwnRedis {
  url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let log = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`own Redis did not start:\n${log}`)), 15_000);
      child!.stdout!.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        if (/Ready to accept connections/i.test(log)) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
  };
  const stop = async () => {
    if (!child) return;
    const c: ChildProcess = child;
    child = null;
    const exited = waitForExit(c);
    c.kill('SIGKILL');
    await exited;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, start, stop };
}

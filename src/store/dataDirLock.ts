// One owner per embedded database folder. PGlite is a single-process database: two processes on one
// DATA_DIR each keep their own copy of the pages in memory and overwrite each other's writes (a key
// created by the CLI beside a running server was lost). So the server and the CLI take a lock file in
// the folder before opening the database, hold it for their life and remove it after closing.
//
// The lock is created atomically (a fully written temporary file hard-linked to the lock's name: link
// fails if the name exists), so a reader never sees a half-written holder. A lock whose process is
// gone (pid absent, or reused by a process with another start time) is stale and taken over. A lock
// from another host name (a container recreated after a crash gets a new one) cannot be checked that
// way: its holder touches the file every HEARTBEAT_MS, and one untouched for LEASE_MS is stale.
import { hostname } from 'node:os';
import { linkSync, mkdirSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { nowIso } from '../lib/time.js';

export const LOCK_FILE = 'gc-owner.lock';
/** How often a holder touches its lock file (mtime), and how long an untouched one from another host lasts. */
export const HEARTBEAT_MS = 10_000;
export const LEASE_MS = 60_000;

export type LockRole = 'server' | 'cli';

/** What the lock file records about its holder. */
export interface LockHolder {
  pid: number;
  /** The process's start time in clock ticks since boot (/proc/<pid>/stat field 22); null where /proc is absent. */
  start_ticks: string | null;
  hostname: string;
  role: LockRole;
  /** The server's HTTP port once it listens (the CLI's message points there). */
  port: number | null;
  /** When the lock was taken (ISO 8601). */
  since: string;
}

/** The folder is held by another live process (or by one on another host, which cannot be checked). */
export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
    readonly lockPath: string,
  ) {
    const advice =
      holder.pid <= 0
        ? ` (remove ${lockPath} if no server or gc command uses this folder)`
        : holder.hostname !== hostname()
          ? ` (if that process is gone, its lock is taken over ${LEASE_MS / 1000} s after its last heartbeat, or remove ${lockPath})`
          : '';
    super(`${dataDir} is in use by ${describeHolder(holder)}: one process at a time may open an embedded database folder${advice}`);
    this.name = 'DataDirLockedError';
  }
}

export function describeHolder(h: LockHolder): string {
  if (h.pid <= 0) return 'an unknown process (its lock file is unreadable)';
  const port = h.port ? `, port ${h.port}` : '';
  const host = h.hostname === hostname() ? '' : ` on host ${h.hostname}`;
  return `the ${h.role === 'server' ? 'server' : 'gc command line'} (pid ${h.pid}${host}${port}, since ${h.since})`;
}

export interface DataDirLock {
  readonly path: string;
  readonly holder: LockHolder;
  /** Records the listening port (rewritten atomically; the lock stays held throughout). */
  setPort(port: number): void;
  /** Touches the lock file (done every HEARTBEAT_MS): another host judges the lock by this. */
  beat(): void;
  /** Removes the lock if it is still ours. Idempotent. */
  release(): void;
}

/** Start time of a process in clock ticks since boot, or null (no such process, or no /proc). */
export function processStartTicks(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces or ')': fields after the last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function hasProc(): boolean {
  return processStartTicks(process.pid) !== null;
}

/** Whether the process a lock names is still the one that took it (same host only). */
function holderAlive(h: LockHolder): boolean {
  if (hasProc()) {
    const ticks = processStartTicks(h.pid);
    return ticks !== null && (h.start_ticks === null || ticks === h.start_ticks);
  }
  try {
    process.kill(h.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const UNKNOWN: LockHolder = { pid: 0, start_ticks: null, hostname: '?', role: 'server', port: null, since: 'unknown' };

/** The lock's holder; null when there is no lock; UNKNOWN when a file is there that we cannot read as one. */
function readHolder(path: string): LockHolder | null {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return UNKNOWN;
  }
  try {
    const h = JSON.parse(text) as LockHolder;
    return Number.isInteger(h?.pid) && h.pid > 0 && typeof h.hostname === 'string' && typeof h.since === 'string' ? h : UNKNOWN;
  } catch {
    return UNKNOWN;
  }
}

/** Locks held by this process, removed on exit if a close did not run (process.exit after a fatal error). */
const held = new Set<DataDirLock>();
let exitHook = false;

/**
 * Takes the folder's lock or throws DataDirLockedError naming the live holder. A stale lock (its
 * process gone on this host) is taken over; takeovers are serialised by a second lock file (the
 * guard), so two processes finding the same stale lock do not both win.
 */
export async function acquireDataDirLock(dataDir: string, role: LockRole): Promise<DataDirLock> {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  const holder: LockHolder = {
    pid: process.pid,
    start_ticks: processStartTicks(process.pid),
    hostname: hostname(),
    role,
    port: null,
    since: nowIso(),
  };
  for (let attempt = 0; ; attempt++) {
    if (tryCreate(path, holder)) return track(path, holder);
    const current = readHolder(path);
    if (current === null) continue; // released between our create and our read: try again
    if (!stale(current, path)) throw new DataDirLockedError(dataDir, current, path);
    if (!takeOverStale(path, current, holder)) {
      // Another process is taking the same stale lock over: it wins, or leaves, within moments.
      if (attempt >= 50) throw new DataDirLockedError(dataDir, current, path);
      await new Promise((resolve) => setTimeout(resolve, 5 + attempt * 2));
    }
  }
}

/** The lock for a configuration that opens an on-disk PGlite; null for PostgreSQL and memory://. */
export async function acquireDataDirLockFor(config: Pick<Config, 'databaseUrl' | 'dataDir'>, role: LockRole): Promise<DataDirLock | null> {
  if (config.databaseUrl || config.dataDir === 'memory://') return null;
  return acquireDataDirLock(config.dataDir, role);
}

/**
 * A lock whose process is gone. On this host: its pid is absent or now another process's. From another
 * host: its holder has not touched it for LEASE_MS. An unreadable lock file is never stale.
 */
function stale(h: LockHolder, path: string): boolean {
  if (h.pid <= 0) return false;
  if (h.hostname === hostname()) return !holderAlive(h);
  try {
    return Date.now() - statSync(path).mtimeMs > LEASE_MS;
  } catch {
    return false;
  }
}

/** Creates the lock file with its content in one step: link(2) of a written file fails if the name exists. */
function tryCreate(path: string, holder: LockHolder): boolean {
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  writeFileSync(tmp, JSON.stringify(holder) + '\n', { flag: 'wx' });
  try {
    linkSync(tmp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  } finally {
    unlinkSync(tmp);
  }
}

/** Removes a stale lock under the guard; false when another process holds the guard (try again later). */
function takeOverStale(path: string, staleHolder: LockHolder, self: LockHolder): boolean {
  const guard = `${path}.takeover`;
  if (!tryCreate(guard, self)) {
    // A guard left by a process that died in the few lines below is itself stale: removed, tried again.
    const other = readHolder(guard);
    if (other && stale(other, guard)) unlinkIfSame(guard, other);
    return false;
  }
  try {
    // Still the same stale holder (not one that took over meanwhile)? Then it goes.
    unlinkIfSame(path, staleHolder);
  } finally {
    unlinkIfSame(guard, self);
  }
  return true;
}

const sameHolder = (a: LockHolder, b: LockHolder) => a.pid === b.pid && a.since === b.since && a.start_ticks === b.start_ticks && a.hostname === b.hostname;

function unlinkIfSame(path: string, expected: LockHolder): void {
  const current = readHolder(path);
  if (current && sameHolder(current, expected)) {
    try {
      unlinkSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

function track(path: string, initial: LockHolder): DataDirLock {
  let holder = initial;
  let released = false;
  const ours = () => {
    const current = readHolder(path);
    return current !== null && sameHolder(current, holder);
  };
  const lock: DataDirLock = {
    path,
    get holder() {
      return holder;
    },
    setPort(port) {
      if (released || !ours()) return;
      holder = { ...holder, port };
      const tmp = `${path}.${process.pid}.port`;
      writeFileSync(tmp, JSON.stringify(holder) + '\n');
      renameSync(tmp, path);
    },
    beat() {
      try {
        if (!released && ours()) utimesSync(path, new Date(), new Date());
      } catch {
        // A folder gone or read-only: the lock stays as it is; the pid check still applies on this host.
      }
    },
    release() {
      if (released) return;
      released = true;
      clearInterval(heartbeat);
      held.delete(lock);
      unlinkIfSame(path, holder);
    },
  };
  // The heartbeat another host judges the lock by (it cannot see our pid); it holds no process up.
  const heartbeat = setInterval(() => lock.beat(), HEARTBEAT_MS);
  heartbeat.unref();
  held.add(lock);
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const l of [...held]) l.release();
    });
  }
  return lock;
}

// Several instances of the service (`node dist/src/main.js`, one fresh PostgreSQL database, the
// machine's Redis) behind HAProxy (Debian's package, foreground child process, generated config on free
// loopback ports), plain round-robin without stickiness: the set-up of docs/deployment.md on one machine.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { openPostgres } from '../../src/store/postgres.js';
import { packageRoot } from '../../src/lib/root.js';
import type { Db } from '../../src/store/db.js';
import { waitFor } from '../helpers/waitFor.js';

const root = packageRoot();
const MAIN = join(root, 'dist', 'src', 'main.js');
export const REDIS_URL = process.env.SCALE_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** HAProxy's health-check cadence in these tests: down after FALL failed checks INTER_MS apart. */
export const INTER_MS = 200;
export const FALL = 2;
/** Readiness stays 503 this long after SIGTERM: a little over INTER_MS x FALL, as docs/deployment.md advises. */
export const DRAIN_MS = INTER_MS * FALL + 400;

export function haproxyBinary(): string | null {
  for (const dir of ['/usr/sbin', '/usr/local/sbin', ...(process.env.PATH ?? '').split(delimiter)]) {
    const p = join(dir, 'haproxy');
    if (dir && existsSync(p)) return p;
  }
  return null;
}

function redisAnswers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port || 6379), hostname);
    const done = (ok: boolean) => (socket.destroy(), resolve(ok));
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

/** Why the scale tests cannot run here, or null when they can (PostgreSQL path, haproxy installed, Redis up). */
export async function skipReason(): Promise<string | null> {
  if (!process.env.DATABASE_URL) return 'test/scale needs PostgreSQL and Redis (several instances share them): skipped on the PGlite path';
  if (!haproxyBinary()) return 'test/scale needs HAProxy (Debian: apt-get install haproxy): not installed, skipped';
  if (!(await redisAnswers(REDIS_URL))) return `test/scale needs Redis at ${REDIS_URL}: not answering, skipped`;
  if (!existsSync(MAIN)) return 'dist/src/main.js missing: run npm run build';
  return null;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export interface Instance {
  name: string;
  port: number;
  url: string;
  proc: ChildProcess;
  /** Resolves with the exit code (or signal) once the current process has exited. */
  exited: Promise<number | string | null>;
  output(): string;
}

export interface ClusterOptions {
  /** A new, empty or migrated PostgreSQL database for the instances (tests: helpers/server.ts freshDatabase). */
  database: () => Promise<{ databaseUrl: string | null; drop(): Promise<void> }>;
  instances?: number;
  /** Extra environment for every instance. */
  env?: Record<string, string>;
  /** HAProxy's health-check interval (default INTER_MS; the benchmark checks less often, to count less of them). */
  checkInterMs?: number;
}

/** One HAProxy process in front of some of the cluster's instances. */
export interface Balancer {
  url: string;
  statsUrl: string;
  proc: ChildProcess;
  output(): string;
  close(): Promise<void>;
}

export class Cluster {
  readonly instances: Instance[] = [];
  url = '';
  statsUrl = '';
  ownerKey = '';
  db!: Db;
  private haproxy: Balancer | null = null;
  private readonly balancers: Balancer[] = [];
  private dir = mkdtempSync(join(tmpdir(), 'gc-scale-'));
  private drop: () => Promise<void> = async () => {};
  private databaseUrl = '';

  constructor(private readonly options: ClusterOptions) {}

  env(): Record<string, string> {
    return {
      HOST: '127.0.0.1',
      DATABASE_URL: this.databaseUrl,
      REDIS_URL,
      POOL_THREADS: '1',
      SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
      SHUTDOWN_GRACE_MS: '10000',
      HTTP_ENGINE: process.env.HTTP_ENGINE ?? 'auto',
      ...this.options.env,
    };
  }

  async start(): Promise<void> {
    const database = await this.options.database();
    this.databaseUrl = database.databaseUrl!;
    this.drop = database.drop;
    this.db = await openPostgres(this.databaseUrl);
    const n = this.options.instances ?? 3;
    const ports = await Promise.all(Array.from({ length: n }, () => freePort()));
    // The first creates the owner (its key is printed once); the others start alongside afterwards.
    const first = await this.spawn('s1', ports[0]!, { BOOTSTRAP_OWNER: 'true' });
    this.ownerKey = /(gc_[0-9a-f]{32})/.exec(first.output())?.[1] ?? '';
    this.instances.push(first);
    this.instances.push(...(await Promise.all(ports.slice(1).map((p, i) => this.spawn(`s${i + 2}`, p, { BOOTSTRAP_OWNER: 'false' })))));
    this.haproxy = await this.balancer(this.instances.map((i) => i.name));
    this.url = this.haproxy.url;
    this.statsUrl = this.haproxy.statsUrl;
    await this.waitUp(this.instances.map((i) => i.name));
  }

  /** Starts (or starts again) an instance on its port; resolves once it logs that it listens and has printed any owner key. */
  private spawn(name: string, port: number, extra: Record<string, string> = {}): Promise<Instance> {
    return new Promise((resolve, reject) => {
      const proc = spawn(process.execPath, [MAIN], { env: { ...process.env, ...this.env(), PORT: String(port), ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      const exited = new Promise<number | string | null>((r) => proc.once('exit', (code, signal) => r(code ?? signal)));
      const instance: Instance = { name, port, url: `http://127.0.0.1:${port}`, proc, exited, output: () => out };
      let ready = false;
      const onData = (chunk: Buffer) => {
        out += chunk.toString();
        if (!ready && /"msg":"listening"/.test(out) && (extra.BOOTSTRAP_OWNER !== 'true' || /Try: curl/.test(out))) {
          ready = true;
          resolve(instance);
        }
      };
      proc.stdout!.on('data', onData);
      proc.stderr!.on('data', onData);
      void exited.then((code) => {
        if (!ready) reject(new Error(`${name} exited with ${code} before listening:\n${out.slice(-3000)}`));
      });
    });
  }

  private config(frontend: number, stats: number, names: string[]): string {
    const servers = this.instances.filter((i) => names.includes(i.name)).map((i) => `    server ${i.name} 127.0.0.1:${i.port} check inter ${this.options.checkInterMs ?? INTER_MS} fall ${FALL} rise 1`).join('\n');
    // deploy/haproxy.cfg with test timings: the reasons for each setting are given there.
    return `global
    maxconn 2000

defaults
    mode http
    timeout connect 1s
    timeout client 60s
    timeout server 60s
    timeout http-keep-alive 10s
    timeout check 1s
    retries 3
    option redispatch 1
    retry-on conn-failure empty-response response-timeout

frontend api
    bind 127.0.0.1:${frontend}
    default_backend service

backend service
    balance roundrobin
    http-request disable-l7-retry unless METH_GET || METH_HEAD || METH_OPTIONS
    option httpchk GET /health/readiness
    http-check expect status 200
${servers}

listen stats
    bind 127.0.0.1:${stats}
    stats enable
    stats uri /stats
`;
  }

  /** Starts HAProxy (foreground) in front of the named instances; resolves once its stats page answers. */
  async balancer(names: string[]): Promise<Balancer> {
    const [frontend, stats] = await Promise.all([freePort(), freePort()]);
    const file = join(this.dir, `haproxy-${frontend}.cfg`);
    writeFileSync(file, this.config(frontend, stats, names));
    const proc = spawn(haproxyBinary()!, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const gone = new Promise((r) => proc.once('exit', r));
    const balancer: Balancer = {
      url: `http://127.0.0.1:${frontend}`,
      statsUrl: `http://127.0.0.1:${stats}/stats;csv`,
      proc,
      output: () => out,
      async close() {
        if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
        await gone;
      },
    };
    this.balancers.push(balancer);
    const exited = gone.then(() => Promise.reject(new Error(`haproxy exited:\n${out}`)));
    await Promise.race([exited, this.poll(async () => (await fetch(balancer.statsUrl).catch(() => null))?.ok === true)]);
    return balancer;
  }

  /** Server name -> HAProxy's status of it (UP, DOWN, MAINT, ...), from the stats CSV. */
  async serverStates(statsUrl = this.statsUrl): Promise<Record<string, string>> {
    const text = await (await fetch(statsUrl)).text();
    const [header, ...rows] = text.trim().split('\n');
    const cols = header!.replace(/^# /, '').split(',');
    const px = cols.indexOf('pxname');
    const sv = cols.indexOf('svname');
    const st = cols.indexOf('status');
    const out: Record<string, string> = {};
    for (const row of rows) {
      const f = row.split(',');
      if (f[px] === 'service' && f[sv] !== 'BACKEND' && f[sv] !== 'FRONTEND') out[f[sv]!] = f[st]!;
    }
    return out;
  }

  /** Resolves once HAProxy reports every named server UP (polled at the check interval). */
  async waitUp(names: string[], statsUrl = this.statsUrl): Promise<void> {
    await this.poll(async () => {
      const states = await this.serverStates(statsUrl);
      return names.every((n) => states[n] === 'UP');
    });
  }

  private async poll(ok: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
    await waitFor(() => `haproxy says:\n${this.haproxy?.output().slice(-2000) ?? ''}`, () => ok().catch(() => false), { timeoutMs, everyMs: INTER_MS / 2 });
  }

  /** SIGTERM, wait for the exit (code 0 expected), start it again on its port, wait until HAProxy has it UP. */
  async restart(index: number): Promise<number | string | null> {
    const old = this.instances[index]!;
    old.proc.kill('SIGTERM');
    const code = await old.exited;
    this.instances[index] = await this.spawn(old.name, old.port, { BOOTSTRAP_OWNER: 'false' });
    await this.waitUp([old.name]);
    return code;
  }

  /** kill -9; resolves once the process is gone. */
  async kill(index: number): Promise<void> {
    const victim = this.instances[index]!;
    victim.proc.kill('SIGKILL');
    await victim.exited;
  }

  /** Starts a killed instance again and waits until HAProxy has it UP. */
  async revive(index: number): Promise<void> {
    const old = this.instances[index]!;
    this.instances[index] = await this.spawn(old.name, old.port, { BOOTSTRAP_OWNER: 'false' });
    await this.waitUp([old.name]);
  }

  /** What the cluster's HAProxy printed (server state changes with their reasons). */
  balancerLog(): string {
    return this.haproxy?.output() ?? '';
  }

  logs(): string {
    return this.instances.map((i) => `--- ${i.name}\n${i.output().slice(-2000)}`).join('\n') + `\n--- haproxy\n${this.haproxy?.output().slice(-1000) ?? ''}`;
  }

  async close(): Promise<void> {
    const stopping = this.instances.map((i) => {
      if (i.proc.exitCode === null && i.proc.signalCode === null) i.proc.kill('SIGKILL');
      return i.exited;
    });
    await Promise.all(this.balancers.map((b) => b.close()));
    await Promise.all(stopping);
    await this.db?.close();
    await this.drop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

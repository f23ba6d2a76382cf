// Scale-out benchmark (issue 46, docs/deployment.md): instances of the service on one PostgreSQL database
// and one Redis, behind HAProxy with 1, 2 and 3 instances, against the same instance asked directly
// (the baseline, same run). Per target and set-up: requests per second and the ratio to the baseline,
// latency, CPU per request of HAProxy and of the instances (from /proc), PostgreSQL transactions and
// Redis commands per request (pg_stat_statements when loaded, else pg_stat_database.xact_commit; Redis
// INFO commandstats), each net of the idle rate measured over a quiet window first.
//   npm run build && node dist/bench/scale/run.js     (needs haproxy, PostgreSQL and Redis; about 2 minutes)
// BENCH_DATABASE_URL (admin URL, default postgres://root@127.0.0.1:5432/test), SCALE_REDIS_URL, BENCH_SECONDS, BENCH_CONNECTIONS.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { Cluster, REDIS_URL, skipReason, type Balancer } from '../../test/scale/cluster.js';
import { connectRedis } from '../../src/lib/redis.js';
import { sized } from '../lib/smoke.js';

const ADMIN = process.env.BENCH_DATABASE_URL ?? 'postgres://root@127.0.0.1:5432/test';
const SECONDS = Number(process.env.BENCH_SECONDS ?? sized(4, 1));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? sized(2, 1));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? sized(16, 2));

function cpuSeconds(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}
/** CPU of a process and its threads plus its exited children (HAProxy, a node instance with its pool threads). */
const cpuOf = (pids: (number | undefined)[]): number => pids.reduce<number>((sum, p) => sum + cpuSeconds(p), 0);

async function main(): Promise<void> {
  process.env.DATABASE_URL ??= ADMIN;
  const reason = await skipReason();
  if (reason) {
    console.error(`bench/scale: ${reason}`);
    process.exit(1);
  }
  const name = `gc_bench_scale_${randomBytes(4).toString('hex')}`;
  const admin = postgres(ADMIN, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(ADMIN);
  url.pathname = `/${name}`;
  const cluster = new Cluster({
    database: async () => ({ databaseUrl: url.toString(), drop: async () => void (await admin.unsafe(`drop database if exists ${name} with (force)`)) }),
    instances: 3,
    checkInterMs: 2000,
    env: { MCP_SESSIONS_PER_KEY: '1000', RATE_LIMIT_FREE: '100000000', RATE_LIMIT_PRO: '100000000', RATE_LIMIT_TEAM: '100000000', RATE_LIMIT_ENTERPRISE: '100000000', POOL_THREADS: '1' },
  });
  const stats = postgres(url.toString(), { max: 1, onnotice: () => {} });
  const redis = await connectRedis(REDIS_URL);
  try {
    await cluster.start();
    const names = cluster.instances.map((i) => i.name);
    const balancers: Balancer[] = [];
    for (const n of [1, 2, 3]) {
      const b = await cluster.balancer(names.slice(0, n));
      await cluster.waitUp(names.slice(0, n), b.statsUrl);
      balancers.push(b);
    }
    const key = cluster.ownerKey;
    const sessionOn = async (base: string) => {
      const res = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench-scale', version: '1' } } }),
      });
      await res.text();
      return res.headers.get('mcp-session-id')!;
    };
    const text = `${'The pool queues work when every thread is busy; a full queue answers 503 with Retry-After. '.repeat(40)}`;
    const log = Array.from({ length: 60 }, (_, i) => (i % 9 ? `info step ${i % 5} ok` : `ERROR step ${i} failed at src/mod${i}.ts:${i}`)).join('\n');
    const targets = {
      'REST compression (cache hit)': async (base: string): Promise<autocannon.Options> => ({
        url: `${base}/v1/compress`,
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ text, fidelity: 'balanced' }),
      }),
      // One session per connection, as agents each hold their own (calls in one session follow each other).
      'MCP tools/call compress_tool_output': async (base: string): Promise<autocannon.Options> => {
        const sessions = await Promise.all(Array.from({ length: CONNECTIONS }, () => sessionOn(base)));
        let next = 0;
        let id = 1;
        const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
        return {
          url: `${base}/mcp`,
          method: 'POST',
          headers,
          requests: [
            {
              setupRequest: (req: Record<string, unknown>, context: { session?: string }) => {
                context.session ??= sessions[next++ % sessions.length];
                return {
                  ...req,
                  headers: { ...headers, 'mcp-session-id': context.session },
                  body: JSON.stringify({ jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'compress_tool_output', arguments: { output: log } } }),
                };
              },
            },
          ],
        } as unknown as autocannon.Options;
      },
    };
    const pgMode = (await stats.unsafe(`select 1 from pg_extension where extname = 'pg_stat_statements'`)).length ? 'pg_stat_statements' : 'xact_commit';
    const pgCount = async (): Promise<number> => {
      await stats.unsafe('select pg_stat_clear_snapshot()');
      const [row] = pgMode === 'pg_stat_statements'
        ? await stats.unsafe(`select coalesce(sum(calls), 0)::bigint as n from pg_stat_statements s join pg_database d on d.oid = s.dbid where d.datname = current_database()`)
        : await stats.unsafe(`select xact_commit as n from pg_stat_database where datname = current_database()`);
      return Number(row!.n);
    };
    const redisCount = async (): Promise<number> => {
      const info = (await redis.info('commandstats')) as string;
      return [...info.matchAll(/calls=(\d+)/g)].reduce((s, m) => s + Number(m[1]), 0);
    };
    // PostgreSQL's statistics reach pg_stat_database up to a second after a transaction ends.
    const settle = () => new Promise((r) => setTimeout(r, 1200));

    // Idle rates (health checks, sweeps, other Redis users on this machine), subtracted below.
    await settle();
    const [pg0, rd0, t0] = [await pgCount(), await redisCount(), Date.now()];
    await new Promise((r) => setTimeout(r, sized(3000, 200)));
    await settle();
    const idleSeconds = (Date.now() - t0 - 1200) / 1000;
    const pgIdle = (await pgCount() - pg0) / idleSeconds;
    const rdIdle = (await redisCount() - rd0) / idleSeconds;

    const setups: { label: string; base: string; balancer?: Balancer; instances: number }[] = [
      { label: 'direct, 1 instance (baseline)', base: cluster.instances[0]!.url, instances: 1 },
      ...balancers.map((b, i) => ({ label: `HAProxy, ${i + 1} instance${i ? 's' : ''}`, base: b.url, balancer: b, instances: i + 1 })),
    ];
    interface Cell { rps: number[]; ratio: number[]; p50: number[]; p99: number[]; errors: number; n: number; cpuH: number; cpuI: number; pg: number; redis: number }
    const cells = new Map<string, Cell>();
    const prepared = new Map<string, autocannon.Options>();
    // Rounds: every target and set-up in turn, so a change of load on this shared machine hits them alike.
    for (let round = 0; round < ROUNDS; round++) {
      for (const [target, options] of Object.entries(targets)) {
        let baseline = 0;
        for (const setup of setups) {
          const id = `${target}|${setup.label}`;
          let opts = prepared.get(id);
          if (!opts) prepared.set(id, (opts = await options(setup.base)));
          await autocannon({ ...opts, connections: CONNECTIONS, duration: 1 }); // warm: cache, session, connections
          await settle();
          const pids = cluster.instances.slice(0, setup.instances).map((i) => i.proc.pid);
          const [pgA, rdA] = [await pgCount(), await redisCount()];
          const cpuH = cpuOf([setup.balancer?.proc.pid]);
          const cpuI = cpuOf(pids);
          const start = Date.now();
          const r = await autocannon({ ...opts, connections: CONNECTIONS, duration: SECONDS });
          const cpuH2 = cpuOf([setup.balancer?.proc.pid]);
          const cpuI2 = cpuOf(pids);
          const seconds = (Date.now() - start) / 1000;
          await settle();
          const [pgB, rdB] = [await pgCount(), await redisCount()];
          const rps = r['2xx'] / seconds;
          if (!baseline) baseline = rps;
          const cell = cells.get(id) ?? { rps: [], ratio: [], p50: [], p99: [], errors: 0, n: 0, cpuH: 0, cpuI: 0, pg: 0, redis: 0 };
          cell.rps.push(rps);
          cell.ratio.push(rps / baseline);
          cell.p50.push(r.latency.p50);
          cell.p99.push(r.latency.p99);
          cell.errors += r.errors + r.non2xx;
          cell.n += r['2xx'];
          cell.cpuH += cpuH2 - cpuH;
          cell.cpuI += cpuI2 - cpuI;
          cell.pg += pgB - pgA - pgIdle * (seconds + 1.2);
          cell.redis += rdB - rdA - rdIdle * (seconds + 1.2);
          cells.set(id, cell);
        }
      }
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    console.log(`bench/scale: ${ROUNDS} rounds x ${SECONDS} s per cell, ${CONNECTIONS} connections, 3 instances x 1 pool thread, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}, node ${process.version}`);
    console.log(`PostgreSQL counted by ${pgMode} (transactions: a group commit of several usage events is one); idle rates subtracted: ${pgIdle.toFixed(1)} xacts/s, ${rdIdle.toFixed(1)} Redis commands/s\n`);
    console.log('| target | set-up | req/s | ratio to direct | p50 ms | p99 ms | errors | HAProxy CPU µs/req | instances CPU µs/req | PG xacts/req | Redis cmds/req |');
    console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const [id, c] of cells) {
      const [target, label] = id.split('|');
      const n = c.n || 1;
      console.log(
        `| ${target} | ${label} | ${Math.round(mean(c.rps))} | ${mean(c.ratio).toFixed(2)}x | ${Math.round(mean(c.p50))} | ${Math.round(mean(c.p99))} | ${c.errors} | ${label!.startsWith('HAProxy') ? Math.round((c.cpuH * 1e6) / n) : '-'} | ${Math.round((c.cpuI * 1e6) / n)} | ${Math.max(0, c.pg / n).toFixed(2)} | ${Math.max(0, c.redis / n).toFixed(2)} |`,
      );
    }
  } finally {
    redis.disconnect();
    await stats.end();
    await cluster.close();
    await admin.end();
  }
}

await main();

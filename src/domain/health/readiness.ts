import { statfs } from 'node:fs/promises';
import type { Services } from '../../services.js';
import { pingPool } from '../compute.js';

export type CheckState = 'ok' | 'unavailable';

/**
 * The instance's dependencies as /health/readiness, /v1/infra/health and check_resource_health see
 * them: database and pool are required to serve; Redis carries the shared cache, rate limits and
 * revocation fan-out, and without it an instance degrades but can still serve (docs/reliability.md).
 */
export async function checkReadiness(services: Services, timeoutMs = 2000) {
  const timeout = <T>(p: Promise<T>) => Promise.race([p, new Promise<never>((_, r) => setTimeout(() => r(new Error('timeout')), timeoutMs).unref())]);
  const timed = async (p: Promise<unknown>) => {
    const start = performance.now();
    await p;
    return Math.round((performance.now() - start) * 10) / 10;
  };
  const [database, pool, redis] = await Promise.allSettled([
    timed(timeout(services.db.query('select 1 as ok'))),
    timed(pingPool(services, timeoutMs)),
    services.config.redisUrl ? timed(timeout(services.cache.ping())) : Promise.resolve(null),
  ]);
  const state = (r: PromiseSettledResult<unknown>): CheckState => (r.status === 'fulfilled' ? 'ok' : 'unavailable');
  const ms = (r: PromiseSettledResult<number | null>) => (r.status === 'fulfilled' ? r.value : null);
  return {
    required: { database: state(database), pool: state(pool) },
    optional: services.config.redisUrl ? { redis: state(redis) } : ({} as { redis?: CheckState }),
    latency_ms: { database: ms(database), pool: ms(pool), redis: services.config.redisUrl ? ms(redis) : null },
  };
}

/** Free and total bytes of the file system holding the data folder (the working folder for an external DB or memory). */
export async function dataDisk(services: Services): Promise<{ free_bytes: number; total_bytes: number } | null> {
  const { config } = services;
  const path = config.databaseUrl || config.dataDir === 'memory://' ? process.cwd() : config.dataDir;
  const disk = await statfs(path).catch(() => null);
  return disk ? { free_bytes: disk.bavail * disk.bsize, total_bytes: disk.blocks * disk.bsize } : null;
}

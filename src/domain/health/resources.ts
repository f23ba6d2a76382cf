import { freemem, loadavg, totalmem, availableParallelism } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import type { Services } from '../../services.js';
import { checkReadiness, dataDisk } from './readiness.js';
import { nowIso } from '../../lib/time.js';

type Level = 'ok' | 'warning' | 'critical';

// Thresholds of check_resource_health (docs/prompt-cache-advisory.md, "Resource health").
const LIMITS = {
  queuePerThread: { warning: 2, critical: 8 },
  heapShare: { warning: 0.75, critical: 0.9 },
  systemFreeShare: { warning: 0.15, critical: 0.05 },
  diskFreeBytes: { warning: 5 * 1024 ** 3, critical: 1024 ** 3 },
  diskFreeShare: { warning: 0.1, critical: 0.03 },
};

const worst = (...levels: Level[]): Level => (levels.includes('critical') ? 'critical' : levels.includes('warning') ? 'warning' : 'ok');
const over = (v: number, l: { warning: number; critical: number }): Level => (v >= l.critical ? 'critical' : v >= l.warning ? 'warning' : 'ok');
const under = (v: number, l: { warning: number; critical: number }): Level => (v <= l.critical ? 'critical' : v <= l.warning ? 'warning' : 'ok');
const pct = (x: number) => Math.round(x * 1000) / 10;

/**
 * check_resource_health: this instance's own resources: the dependencies /health/readiness checks
 * (same checks, reused), pool utilisation and queue depth, memory and disk, each with a level.
 */
export async function resourceHealth(services: Services) {
  // Pool figures before the checks: the readiness ping itself waits for (and so drains) the queue.
  const pool = services.pool.stats();
  const ready = await checkReadiness(services);
  const mem = process.memoryUsage();
  const heap = getHeapStatistics();
  const disk = await dataDisk(services);
  const queuePerThread = pool.threads ? pool.queue_size / pool.threads : 0;
  const heapShare = heap.used_heap_size / heap.heap_size_limit;
  const sysFree = freemem() / totalmem();
  const components = {
    database: {
      level: (ready.required.database === 'ok' ? 'ok' : 'critical') as Level,
      state: ready.required.database,
      kind: services.db.kind,
      latency_ms: ready.latency_ms.database,
    },
    pool: {
      level: ready.required.pool === 'ok' ? over(queuePerThread, LIMITS.queuePerThread) : ('critical' as Level),
      state: ready.required.pool,
      ping_ms: ready.latency_ms.pool,
      threads: pool.threads,
      running: pool.running,
      queue_size: pool.queue_size,
      max_queue: pool.max_queue,
      utilization: pool.utilization,
      completed: pool.completed,
    },
    ...(ready.optional.redis
      ? { redis: { level: (ready.optional.redis === 'ok' ? 'ok' : 'warning') as Level, state: ready.optional.redis, latency_ms: ready.latency_ms.redis } }
      : {}),
    memory: {
      level: worst(over(heapShare, LIMITS.heapShare), under(sysFree, LIMITS.systemFreeShare)),
      rss_bytes: mem.rss,
      heap_used_bytes: heap.used_heap_size,
      heap_limit_bytes: heap.heap_size_limit,
      heap_used_percent: pct(heapShare),
      system_free_bytes: freemem(),
      system_total_bytes: totalmem(),
      system_free_percent: pct(sysFree),
    },
    disk: disk
      ? {
          level: worst(under(disk.free_bytes, LIMITS.diskFreeBytes), under(disk.free_bytes / disk.total_bytes, LIMITS.diskFreeShare)),
          ...disk,
          free_percent: pct(disk.free_bytes / disk.total_bytes),
        }
      : { level: 'warning' as Level, free_bytes: null, total_bytes: null, free_percent: null },
    cpu: { cores: availableParallelism(), load_average_1m: Math.round(loadavg()[0]! * 100) / 100 },
  };
  const levels = Object.values(components).flatMap((c) => ('level' in c ? [c.level as Level] : []));
  const overall = worst(...levels);
  const recommendations: string[] = [];
  if (components.database.level !== 'ok') recommendations.push('The database does not answer: requests that store or read data will fail (503).');
  if (components.pool.state !== 'ok') recommendations.push('The compute pool does not answer a ping: compression and counting will fail or time out.');
  else if (components.pool.level !== 'ok') recommendations.push(`The compute queue holds ${pool.queue_size} tasks for ${pool.threads} threads: add instances or POOL_THREADS.`);
  if (components.memory.level !== 'ok') recommendations.push('Memory is short (heap near its limit or little free system memory): lower POOL_THREADS or add memory.');
  if (components.disk.level !== 'ok') recommendations.push('Disk space for the data folder is low or unknown.');
  if (components.redis && components.redis.level !== 'ok') recommendations.push('Redis does not answer: shared cache, rate limits and key-revocation fan-out run locally until it is back.');
  return {
    status: overall === 'ok' ? 'healthy' : overall === 'warning' ? 'degraded' : 'unhealthy',
    serving: Object.values(ready.required).every((v) => v === 'ok'),
    version: services.config.version,
    uptime_seconds: Math.round((Date.now() - services.startedAt) / 1000),
    components,
    cache_hit_rate: services.metrics.cacheHitRate(),
    thresholds: LIMITS,
    recommendations: recommendations.length ? recommendations : ['All resources within limits.'],
    checked_at: nowIso(),
  };
}

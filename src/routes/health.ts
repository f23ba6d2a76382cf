import { defineRoute } from '../http/route.js';
import type { Services } from '../services.js';
import { pingPool } from '../domain/compute.js';

async function checkReadiness(services: Services) {
  const timeout = <T>(p: Promise<T>) => Promise.race([p, new Promise<never>((_, r) => setTimeout(() => r(new Error('timeout')), 2000).unref())]);
  const [database, pool] = await Promise.allSettled([
    timeout(services.db.query('select 1 as ok')),
    pingPool(services, 2000),
  ]);
  return {
    database: database.status === 'fulfilled' ? 'ok' : 'unavailable',
    pool: pool.status === 'fulfilled' ? 'ok' : 'unavailable',
  };
}

const liveness = () => ({ body: { status: 'ok' } });

export const healthRoutes = [
  defineRoute({ method: 'GET', path: '/health', auth: 'public', handler: liveness }),
  defineRoute({ method: 'GET', path: '/health/liveness', auth: 'public', handler: liveness }),
  defineRoute({
    method: 'GET',
    path: '/health/readiness',
    auth: 'public',
    async handler({ services }) {
      const checks = await checkReadiness(services);
      const ready = Object.values(checks).every((v) => v === 'ok');
      return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'not_ready', checks } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/health/diagnostics',
    auth: 'public',
    handler({ services }) {
      const { config, metrics, pool, db } = services;
      return {
        body: {
          status: 'ok',
          version: config.version,
          uptime_seconds: Math.round((Date.now() - services.startedAt) / 1000),
          circuit_breakers: Object.fromEntries(services.breakers.map((b) => [b.name, b.snapshot()])),
          // The spec fixes these as null: per-request latency lives in /metrics and usage analytics.
          latency_p50_ms: null,
          latency_p95_ms: null,
          latency_p99_ms: null,
          cache_hit_rate: metrics.cacheHitRate(),
          mcp_sessions_active: null,
          database: db.kind,
          pool: pool.stats(),
        },
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/infra/health',
    auth: 'public',
    async handler({ services }) {
      const checks = await checkReadiness(services);
      const healthy = Object.values(checks).every((v) => v === 'ok');
      return {
        status: healthy ? 200 : 503,
        body: {
          status: healthy ? 'healthy' : 'degraded',
          version: services.config.version,
          components: { ...checks, cache: 'ok' },
          pool: services.pool.stats(),
          timestamp: new Date().toISOString(),
        },
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/metrics',
    auth: 'public',
    handler: ({ services }) => ({ raw: services.metrics.render(), contentType: 'text/plain; version=0.0.4; charset=utf-8' }),
  }),
];

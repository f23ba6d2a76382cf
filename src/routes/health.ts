import { z } from 'zod';
import { defineRoute } from '../http/route.js';
import { checkReadiness } from '../domain/health/readiness.js';
import { httpEngine } from '../http/engine/select.js';
import { isDraining, noteReadinessProbe } from '../domain/health/draining.js';
import { int, isoTime, poolStats } from './schemas.js';
import { nowIso } from '../lib/time.js';

const liveness = () => ({ body: { status: 'ok' } });
const alive = z.object({ status: z.literal('ok') });
/** Each check is ok or what failed (the 503 answer has the same shape). */
const readiness = z.object({ status: z.enum(['ready', 'degraded', 'not_ready', 'draining']), checks: z.record(z.string(), z.string()) });
const diagnostics = z.looseObject({
  status: z.literal('ok'),
  version: z.string(),
  uptime_seconds: int,
  circuit_breakers: z.record(z.string(), z.looseObject({})),
  latency_p50_ms: z.null(),
  latency_p95_ms: z.null(),
  latency_p99_ms: z.null(),
  cache_hit_rate: z.number().nullable(),
  mcp_sessions_active: z.null(),
  database: z.string(),
  http: z.looseObject({}),
  pool: poolStats,
});
const infraHealth = z.object({ status: z.enum(['healthy', 'degraded']), version: z.string(), components: z.record(z.string(), z.string()), pool: poolStats, timestamp: isoTime });

export const healthRoutes = [
  defineRoute({ method: 'GET', path: '/health', auth: 'public', response: alive, handler: liveness }),
  defineRoute({ method: 'GET', path: '/health/liveness', auth: 'public', response: alive, handler: liveness }),
  defineRoute({
    method: 'GET',
    path: '/health/readiness',
    auth: 'public',
    response: readiness,
    async handler({ services }) {
      noteReadinessProbe(services);
      // Stopping (SIGTERM): out of the balancer's rotation first, while in-flight and late requests are still served.
      if (isDraining(services)) return { status: 503, body: { status: 'draining', checks: {} } };
      const { required, optional } = await checkReadiness(services);
      const ready = Object.values(required).every((v) => v === 'ok');
      const degraded = Object.values(optional).some((v) => v !== 'ok');
      return { status: ready ? 200 : 503, body: { status: !ready ? 'not_ready' : degraded ? 'degraded' : 'ready', checks: { ...required, ...optional } } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/health/diagnostics',
    auth: 'public',
    response: diagnostics,
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
          http: httpEngine(config.httpEngine).info,
          pool: pool.stats(),
        },
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/infra/health',
    auth: 'public',
    response: infraHealth,
    async handler({ services }) {
      const { required, optional } = await checkReadiness(services);
      const serving = Object.values(required).every((v) => v === 'ok');
      const healthy = serving && Object.values(optional).every((v) => v === 'ok');
      return {
        status: serving ? 200 : 503,
        body: {
          status: healthy ? 'healthy' : 'degraded',
          version: services.config.version,
          components: { ...required, ...optional, cache: optional.redis ?? 'ok' },
          pool: services.pool.stats(),
          timestamp: nowIso(),
        },
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/metrics',
    auth: 'public',
    doc: { summary: 'Prometheus metrics', contentType: 'text/plain' },
    async handler({ services, headers }) {
      const { body, contentType } = await services.metrics.render(headers.accept);
      return { raw: body, contentType };
    },
  }),
];

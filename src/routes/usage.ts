import { z } from 'zod';
import {
  activationHistogram,
  getEvent,
  latencyPercentiles,
  listEvents,
  monthlyUsage,
  usageByCache,
  usageByClient,
  usageByFidelity,
  usageByKey,
  usageByModel,
  usageByTool,
  usageHistory,
  type EventRow,
} from '../domain/analytics/analytics.js';
import { forbidden, notFound } from '../domain/errors.js';
import { defineRoute } from '../http/route.js';
import { PLANS } from '../auth/plans.js';
import type { CallStatus } from '../domain/call.js';
import { fidelity, int, isoTime, namedValues, pageNumber } from './schemas.js';
import { nowIso } from '../lib/time.js';

/** How a usage event came in (usage_events.method). */
const METHODS = ['REST', 'MCP', 'batch', 'mcp_advisory'] as const;
/** A usage event's outcome (domain/call.ts CallStatus). */
const EVENT_STATUSES = ['success', 'client_error', 'server_error', 'timeout'] as const satisfies readonly CallStatus[];

// Query strings: numbers via z.coerce, ranges from the spec's Limits table (out of range is 422).
const days = z.coerce.number().int().min(1).max(365).default(30);
const DaysQuery = z.object({ days });
const ByKeyQuery = z.object({ days, limit: z.coerce.number().int().min(1).max(100).default(5) });
const HistoryQuery = z.object({
  days: z.coerce.number().int().min(1).max(90).default(30),
  period: z.literal('day').default('day'),
});
const booleanParam = z
  .enum(['true', 'false', '1', '0'])
  .default('false')
  .transform((v) => v === 'true' || v === '1');
const dateTime = z
  .string()
  .datetime({ offset: true })
  .transform((s) => new Date(s));
const EventsQuery = z.object({
  page: pageNumber.default(1),
  page_size: z.coerce.number().int().min(1).max(100).default(20),
  fidelity: fidelity.optional(),
  method: z.enum(METHODS).optional(),
  exclude_advisory: booleanParam,
  model: z.string().min(1).max(100).optional(),
  status: namedValues(z.string().min(1).max(32), EVENT_STATUSES, 'any other value matches no event').optional(),
  since: dateTime.optional(),
  until: dateTime.optional(),
  key_id: z.string().min(1).max(32).optional(),
  environment: z.string().min(1).max(16).optional(),
});
const LatencyQuery = z.object({ window_hours: z.coerce.number().int().min(1).max(168).default(24) });

// Response schemas (/openapi.json; the contract suite checks answers against them). Sums are numbers: int8 columns.
const tokenSums = { compressions: z.number().int(), original_tokens: z.number(), tokens_saved: z.number() };
const MonthlyUsage = z.object({
  period_start: z.string(),
  period_end: z.string(),
  monthly_compressions: z.number().int(),
  original_tokens: z.number(),
  compressed_tokens: z.number(),
  tokens_saved: z.number(),
  plan: z.string(),
});
const UsageHistory = z.object({ period: z.literal('day'), days: z.number().int(), data: z.array(z.object({ date: z.string(), ...tokenSums, compressed_tokens: z.number() })) });
const ByModel = z.object({ days: z.number().int(), data: z.array(z.object({ model: z.string(), ...tokenSums, avg_savings_percent: z.number() })) });
const ByFidelity = z.object({ days: z.number().int(), data: z.array(z.object({ fidelity: z.string(), ...tokenSums, avg_savings_percent: z.number() })) });
const ByCache = z.object({
  days: z.number().int(),
  hits: z.number().int(),
  misses: z.number().int(),
  hit_rate: z.number(),
  data: z.array(z.object({ cache: z.enum(['hit', 'miss']), calls: z.number().int(), tokens_saved: z.number() })),
});

const ByKey = z.object({
  days: int,
  limit: int,
  data: z.array(z.object({ key_id: z.string(), name: z.string().nullable(), environment: z.string().nullable(), compressions: int, original_tokens: z.number(), tokens_saved: z.number() })),
});
const ByTool = z.object({ days: int, data: z.array(z.object({ tool_name: z.string(), calls: int, tokens_saved: z.number(), zero_savings_calls: int })) });
const ByClient = z.object({ days: int, data: z.array(z.object({ client: z.string(), calls: int, compressions: int, original_tokens: z.number(), tokens_saved: z.number() })) });
/** CompressionEvent (analytics.ts EventRow). */
const UsageEvent = z.object({
  id: z.string(),
  created_at: isoTime,
  key_id: z.string().nullable(),
  project_id: z.string().nullable(),
  environment: z.string().nullable(),
  method: z.enum(METHODS),
  tool_name: z.string().nullable(),
  client: z.string().nullable(),
  fidelity: z.string().nullable(),
  model: z.string().nullable(),
  status: z.enum(EVENT_STATUSES),
  input_tokens: int,
  output_tokens: int,
  tokens_saved: z.number(),
  savings_percent: z.number(),
  latency_ms: z.number(),
  cache_hit: z.boolean(),
  input_preview: z.string().nullable(),
});
const Events = z.object({ items: z.array(UsageEvent), page: int, page_size: int, total: int });
const Latency = z.object({ window_hours: int, count: int, p50: z.number().nullable(), p95: z.number().nullable(), p99: z.number().nullable() });
const bucket = z.object({ '<1h': int, '1h-24h': int, '1d-7d': int, '>7d': int, never: int });
const Activation = z.object({
  period: z.literal('all_time'),
  buckets: z.object(Object.fromEntries(PLANS.map((p) => [p, bucket])) as Record<(typeof PLANS)[number], typeof bucket>),
  generated_at: isoTime,
});

/** CompressionEvent. */
function eventResponse(e: EventRow) {
  return { ...e, savings_percent: Math.round(Number(e.savings_percent) * 10) / 10 };
}

export const usageRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/usage',
    auth: 'key',
    response: MonthlyUsage,
    async handler({ principal, services }) {
      const u = await monthlyUsage(services.db, principal.userId);
      return {
        body: {
          period_start: u.period_start,
          period_end: u.period_end,
          monthly_compressions: u.compressions,
          original_tokens: u.original_tokens,
          compressed_tokens: u.compressed_tokens,
          tokens_saved: u.tokens_saved,
          plan: principal.plan,
        },
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/usage/history',
    auth: 'key',
    response: UsageHistory,
    query: HistoryQuery,
    async handler({ query, principal, services }) {
      const data = await usageHistory(services.db, principal.userId, query.days);
      return { body: { period: query.period, days: query.days, data } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/usage/by-model',
    auth: 'key',
    response: ByModel,
    query: DaysQuery,
    async handler({ query, principal, services }) {
      return { body: { days: query.days, data: await usageByModel(services.db, principal.userId, query.days) } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/usage/by-fidelity',
    auth: 'key',
    response: ByFidelity,
    query: DaysQuery,
    async handler({ query, principal, services }) {
      return { body: { days: query.days, data: await usageByFidelity(services.db, principal.userId, query.days) } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/usage/by-cache',
    auth: 'key',
    response: ByCache,
    query: DaysQuery,
    async handler({ query, principal, services }) {
      const c = await usageByCache(services.db, principal.userId, query.days);
      const total = c.hits + c.misses;
      return {
        body: {
          days: query.days,
          hits: c.hits,
          misses: c.misses,
          hit_rate: total === 0 ? 0 : Math.round((c.hits / total) * 10_000) / 10_000,
          data: [
            { cache: 'hit', calls: c.hits, tokens_saved: c.tokens_saved_hits },
            { cache: 'miss', calls: c.misses, tokens_saved: c.tokens_saved_misses },
          ],
        },
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/usage/by-key',
    auth: 'key',
    response: ByKey,
    query: ByKeyQuery,
    async handler({ query, principal, services }) {
      const data = await usageByKey(services.db, principal.userId, query.days, query.limit);
      return { body: { days: query.days, limit: query.limit, data } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/usage/by-tool',
    auth: 'key',
    response: ByTool,
    query: DaysQuery,
    async handler({ query, principal, services }) {
      return { body: { days: query.days, data: await usageByTool(services.db, principal.userId, query.days) } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/usage/by-client',
    auth: 'key',
    response: ByClient,
    query: DaysQuery,
    async handler({ query, principal, services }) {
      return { body: { days: query.days, data: await usageByClient(services.db, principal.userId, query.days) } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/usage/events',
    auth: 'key',
    response: Events,
    query: EventsQuery,
    async handler({ query, principal, services }) {
      const { items, total } = await listEvents(
        services.db,
        principal.userId,
        {
          fidelity: query.fidelity,
          method: query.method,
          excludeAdvisory: query.exclude_advisory,
          model: query.model,
          status: query.status,
          since: query.since,
          until: query.until,
          keyId: query.key_id,
          environment: query.environment,
        },
        query.page,
        query.page_size,
      );
      return { body: { items: items.map(eventResponse), page: query.page, page_size: query.page_size, total } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/usage/events/:event_id',
    auth: 'key',
    response: UsageEvent,
    async handler({ params, principal, services }) {
      const event = await getEvent(services.db, principal.userId, params.event_id!);
      if (!event) throw notFound('Event not found');
      return { body: eventResponse(event) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/usage/latency-percentiles',
    auth: 'key',
    response: Latency,
    query: LatencyQuery,
    async handler({ query, principal, services }) {
      const p = await latencyPercentiles(services.db, principal.userId, query.window_hours);
      return { body: { window_hours: query.window_hours, count: p.count, p50: p.p50, p95: p.p95, p99: p.p99 } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/usage/activation',
    auth: 'key',
    response: Activation,
    async handler({ principal, services }) {
      if (!principal.isAdmin) throw forbidden('The activation histogram is available to administrators only');
      const buckets = await activationHistogram(services.db);
      return { body: { period: 'all_time', buckets, generated_at: nowIso() } };
    },
  }),
];

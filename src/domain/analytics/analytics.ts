import * as hdr from 'hdr-histogram-js';
import { PLANS, type Plan } from '../../auth/plans.js';
import type { Queryable } from '../../store/db.js';

/*
 * Usage analytics. Every aggregation runs in SQL over the caller's rows, served by the
 * (user_id, created_at) index; per-key lookups use (key_id, created_at). "Compressions" exclude
 * advisory MCP calls (method mcp_advisory), which do not compress anything.
 */

const SAVED = 'greatest(e.input_tokens - e.output_tokens, 0)';
// A compression is a call that compressed: advisory helpers and failed calls (client_error, server_error,
// timeout) are not, as in the quota count (quota.ts; docs/decisions.md "What counts as a compression").
const COMPRESSING = `e.method <> 'mcp_advisory' and e.status = 'success'`;
// Savings of a group as the totals compute them: tokens saved over tokens sent, not an average of per-call ratios.
const SAVINGS_PERCENT = `coalesce(round((100.0 * sum(${SAVED}) / nullif(sum(e.input_tokens), 0))::numeric, 1), 0)::float8`;
const SINCE_DAYS = `e.created_at >= now() - make_interval(days => $2::int)`;

export async function monthlyUsage(db: Queryable, userId: string) {
  const [row] = await db.query<{
    period_start: Date; period_end: Date; compressions: number; original_tokens: number; compressed_tokens: number; tokens_saved: number;
  }>(
    `with bounds as (select date_trunc('month', now() at time zone 'utc') at time zone 'utc' as s)
     select b.s as period_start, (b.s + interval '1 month') as period_end,
            count(e.id)::int as compressions,
            coalesce(sum(e.input_tokens), 0)::int8 as original_tokens,
            coalesce(sum(e.output_tokens), 0)::int8 as compressed_tokens,
            coalesce(sum(${SAVED}), 0)::int8 as tokens_saved
       from bounds b left join usage_events e on e.user_id = $1 and e.created_at >= b.s and ${COMPRESSING}
      group by b.s`,
    [userId],
  );
  return row!;
}

/** Exactly one row per UTC calendar day, oldest first, ending today; days without activity are zeros. */
export async function usageHistory(db: Queryable, userId: string, days: number) {
  return db.query<{ date: string; compressions: number; original_tokens: number; compressed_tokens: number; tokens_saved: number }>(
    `with days as (
       select d::date as day
         from generate_series((now() at time zone 'utc')::date - ($2::int - 1), (now() at time zone 'utc')::date, interval '1 day') d
     ), agg as (
       select (e.created_at at time zone 'utc')::date as day, count(*)::int as compressions,
              sum(e.input_tokens)::int8 as original_tokens, sum(e.output_tokens)::int8 as compressed_tokens,
              sum(${SAVED})::int8 as tokens_saved
         from usage_events e
        where e.user_id = $1 and ${COMPRESSING}
          and e.created_at >= ((now() at time zone 'utc')::date - ($2::int - 1))::timestamp at time zone 'utc'
        group by 1
     )
     select to_char(d.day, 'YYYY-MM-DD') as date, coalesce(a.compressions, 0)::int as compressions,
            coalesce(a.original_tokens, 0)::int8 as original_tokens, coalesce(a.compressed_tokens, 0)::int8 as compressed_tokens,
            coalesce(a.tokens_saved, 0)::int8 as tokens_saved
       from days d left join agg a on a.day = d.day
      order by d.day`,
    [userId, days],
  );
}

/** A call that named no model is 'unspecified': it was counted with the default tokenizer, not an unknown model. */
export async function usageByModel(db: Queryable, userId: string, days: number) {
  return db.query<{ model: string; compressions: number; original_tokens: number; tokens_saved: number; avg_savings_percent: number }>(
    `select coalesce(e.model, 'unspecified') as model, count(*)::int as compressions,
            sum(e.input_tokens)::int8 as original_tokens, sum(${SAVED})::int8 as tokens_saved,
            ${SAVINGS_PERCENT} as avg_savings_percent
       from usage_events e where e.user_id = $1 and ${SINCE_DAYS} and ${COMPRESSING}
      group by 1 order by compressions desc, model`,
    [userId, days],
  );
}

/** Savings per fidelity level (beyond the spec; the dashboard's by-fidelity chart). Calls without a level are 'none'. */
export async function usageByFidelity(db: Queryable, userId: string, days: number) {
  return db.query<{ fidelity: string; compressions: number; original_tokens: number; tokens_saved: number; avg_savings_percent: number }>(
    `select coalesce(e.fidelity, 'none') as fidelity, count(*)::int as compressions,
            sum(e.input_tokens)::int8 as original_tokens, sum(${SAVED})::int8 as tokens_saved,
            ${SAVINGS_PERCENT} as avg_savings_percent
       from usage_events e where e.user_id = $1 and ${SINCE_DAYS} and ${COMPRESSING}
      group by 1 order by compressions desc, fidelity`,
    [userId, days],
  );
}

export async function usageByCache(db: Queryable, userId: string, days: number) {
  const [row] = await db.query<{ hits: number; misses: number; tokens_saved_hits: number; tokens_saved_misses: number }>(
    `select count(*) filter (where e.cache_hit)::int as hits, count(*) filter (where not e.cache_hit)::int as misses,
            coalesce(sum(${SAVED}) filter (where e.cache_hit), 0)::int8 as tokens_saved_hits,
            coalesce(sum(${SAVED}) filter (where not e.cache_hit), 0)::int8 as tokens_saved_misses
       from usage_events e where e.user_id = $1 and ${SINCE_DAYS} and ${COMPRESSING}`,
    [userId, days],
  );
  return row!;
}

/** Top-N keys by tokens saved (ties: more calls first). JWT-session calls have no key and are left out. */
export async function usageByKey(db: Queryable, userId: string, days: number, limit: number) {
  return db.query<{ key_id: string; name: string | null; environment: string | null; compressions: number; original_tokens: number; tokens_saved: number }>(
    `select a.key_id, k.name, coalesce(k.environment, a.environment) as environment, a.compressions, a.original_tokens, a.tokens_saved
       from (select e.key_id, max(e.environment) as environment, count(*)::int as compressions,
                    sum(e.input_tokens)::int8 as original_tokens, sum(${SAVED})::int8 as tokens_saved
               from usage_events e where e.user_id = $1 and ${SINCE_DAYS} and ${COMPRESSING} and e.key_id is not null
              group by e.key_id) a
       left join api_keys k on k.key_id = a.key_id and k.user_id = $1
      order by a.tokens_saved desc, a.compressions desc, a.key_id
      limit $3`,
    [userId, days, limit],
  );
}

/** Every call counts (zero-savings and advisory ones too); REST compress calls (tool_name null) are 'rest-api'. */
export async function usageByTool(db: Queryable, userId: string, days: number) {
  return db.query<{ tool_name: string; calls: number; tokens_saved: number; zero_savings_calls: number }>(
    `select coalesce(e.tool_name, 'rest-api') as tool_name, count(*)::int as calls, sum(${SAVED})::int8 as tokens_saved,
            count(*) filter (where ${SAVED} = 0)::int as zero_savings_calls
       from usage_events e where e.user_id = $1 and ${SINCE_DAYS}
      group by 1 order by calls desc, tool_name`,
    [userId, days],
  );
}

/**
 * Known AI clients, matched case-insensitively (SQL LIKE, first match wins) against the recorded
 * client signal: the MCP clientInfo name, else the REST User-Agent. Rows with neither signal, or an
 * unknown one, are 'other'. The table and real strings it recognises are in docs/accounts.md.
 */
export const KNOWN_CLIENTS: [label: string, patterns: string[]][] = [
  ['claude-code', ['%claude-code%', '%claude-cli%', '%claude code%']],
  ['claude-desktop', ['%claude-ai%', '%claude desktop%', '%claude-desktop%', 'claude/%', '%claude%']],
  ['cursor', ['%cursor%']],
  ['windsurf', ['%windsurf%', '%codeium%']],
  ['cline', ['%cline%']],
  ['continue', ['%continue%']],
  ['vscode-copilot', ['%copilot%', '%visual studio code%', '%vscode%']],
  ['zed', ['zed', 'zed/%', 'zed %', '%zed-industries%']],
  ['codex', ['%codex%']],
  ['gemini-cli', ['%gemini%']],
  ['anthropic-sdk', ['anthropic/%', '%anthropic-python%', '%anthropic-typescript%', '%anthropic-sdk%']],
  ['openai-sdk', ['openai/%', '%openai-python%', '%openai-node%', '%openai-agents%']],
  ['mcp-sdk', ['mcp', 'mcp/%', '%modelcontextprotocol%', '%mcp-inspector%', '%inspector-client%', '%fastmcp%']],
  // This project's own command line (src/cli/gc/common.ts USER_AGENT), then generic HTTP clients.
  ['semcomp-cli', ['semantic-compression-cli/%']],
  ['curl', ['curl/%']],
  ['wget', ['wget/%']],
  ['python-requests', ['python-requests/%']],
  ['python-httpx', ['python-httpx/%']],
  ['python-aiohttp', ['python/% aiohttp/%']],
  ['python-urllib', ['python-urllib/%']],
  ['node-fetch', ['node', 'undici', 'node-fetch%', 'axios/%', 'got %']],
  ['go-http', ['go-http-client/%']],
  ['httpie', ['httpie/%']],
  ['postman', ['postmanruntime/%']],
];
const CLIENT_CASE = `case ${KNOWN_CLIENTS.flatMap(([label, patterns]) => patterns.map((p) => `when lower(e.client) like '${p}' then '${label}'`)).join(' ')} else 'other' end`;

export async function usageByClient(db: Queryable, userId: string, days: number) {
  // Aggregate per raw client first, then classify the few distinct values (not every row).
  // calls: every call (as by-tool); compressions: the calls by-model and by-fidelity count (COMPRESSING).
  return db.query<{ client: string; calls: number; compressions: number; original_tokens: number; tokens_saved: number }>(
    `select ${CLIENT_CASE} as client, sum(e.calls)::int as calls, sum(e.compressions)::int as compressions,
            sum(e.original_tokens)::int8 as original_tokens, sum(e.tokens_saved)::int8 as tokens_saved
       from (select e.client, count(*) as calls, count(*) filter (where ${COMPRESSING}) as compressions,
                    sum(e.input_tokens) as original_tokens, sum(${SAVED}) as tokens_saved
               from usage_events e where e.user_id = $1 and ${SINCE_DAYS}
              group by e.client) e
      group by 1 order by calls desc, client`,
    [userId, days],
  );
}

export interface EventFilters {
  fidelity?: string;
  method?: string;
  excludeAdvisory: boolean;
  model?: string;
  status?: string;
  since?: Date;
  until?: Date;
  keyId?: string;
  environment?: string;
}

const EVENT_COLUMNS = `id, created_at, key_id, project_id, environment, method, tool_name, client, fidelity, model, status,
  input_tokens, output_tokens, greatest(input_tokens - output_tokens, 0) as tokens_saved, savings_percent, latency_ms,
  cache_hit, input_preview`;

export interface EventRow {
  id: string;
  created_at: Date;
  key_id: string | null;
  project_id: string | null;
  environment: string | null;
  method: string;
  tool_name: string | null;
  client: string | null;
  fidelity: string | null;
  model: string | null;
  status: string;
  input_tokens: number;
  output_tokens: number;
  tokens_saved: number;
  savings_percent: number;
  latency_ms: number;
  cache_hit: boolean;
  input_preview: string | null;
}

export async function listEvents(db: Queryable, userId: string, f: EventFilters, page: number, pageSize: number) {
  const params: unknown[] = [userId];
  const where = ['user_id = $1'];
  const add = (sql: (p: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (f.fidelity !== undefined) add((p) => `fidelity = ${p}`, f.fidelity);
  if (f.method !== undefined) add((p) => `method = ${p}`, f.method);
  if (f.excludeAdvisory) where.push(`method <> 'mcp_advisory'`);
  if (f.model !== undefined) add((p) => `model = ${p}`, f.model);
  if (f.status !== undefined) add((p) => `status = ${p}`, f.status);
  if (f.since !== undefined) add((p) => `created_at > ${p}`, f.since);
  if (f.until !== undefined) add((p) => `created_at < ${p}`, f.until);
  if (f.keyId !== undefined) add((p) => `key_id = ${p}`, f.keyId);
  if (f.environment !== undefined) add((p) => `environment = ${p}`, f.environment);
  const filter = where.join(' and ');
  const [count] = await db.query<{ n: number }>(`select count(*)::int as n from usage_events where ${filter}`, params);
  const items = await db.query<EventRow>(
    `select ${EVENT_COLUMNS} from usage_events where ${filter}
      order by created_at desc, id desc limit $${params.length + 1} offset $${params.length + 2}`,
    [...params, pageSize, (page - 1) * pageSize],
  );
  return { items, total: count!.n };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Owner-scoped; a malformed id is as unknown as another caller's. */
export async function getEvent(db: Queryable, userId: string, id: string): Promise<EventRow | null> {
  if (!UUID.test(id)) return null;
  const [row] = await db.query<EventRow>(`select ${EVENT_COLUMNS} from usage_events where id = $1 and user_id = $2`, [id, userId]);
  return row ?? null;
}

/**
 * p50/p95/p99 of latency_ms in the window. SQL groups by distinct latency so only a few hundred
 * rows leave the database; the HDR histogram (3 significant digits) computes the percentiles.
 */
export async function latencyPercentiles(db: Queryable, userId: string, windowHours: number) {
  const rows = await db.query<{ latency_ms: number; n: number }>(
    `select e.latency_ms, count(*)::int as n from usage_events e
      where e.user_id = $1 and e.created_at >= now() - make_interval(hours => $2::int)
      group by e.latency_ms`,
    [userId, windowHours],
  );
  const histogram = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000, numberOfSignificantValueDigits: 3, autoResize: true });
  try {
    for (const r of rows) histogram.recordValueWithCount(Math.max(0, r.latency_ms), r.n);
    const count = histogram.totalCount;
    const at = (p: number) => (count === 0 ? null : histogram.getValueAtPercentile(p));
    return { count, p50: at(50), p95: at(95), p99: at(99) };
  } finally {
    histogram.destroy();
  }
}

export type ActivationBucket = '<1h' | '1h-24h' | '1d-7d' | 'never';

/**
 * Admin: every key by plan, bucketed by how long after creation its first usage event came.
 * Keys first used more than 7 days after creation are counted under '>7d' (outside the spec's four).
 */
export async function activationHistogram(db: Queryable) {
  const rows = await db.query<{ plan: string; lt_1h: number; h1_24: number; d1_7: number; gt_7d: number; never: number }>(
    `select k.plan,
            count(*) filter (where f.first_use is not null and f.first_use - k.created_at < interval '1 hour')::int as lt_1h,
            count(*) filter (where f.first_use - k.created_at >= interval '1 hour' and f.first_use - k.created_at < interval '24 hours')::int as h1_24,
            count(*) filter (where f.first_use - k.created_at >= interval '24 hours' and f.first_use - k.created_at < interval '7 days')::int as d1_7,
            count(*) filter (where f.first_use - k.created_at >= interval '7 days')::int as gt_7d,
            count(*) filter (where f.first_use is null)::int as never
       from api_keys k
       left join lateral (select min(e.created_at) as first_use from usage_events e where e.key_id = k.key_id) f on true
      group by k.plan`,
  );
  const buckets = {} as Record<Plan, Record<ActivationBucket | '>7d', number>>;
  for (const plan of PLANS) buckets[plan] = { '<1h': 0, '1h-24h': 0, '1d-7d': 0, '>7d': 0, never: 0 };
  for (const r of rows) {
    if (!(r.plan in buckets)) continue;
    buckets[r.plan as Plan] = { '<1h': r.lt_1h, '1h-24h': r.h1_24, '1d-7d': r.d1_7, '>7d': r.gt_7d, never: r.never };
  }
  return buckets;
}

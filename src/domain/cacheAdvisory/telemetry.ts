import type { Call } from '../call.js';
import { invalidInput } from '../errors.js';
import { CACHE_RULES, CACHE_RULES_AS_OF, minimumTokens, type CacheProvider } from './rules.js';
import { requireProvider } from './providers.js';
import { iso, type Instant } from '../../lib/time.js';

export interface CaptureInput {
  provider?: CacheProvider;
  model: string;
  input_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  prompt?: string;
  prefix_hash?: string;
  continuation_hash?: string;
  prefix_tokens?: number;
  occurred_at?: string;
}


/**
 * capture_cache_telemetry: stores one provider call's cache figures under the caller. With the prompt,
 * the service hashes its first prefix_tokens tokens (default: the model's minimum cacheable length)
 * and the rest in the pool; the text itself is not kept.
 */
export async function captureTelemetry(call: Call, userId: string, input: CaptureInput) {
  const provider = requireProvider(input.provider, input.model);
  if (input.cached_tokens > input.input_tokens) {
    throw invalidInput('cached_tokens cannot exceed input_tokens', [{ loc: ['cached_tokens'], msg: 'must be at most input_tokens', type: 'value_error.number.too_large' }]);
  }
  // A call reported from the future would stay "recent" in every window; allow some clock skew.
  if (input.occurred_at !== undefined && Date.parse(input.occurred_at) > Date.now() + 5 * 60_000) {
    throw invalidInput('occurred_at lies in the future', [{ loc: ['occurred_at'], msg: 'must not be more than 5 minutes ahead of server time', type: 'value_error.datetime.future' }]);
  }
  let prefixHash = input.prefix_hash ?? null;
  let continuationHash = input.continuation_hash ?? null;
  let prefixTokens = input.prefix_tokens ?? null;
  if (input.prompt !== undefined) {
    const h = await call.compute('cacheHash', { text: input.prompt, model: input.model, prefixTokens: input.prefix_tokens ?? minimumTokens(CACHE_RULES[provider], input.model) });
    prefixHash = h.prefix_hash;
    continuationHash = h.continuation_hash;
    prefixTokens = h.prefix_tokens;
  }
  const [row] = await call.services.db.query<{ id: string; occurred_at: unknown }>(
    `insert into cache_telemetry (user_id, provider, model, input_tokens, cached_tokens, cache_write_tokens, prefix_hash, prefix_tokens, continuation_hash, occurred_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, coalesce($10::timestamptz, now())) returning id, occurred_at`,
    [userId, provider, input.model, input.input_tokens, input.cached_tokens, input.cache_write_tokens, prefixHash, prefixTokens, continuationHash, input.occurred_at ?? null],
  );
  const [agg] = await call.services.db.query<{ requests: number; cached: number; input: number }>(
    `select count(*)::int as requests, coalesce(sum(cached_tokens), 0)::bigint as cached, coalesce(sum(input_tokens), 0)::bigint as input
       from cache_telemetry where user_id = $1 and prefix_hash = $2`,
    [userId, prefixHash],
  );
  return {
    telemetry_id: row!.id,
    provider,
    model: input.model,
    input_tokens: input.input_tokens,
    cached_tokens: input.cached_tokens,
    cache_write_tokens: input.cache_write_tokens,
    hit: input.cached_tokens > 0,
    prefix_hash: prefixHash,
    prefix_tokens: prefixTokens,
    continuation_hash: continuationHash,
    occurred_at: iso(row!.occurred_at as Instant),
    prefix_so_far: {
      requests: agg!.requests,
      token_hit_rate: Number(agg!.input) > 0 ? Math.round((Number(agg!.cached) / Number(agg!.input)) * 1000) / 1000 : 0,
    },
  };
}

export interface CollisionInput {
  days: number;
  provider?: CacheProvider;
  model?: string;
  min_requests: number;
  max_hit_rate: number;
  limit: number;
}

interface GroupRow {
  prefix_hash: string;
  provider: string;
  model: string;
  requests: number;
  hits: number;
  continuations: number;
  cached: string | number;
  input: string | number;
  prefix_tokens: number | null;
  first_seen: unknown;
  last_seen: unknown;
}

/**
 * list_prefix_collisions: the caller's prefixes (by hash) seen in several requests with different
 * continuations, or with a low hit rate. A prefix shared by different requests is what caching is for;
 * shared and still missing points to a prefix under the minimum, an expired TTL, or volatile content
 * inside the hashed prefix region of the provider's view.
 */
export async function listPrefixCollisions(call: Call, userId: string, input: CollisionInput) {
  const params: unknown[] = [userId, input.days, input.min_requests];
  let filter = '';
  if (input.provider) filter += ` and provider = $${params.push(input.provider)}`;
  if (input.model) filter += ` and model = $${params.push(input.model)}`;
  const rows = await call.services.db.query<GroupRow>(
    `select prefix_hash, provider, model, count(*)::int as requests,
            count(*) filter (where cached_tokens > 0)::int as hits,
            count(distinct continuation_hash)::int as continuations,
            sum(cached_tokens)::bigint as cached, sum(input_tokens)::bigint as input,
            max(prefix_tokens) as prefix_tokens, min(occurred_at) as first_seen, max(occurred_at) as last_seen
       from cache_telemetry
      where user_id = $1 and occurred_at >= now() - make_interval(days => $2::int)${filter}
      group by prefix_hash, provider, model
     having count(*) >= $3
      order by count(*) desc, prefix_hash
      limit 1000`,
    params,
  );
  const groups = rows.map((r) => {
    const cached = Number(r.cached);
    const total = Number(r.input);
    // The first request of a prefix is a write by nature: the hit share counts the ones after it.
    const requestHitRate = r.requests > 1 ? Math.min(1, r.hits / (r.requests - 1)) : 0;
    const tokenHitRate = total > 0 ? cached / total : 0;
    const issues: string[] = [];
    if (r.continuations > 1) issues.push('different_continuations');
    if (requestHitRate <= input.max_hit_rate) issues.push('low_hit_rate');
    const min = minimumTokens(CACHE_RULES[r.provider as CacheProvider] ?? CACHE_RULES.openai, r.model);
    let advice: string;
    if (!issues.includes('low_hit_rate')) advice = 'Shared prefix served from cache: working as intended.';
    else if (r.prefix_tokens !== null && r.prefix_tokens < min) advice = `The hashed prefix is ${r.prefix_tokens} tokens, under the ${min}-token minimum: grow the stable prefix.`;
    else if (r.continuations > 1) advice = 'Requests share this prefix but rarely hit: check for volatile content before the breakpoint (audit_prompt_cacheability), the breakpoint placement, and whether requests come within the TTL.';
    else advice = 'Repeated identical requests that miss: requests likely arrive after the TTL expired, or the model or tool definitions changed between them.';
    return {
      prefix_hash: r.prefix_hash,
      provider: r.provider,
      model: r.model,
      requests: r.requests,
      cache_hits: r.hits,
      distinct_continuations: r.continuations,
      request_hit_rate: Math.round(requestHitRate * 1000) / 1000,
      token_hit_rate: Math.round(tokenHitRate * 1000) / 1000,
      cached_tokens: cached,
      input_tokens: total,
      prefix_tokens: r.prefix_tokens,
      first_seen: iso(r.first_seen as Instant),
      last_seen: iso(r.last_seen as Instant),
      issues,
      advice,
    };
  });
  const flagged = groups.filter((g) => g.issues.length > 0);
  return {
    days: input.days,
    prefixes_seen: groups.length,
    collisions: flagged.slice(0, input.limit),
    truncated: flagged.length > input.limit,
    thresholds: { min_requests: input.min_requests, max_hit_rate: input.max_hit_rate },
    rules_as_of: CACHE_RULES_AS_OF,
  };
}

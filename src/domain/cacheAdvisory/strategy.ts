import { priceFor, type PriceTable } from '../../providers/llm/prices.js';
import type { Call } from '../call.js';
import { countTokensMany } from '../compression/tokens.js';
import { invalid } from '../errors.js';
import { CACHE_RULES, CACHE_RULES_AS_OF, cacheableTokens, minimumTokens, type CacheProvider, type CacheRules } from './rules.js';
import { requireProvider, TOKENIZER_NOTE } from './providers.js';

/** How often a segment's content changes, slowest first. */
export const CHANGE_RATES = ['never', 'daily', 'hourly', 'per_session', 'per_request'] as const;
export type ChangeRate = (typeof CHANGE_RATES)[number];

export interface Segment {
  name: string;
  text?: string;
  tokens?: number;
  changes: ChangeRate;
}

export interface StrategyInput {
  provider?: CacheProvider;
  model: string;
  segments: Segment[];
  requests: number;
  interval_seconds: number;
  input_usd_per_mtok?: number;
}

const usd = (x: number) => Math.round(x * 1e6) / 1e6;

/** Segments cached across requests: those that change no more than hourly (a TTL is at most an hour). */
const cachesAcrossRequests = (c: ChangeRate) => c === 'never' || c === 'daily' || c === 'hourly';

interface Plan {
  ttl_seconds: number;
  write_multiplier: number;
  misses: number;
  cost: number;
}

/** Cost of `requests` requests with a cached prefix of `cached` tokens at one TTL. */
function costAt(rules: CacheRules, ttl: number, input: StrategyInput, total: number, cached: number, price: number): Plan {
  const write = rules.price.cache_write[String(ttl)] ?? 1;
  // Within the TTL each request refreshes the cache (Anthropic) or finds it warm; past it, every request misses.
  const misses = cached === 0 ? input.requests : input.interval_seconds <= ttl ? 1 : input.requests;
  const hits = input.requests - misses;
  const perTok = price / 1e6;
  const cost = misses * cached * perTok * write + hits * cached * perTok * rules.price.cache_read + input.requests * (total - cached) * perTok;
  return { ttl_seconds: ttl, write_multiplier: write, misses, cost };
}

/**
 * advise_cache_strategy: an order for the prompt's segments (slowest-changing first), where to put
 * breakpoints, and what caching saves at the model's list price over the given traffic.
 */
export async function adviseCacheStrategy(call: Call, table: PriceTable, input: StrategyInput) {
  const provider = requireProvider(input.provider, input.model);
  const rules = CACHE_RULES[provider];
  const priceApi = provider === 'google' ? null : provider;
  const entry = priceApi ? priceFor(table, priceApi, input.model) : null;
  const price = input.input_usd_per_mtok ?? entry?.input_usd_per_mtok;
  if (price === undefined) {
    const known = table.entries.filter((e) => e.api === provider).map((e) => e.model);
    throw invalid(`No list price for ${input.model}; give input_usd_per_mtok${known.length ? ` or use one of: ${known.join(', ')}` : ''}`);
  }
  const texts = input.segments.filter((s) => s.tokens === undefined).map((s) => s.text!);
  const counted = await countTokensMany(call, texts, input.model);
  let k = 0;
  const segs = input.segments.map((s, i) => ({ ...s, index: i, tokens: s.tokens ?? counted[k++]! }));
  const rank = (c: ChangeRate) => CHANGE_RATES.indexOf(c);
  const ordered = [...segs].sort((a, b) => rank(a.changes) - rank(b.changes) || a.index - b.index);
  const reorder = ordered.some((s, i) => s.index !== i);
  const warnings: string[] = [];
  for (let i = 0; i < segs.length; i++) {
    const later = segs.slice(i + 1).filter((s) => rank(s.changes) < rank(segs[i]!.changes));
    if (later.length) warnings.push(`'${segs[i]!.name}' (${segs[i]!.changes}) comes before ${later.map((s) => `'${s.name}'`).join(', ')}, which change less often: each change of '${segs[i]!.name}' makes the provider re-read them at full price.`);
  }
  const total = segs.reduce((n, s) => n + s.tokens, 0);
  // Prefix boundaries in the recommended order, at each change of rate (the natural breakpoint places).
  const boundaries: { after: string; prefix_tokens: number; changes: ChangeRate }[] = [];
  let run = 0;
  ordered.forEach((s, i) => {
    run += s.tokens;
    const next = ordered[i + 1];
    if (cachesAcrossRequests(s.changes) && (!next || next.changes !== s.changes)) boundaries.push({ after: s.name, prefix_tokens: run, changes: s.changes });
  });
  const min = minimumTokens(rules, input.model);
  const usable = boundaries.filter((b) => b.prefix_tokens >= min);
  const stablePrefix = boundaries.length ? boundaries[boundaries.length - 1]!.prefix_tokens : 0;
  const cached = rules.mode === 'explicit' ? (usable.length ? usable[usable.length - 1]!.prefix_tokens : 0) : cacheableTokens(rules, input.model, stablePrefix);
  let breakpoints: { after_segment: string; prefix_tokens: number; reason: string }[] = [];
  if (rules.mode === 'explicit') {
    // The longest stable prefix first; earlier ones (up to the limit) keep a hit when a later stable part changes.
    breakpoints = usable.slice(-(rules.max_breakpoints ?? 4)).map((b) => ({
      after_segment: b.after,
      prefix_tokens: b.prefix_tokens,
      reason: b.changes === 'never' ? 'end of the content that never changes' : `end of the content that changes ${b.changes}`,
    }));
  }
  const plans = rules.ttl.options_seconds.filter((t) => rules.price.cache_write[String(t)] !== undefined).map((ttl) => costAt(rules, ttl, input, total, cached, price));
  const best = plans.reduce((a, b) => (b.cost < a.cost ? b : a));
  const without = input.requests * total * (price / 1e6);
  const recommendations: string[] = [];
  if (reorder) recommendations.push(`Order the segments ${ordered.map((s) => `'${s.name}'`).join(' -> ')}: slowest-changing first, within the provider's order ${rules.prefix_order.join(' -> ')}.`);
  if (cached === 0) recommendations.push(stablePrefix < min ? `The stable prefix (${stablePrefix} tokens) is under the ${min}-token minimum: caching cannot apply; grow the stable part or skip caching.` : 'Nothing stable to cache.');
  else if (best.misses === input.requests) recommendations.push(`Requests arrive every ${input.interval_seconds} s, longer than every TTL offered: the cache will be cold each time${rules.mode === 'explicit' ? '; do not mark breakpoints (writes cost extra)' : ''}.`);
  else if (rules.mode === 'explicit') recommendations.push(`Mark ${breakpoints.length} breakpoint(s) (${rules.marker}) with TTL ${best.ttl_seconds} s.`);
  else recommendations.push(`${provider} caches automatically: keep the ${cached}-token stable prefix byte-identical across requests.`);
  return {
    provider,
    model: input.model,
    segments: segs.map((s) => ({ name: s.name, tokens: s.tokens, changes: s.changes })),
    recommended_order: ordered.map((s) => s.name),
    reorder_needed: reorder,
    breakpoints,
    min_cacheable_tokens: min,
    total_tokens: total,
    cached_prefix_tokens: cached,
    ttl_seconds: best.ttl_seconds,
    expected: {
      requests: input.requests,
      cache_misses: best.misses,
      hit_rate: input.requests ? Math.round(((input.requests - best.misses) / input.requests) * 1000) / 1000 : 0,
      input_usd_per_mtok: price,
      price_source: input.input_usd_per_mtok !== undefined ? 'given' : `price table as of ${table.as_of} (${entry!.model}, from ${entry!.effective_from})`,
      cost_without_cache_usd: usd(without),
      cost_with_cache_usd: usd(best.cost),
      savings_usd: usd(without - best.cost),
      savings_percent: without > 0 ? Math.round(((without - best.cost) / without) * 1000) / 10 : 0,
      by_ttl: plans.map((p) => ({ ttl_seconds: p.ttl_seconds, write_multiplier: p.write_multiplier, cost_usd: usd(p.cost) })),
      read_multiplier: rules.price.cache_read,
      formula: 'misses x cached x price x write_multiplier + hits x cached x price x read_multiplier + requests x (total - cached) x price; one miss when requests come within the TTL, else every request misses',
    },
    warnings,
    recommendations,
    rules_as_of: CACHE_RULES_AS_OF,
    tokenizer_note: TOKENIZER_NOTE,
  };
}

// What compression saved a user, in tokens and in dollars at a model's list input price, and where more
// could be saved: the analytics tools get_savings_report, get_savings_inline, discover_savings and
// calculate_roi. Figures come from usage events (the same rows /v1/usage reads) and the dated price
// table of the provider layer (src/providers/llm/prices.ts).
import { FIDELITY_BUDGET } from '../../../workers/shared/fidelity.js';
import { savingsPercent } from '../../../workers/shared/stats.js';
import { priceFor, type PriceEntry, type PriceTable } from '../../providers/llm/index.js';
import type { Queryable } from '../../store/db.js';
import { invalid } from '../errors.js';
import { usageByCache, usageByClient, usageByFidelity, usageByModel, usageByTool, usageHistory } from './analytics.js';

/** Priced for dollars when the caller names no model and their traffic names none we price. */
export const DEFAULT_PRICING_MODEL = 'gpt-4o';

const usd = (tokens: number, perMtok: number) => Math.round(tokens * perMtok) / 1e6;

function priceOf(table: PriceTable, model: string): PriceEntry | null {
  for (const api of ['openai', 'anthropic', 'local']) {
    const e = priceFor(table, api, model);
    if (e) return e;
  }
  return null;
}

/** The model to price at: the one given, else the caller's most used priced model, else the default. */
async function pricingModel(db: Queryable, table: PriceTable, userId: string, days: number, model?: string) {
  if (model) {
    const entry = priceOf(table, model);
    if (!entry) throw invalid(`No price for model '${model}'; priced models: ${[...new Set(table.entries.map((e) => e.model))].join(', ')}`);
    return { model, entry };
  }
  for (const row of await usageByModel(db, userId, days)) {
    const entry = priceOf(table, row.model);
    if (entry) return { model: row.model, entry };
  }
  return { model: DEFAULT_PRICING_MODEL, entry: priceOf(table, DEFAULT_PRICING_MODEL)! };
}

export async function savingsReport(db: Queryable, table: PriceTable, userId: string, days: number, model?: string) {
  const [daily, byFidelity, byModel, byTool] = await Promise.all([
    usageHistory(db, userId, days),
    usageByFidelity(db, userId, days),
    usageByModel(db, userId, days),
    usageByTool(db, userId, days),
  ]);
  const priced = await pricingModel(db, table, userId, days, model);
  const calls = daily.reduce((s, d) => s + d.compressions, 0);
  const original = daily.reduce((s, d) => s + Number(d.original_tokens), 0);
  const compressed = daily.reduce((s, d) => s + Number(d.compressed_tokens), 0);
  const saved = daily.reduce((s, d) => s + Number(d.tokens_saved), 0);
  return {
    days,
    totals: { calls, original_tokens: original, compressed_tokens: compressed, tokens_saved: saved, savings_percent: savingsPercent(original, original - saved) },
    priced_at: { model: priced.model, priced_as: priced.entry.model, input_usd_per_mtok: priced.entry.input_usd_per_mtok, price_table_as_of: table.as_of },
    usd_saved: usd(saved, priced.entry.input_usd_per_mtok),
    by_fidelity: byFidelity.map((r) => ({ ...r, original_tokens: Number(r.original_tokens), tokens_saved: Number(r.tokens_saved) })),
    by_model: byModel.map((r) => ({ ...r, original_tokens: Number(r.original_tokens), tokens_saved: Number(r.tokens_saved) })),
    top_tools: byTool.slice(0, 10).map((r) => ({ ...r, tokens_saved: Number(r.tokens_saved) })),
    daily: daily.map((d) => ({ date: d.date, calls: d.compressions, tokens_saved: Number(d.tokens_saved) })),
  };
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** One sentence an agent can put in its reply, and the figures behind it. */
export async function savingsInline(db: Queryable, table: PriceTable, userId: string, days: number, model?: string) {
  const r = await savingsReport(db, table, userId, days, model);
  const period = days === 1 ? 'the last day' : `the last ${days} days`;
  const text =
    r.totals.calls === 0
      ? `No compressions in ${period}.`
      : `Saved ${fmt(r.totals.tokens_saved)} tokens (${r.totals.savings_percent}%) on ${fmt(r.totals.calls)} call${r.totals.calls === 1 ? '' : 's'} in ${period}, about $${r.usd_saved.toFixed(2)} at ${r.priced_at.model} input prices.`;
  return { text, days, calls: r.totals.calls, tokens_saved: r.totals.tokens_saved, savings_percent: r.totals.savings_percent, usd_saved: r.usd_saved, model: r.priced_at.model };
}

export interface Opportunity {
  kind: 'higher_fidelity_than_needed' | 'calls_that_saved_nothing' | 'uncached_repeats';
  detail: string;
  calls: number;
  /** Tokens a month the change would save, estimated from the period's traffic; 0 when it saves latency, not tokens. */
  est_monthly_tokens_saved: number;
  est_monthly_usd_saved: number;
}

/**
 * Where this user's traffic would save most: calls at detailed or raw that a lower level would have
 * served (estimated at balanced's share), tools whose calls saved nothing (skip them: should_compress),
 * and the cache hit rate. Ranked by the estimated monthly saving.
 */
export async function discoverSavings(db: Queryable, table: PriceTable, userId: string, days: number, model?: string) {
  const [byFidelity, byTool, cache] = await Promise.all([usageByFidelity(db, userId, days), compressingTools(db, userId, days), usageByCache(db, userId, days)]);
  const priced = await pricingModel(db, table, userId, days, model);
  const perMonth = 30 / days;
  const found: Opportunity[] = [];
  for (const r of byFidelity) {
    if (r.fidelity !== 'detailed' && r.fidelity !== 'raw') continue;
    const original = Number(r.original_tokens);
    const kept = original - Number(r.tokens_saved);
    const atBalanced = Math.round(original * FIDELITY_BUDGET.balanced);
    const tokens = Math.max(0, Math.round((kept - atBalanced) * perMonth));
    if (tokens > 0) {
      found.push({
        kind: 'higher_fidelity_than_needed',
        detail: `${fmt(r.compressions)} calls at ${r.fidelity} kept ${fmt(kept)} of ${fmt(original)} tokens; at balanced they would keep about ${fmt(atBalanced)} (check a sample with verify_compression first)`,
        calls: r.compressions,
        est_monthly_tokens_saved: tokens,
        est_monthly_usd_saved: usd(tokens, priced.entry.input_usd_per_mtok),
      });
    }
  }
  for (const t of byTool) {
    if (t.zero_savings_calls === 0 || t.zero_savings_calls < t.calls / 2) continue;
    found.push({
      kind: 'calls_that_saved_nothing',
      detail: `${fmt(t.zero_savings_calls)} of ${fmt(t.calls)} calls of ${t.tool_name} saved no tokens: their inputs are already short or compact; ask should_compress first and skip them to save the round trip`,
      calls: t.zero_savings_calls,
      est_monthly_tokens_saved: 0,
      est_monthly_usd_saved: 0,
    });
  }
  if (cache.misses > 0 && cache.hits / (cache.hits + cache.misses) < 0.05 && cache.misses >= 20) {
    found.push({
      kind: 'uncached_repeats',
      detail: `${fmt(cache.misses)} compressions missed the semantic cache (hit rate ${((100 * cache.hits) / (cache.hits + cache.misses)).toFixed(1)}%): repeated documents compressed with the same fidelity and query are answered from the cache (Pro and above)`,
      calls: cache.misses,
      est_monthly_tokens_saved: 0,
      est_monthly_usd_saved: 0,
    });
  }
  found.sort((a, b) => b.est_monthly_tokens_saved - a.est_monthly_tokens_saved || b.calls - a.calls);
  return { days, priced_at: { model: priced.model, input_usd_per_mtok: priced.entry.input_usd_per_mtok, price_table_as_of: table.as_of }, opportunities: found };
}

/** Calls per tool that were meant to compress (advisory calls such as estimates and reports save nothing by design). */
async function compressingTools(db: Queryable, userId: string, days: number) {
  return db.query<{ tool_name: string; calls: number; zero_savings_calls: number }>(
    `select coalesce(tool_name, 'rest-api') as tool_name, count(*)::int as calls,
            count(*) filter (where input_tokens <= output_tokens)::int as zero_savings_calls
       from usage_events where user_id = $1 and method <> 'mcp_advisory' and status = 'success' and created_at >= now() - make_interval(days => $2::int)
      group by 1 order by calls desc, tool_name`,
    [userId, days],
  );
}

export interface RoiInput {
  monthly_input_tokens?: number;
  model?: string;
  savings_percent?: number;
  monthly_service_cost_usd: number;
}

/**
 * Return on the service for a month of traffic: provider input cost without and with compression at
 * the model's list price, less what the service costs. Defaults come from the caller's last 30 days.
 */
export async function calculateRoi(db: Queryable, table: PriceTable, userId: string, input: RoiInput) {
  const recent = await savingsReport(db, table, userId, 30, input.model);
  const tokens = input.monthly_input_tokens ?? recent.totals.original_tokens;
  const savings = input.savings_percent ?? (recent.totals.calls > 0 ? recent.totals.savings_percent : Math.round((1 - FIDELITY_BUDGET.balanced) * 100));
  const perMtok = recent.priced_at.input_usd_per_mtok;
  const without = usd(tokens, perMtok);
  const withCompression = usd(Math.round(tokens * (1 - savings / 100)), perMtok);
  const gross = Math.round((without - withCompression) * 1e6) / 1e6;
  const net = Math.round((gross - input.monthly_service_cost_usd) * 1e6) / 1e6;
  return {
    monthly_input_tokens: tokens,
    savings_percent: savings,
    source: {
      monthly_input_tokens: input.monthly_input_tokens === undefined ? 'last 30 days of usage' : 'given',
      savings_percent: input.savings_percent !== undefined ? 'given' : recent.totals.calls > 0 ? 'measured over the last 30 days' : 'balanced fidelity budget',
    },
    priced_at: recent.priced_at,
    monthly_cost_without_usd: without,
    monthly_cost_with_usd: withCompression,
    monthly_gross_saving_usd: gross,
    monthly_service_cost_usd: input.monthly_service_cost_usd,
    monthly_net_saving_usd: net,
    roi_percent: input.monthly_service_cost_usd > 0 ? Math.round((net / input.monthly_service_cost_usd) * 1000) / 10 : null,
  };
}

/** Savings per surface (REST, MCP, batch), for get_compression_insights. */
async function usageBySurface(db: Queryable, userId: string, days: number) {
  return db.query<{ method: string; calls: number; original_tokens: number; tokens_saved: number }>(
    `select method, count(*)::int as calls, coalesce(sum(input_tokens), 0)::int8 as original_tokens,
            coalesce(sum(greatest(input_tokens - output_tokens, 0)), 0)::int8 as tokens_saved
       from usage_events where user_id = $1 and method <> 'mcp_advisory' and status = 'success' and created_at >= now() - make_interval(days => $2::int)
      group by 1 order by calls desc, method`,
    [userId, days],
  );
}

/**
 * get_compression_insights: where the savings come from (by fidelity, model, surface, client, cache)
 * and a few plain findings drawn from those figures.
 */
export async function compressionInsights(db: Queryable, userId: string, days: number) {
  const [byFidelity, byModel, bySurface, byClient, cache] = await Promise.all([
    usageByFidelity(db, userId, days),
    usageByModel(db, userId, days),
    usageBySurface(db, userId, days),
    usageByClient(db, userId, days),
    usageByCache(db, userId, days),
  ]);
  const num = <T extends Record<string, unknown>>(rows: T[]) =>
    rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' || (typeof v === 'string' && /tokens/.test(k)) ? Number(v) : v])));
  const findings: string[] = [];
  const calls = bySurface.reduce((s, r) => s + r.calls, 0);
  if (calls === 0) findings.push(`No compressions in the last ${days} days.`);
  else {
    const best = [...byFidelity].filter((f) => f.fidelity !== 'none').sort((a, b) => Number(b.tokens_saved) - Number(a.tokens_saved))[0];
    if (best) findings.push(`Most tokens were saved at ${best.fidelity}: ${fmt(Number(best.tokens_saved))} over ${fmt(best.compressions)} calls (average ${best.avg_savings_percent}% per call).`);
    const top = bySurface[0]!;
    findings.push(`${Math.round((100 * top.calls) / calls)}% of the calls came over ${top.method}.`);
    const total = cache.hits + cache.misses;
    if (total > 0) findings.push(`The semantic cache answered ${((100 * cache.hits) / total).toFixed(1)}% of cacheable compressions.`);
  }
  return {
    days,
    by_fidelity: num(byFidelity),
    by_model: num(byModel),
    by_surface: num(bySurface),
    by_client: num(byClient),
    cache: { hits: cache.hits, misses: cache.misses, tokens_saved_hits: Number(cache.tokens_saved_hits) },
    findings,
  };
}

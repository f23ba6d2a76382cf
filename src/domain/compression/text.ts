import { requirePlan } from '../../auth/plans.js';
import { CACHE_TTL_MS, cacheKey } from '../../cache/semanticCache.js';
import type { Fidelity } from '../../../workers/shared/fidelity.js';
import type { DetectResult } from '../../../workers/detect/index.js';
import type { Call } from '../call.js';
import type { TaskOutput } from '../ports/compute.js';
import { itemError } from '../compute.js';
import { detectIssues, DETECTION_PLANS } from './detection.js';
import { rememberMarkers } from './markerStore.js';
import { preserveOriginal, PRESERVE_ABOVE_SAVINGS } from './originals.js';

export interface CompressRequest {
  text: string;
  fidelity: Fidelity;
  query?: string | null;
  model?: string | null;
  /** Also check the output with issue detection (Pro or Enterprise, like /v1/detect-issues). */
  include_quality?: boolean;
}

/** The CompressResponse body; deterministic for a given request, so the cache can store it verbatim. */
export interface CompressResponse {
  compressed_text: string;
  original_tokens: number;
  compressed_tokens: number;
  tokens_saved: number;
  savings_percent: number;
  compression_ratio: number;
  fidelity: Fidelity;
  mode: 'plain' | 'query-guided';
  tokenizer: string;
  /** Set when more than 80% was removed: fetch the original again with get_original_output. */
  original_id: string | null;
  /** Present when the output passes its level's budget (budgetFor): that budget, and why (workers/text OverBudget). */
  budget_tokens?: number;
  over_budget?: 'short_input' | 'not_shorter';
  /** Present when include_quality was asked: issue detection run on this very output. */
  quality?: { quality_score: number; issues_found: number; issues: DetectResult['issues'] };
}

/**
 * Text compression, the use case behind /v1/compress, batch documents and the MCP text tools:
 * plan (for include_quality), quota, the pool, the preserved original above 80% savings, metrics,
 * and the call's usage figures.
 */
export async function compressText(call: Call, request: CompressRequest): Promise<CompressResponse> {
  await admitCompression(call, request);
  const started = performance.now();
  const result = await call.compute('compress', engineInput(request), { field: 'text' });
  return completeCompression(call, request, result, performance.now() - started);
}

/** What a compression checks before it runs: the plan (for include_quality) and the quota. */
async function admitCompression(call: Call, request: CompressRequest): Promise<void> {
  if (request.include_quality) requirePlan(call.principal.plan, DETECTION_PLANS);
  await call.requireQuota();
}

const engineInput = (request: CompressRequest) =>
  ({ text: request.text, fidelity: request.fidelity, query: request.query ?? null, model: request.model ?? null, markerIds: true });

/** After the engine: markers, the preserved original above 80% savings, metrics, quality, usage figures, the response. */
async function completeCompression(call: Call, request: CompressRequest, result: TaskOutput<'compress'>, computeMs: number): Promise<CompressResponse> {
  const { services, principal } = call;
  const started = performance.now() - computeMs;
  rememberMarkers(services, principal.userId, request.text, result.markers);
  const originalId =
    result.savings_percent > PRESERVE_ABOVE_SAVINGS
      ? await preserveOriginal(services.db, principal.userId, request.text, result.original_tokens)
      : null;
  services.metrics.observeCompress('compress', (performance.now() - started) / 1000);
  const quality = request.include_quality
    ? await detectIssues(call, { original_text: request.text, compressed_text: result.compressed_text || ' ' })
    : null;
  call.report({
    inputTokens: result.original_tokens,
    outputTokens: result.compressed_tokens,
    fidelity: request.fidelity,
    model: request.model ?? null,
    inputText: request.text,
  });
  return {
    compressed_text: result.compressed_text,
    original_tokens: result.original_tokens,
    compressed_tokens: result.compressed_tokens,
    tokens_saved: result.tokens_saved,
    savings_percent: result.savings_percent,
    compression_ratio: result.ratio,
    fidelity: result.fidelity,
    mode: result.mode,
    tokenizer: result.tokenizer,
    original_id: originalId,
    ...(result.over_budget ? { budget_tokens: result.budget_tokens, over_budget: result.over_budget } : {}),
    ...(quality ? { quality: { quality_score: quality.quality_score, issues_found: quality.issues_found, issues: quality.issues } } : {}),
  };
}

/**
 * prune_by_relevance: what a text says about a query, within a firm token budget (or balanced's when
 * none is given); units are ranked by the query (BM25 and embeddings fused) and dropped whole, with
 * elision markers. Same quota, preservation of the original above 80% savings, and usage as compressText.
 */
export async function pruneByRelevance(call: Call, request: { text: string; query: string; budget_tokens?: number; model?: string | null }) {
  await call.requireQuota();
  const result = await call.compute(
    'compress',
    { text: request.text, fidelity: 'balanced', query: request.query, model: request.model ?? null, budgetTokens: request.budget_tokens ?? null, markerIds: true },
    { field: 'text' },
  );
  rememberMarkers(call.services, call.principal.userId, request.text, result.markers);
  const originalId =
    result.savings_percent > PRESERVE_ABOVE_SAVINGS ? await preserveOriginal(call.services.db, call.principal.userId, request.text, result.original_tokens) : null;
  call.report({ inputTokens: result.original_tokens, outputTokens: result.compressed_tokens, model: request.model ?? null, inputText: request.query });
  return {
    pruned_text: result.compressed_text,
    query: request.query,
    budget_tokens: request.budget_tokens ?? null,
    original_tokens: result.original_tokens,
    pruned_tokens: result.compressed_tokens,
    tokens_saved: result.tokens_saved,
    savings_percent: result.savings_percent,
    units_total: result.units_total,
    units_kept: result.units_kept,
    tokenizer: result.tokenizer,
    original_id: originalId,
  };
}

export interface CachedCompression {
  /** The response body bytes: identical on a hit to what the miss sent. */
  body: Uint8Array;
  cache: 'hit' | 'miss' | 'bypass';
}

/** The semantic cache in front of compressText (Pro and up; Free bypasses it). */
export async function compressTextCached(call: Call, request: CompressRequest): Promise<CachedCompression> {
  const { services, principal } = call;
  const ttl = CACHE_TTL_MS[principal.plan];
  const key = ttl === null ? null : cacheKey(principal.userId, request);
  if (key) {
    const hit = await services.cache.get(key);
    services.metrics.observeCache(!!hit);
    if (hit) {
      await call.requireQuota();
      call.report({
        inputTokens: hit.originalTokens,
        outputTokens: hit.compressedTokens,
        fidelity: request.fidelity,
        model: request.model ?? null,
        inputText: request.text,
        cacheHit: true,
      });
      return { body: hit.body, cache: 'hit' };
    }
  }
  const response = await compressText(call, request);
  const body = Buffer.from(JSON.stringify(response));
  if (key && ttl) await services.cache.set(key, { body, originalTokens: response.original_tokens, compressedTokens: response.compressed_tokens }, ttl);
  return { body, cache: key ? 'miss' : 'bypass' };
}

/** One document's outcome in a group: its response, or the error compressText would have thrown. */
export type GroupOutcome = { response: CompressResponse } | { error: unknown };

/**
 * compressText for several documents, each its own call (quota, markers, original, usage figures),
 * with their engine work in one pool task run by `parent` (its cancellation and fair share): the pool's
 * hand-off is paid once per group, not per document. Each call's quota is checked before the group
 * runs, so a key whose quota is counted would see none of the group's own calls in its count: callers
 * group only keys without one (quotaUncounted).
 */
export async function compressTextGroup(parent: Call, calls: readonly Call[], requests: readonly CompressRequest[]): Promise<GroupOutcome[]> {
  const outcomes: GroupOutcome[] = new Array(requests.length);
  const admitted: number[] = [];
  await Promise.all(requests.map((r, i) => admitCompression(calls[i]!, r).then(() => void admitted.push(i), (error: unknown) => void (outcomes[i] = { error }))));
  admitted.sort((a, b) => a - b);
  if (admitted.length) {
    const started = performance.now();
    const results = await parent.compute('compressEach', { items: admitted.map((i) => engineInput(requests[i]!)) }, { field: 'text' });
    const share = (performance.now() - started) / admitted.length;
    await Promise.all(admitted.map(async (i, k) => {
      const r = results[k]!;
      try {
        if (!r.ok) throw itemError(r.error, 'text');
        outcomes[i] = { response: await completeCompression(calls[i]!, requests[i]!, r.value, share) };
      } catch (error) {
        outcomes[i] = { error };
      }
    }));
  }
  return outcomes;
}

/** Several independent compressions in one pool task (no quota or usage of their own: the caller's use case owns those). */
export async function compressParts(call: Call, items: { text: string; fidelity: Fidelity }[]) {
  if (items.length === 0) return [];
  const results = await call.compute('compressMany', { items: items.map((i) => ({ ...i, query: null, model: null, markerIds: true })) });
  results.forEach((r, k) => rememberMarkers(call.services, call.principal.userId, items[k]!.text, r.markers));
  return results;
}

import type { Principal } from '../../auth/principal.js';
import { CACHE_TTL_MS, cacheKey } from '../../cache/semanticCache.js';
import type { Services } from '../../services.js';
import type { Fidelity } from '../../../workers/shared/fidelity.js';
import { preserveOriginal, PRESERVE_ABOVE_SAVINGS } from './originals.js';
import { enforceQuota } from '../accounts/quota.js';
import { detectForCaller, DETECTION_PLANS } from './detection.js';
import { requirePlan } from '../../auth/plans.js';
import type { DetectResult } from '../../../workers/detect/index.js';

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
  /** Present when include_quality was asked: issue detection run on this very output. */
  quality?: { quality_score: number; issues_found: number; issues: DetectResult['issues'] };
}

/**
 * Runs one compression in the pool (after the caller's quota check) and keeps the original when
 * more than 80% was removed. Recording the usage event is the transport's job.
 */
export async function compressForCaller(
  services: Services,
  principal: Principal,
  request: CompressRequest,
  signal?: AbortSignal,
): Promise<CompressResponse> {
  if (request.include_quality) requirePlan(principal.plan, DETECTION_PLANS);
  await enforceQuota(services, principal);
  const started = performance.now();
  const result = await services.pool.run(
    'compress',
    { text: request.text, fidelity: request.fidelity, query: request.query ?? null, model: request.model ?? null },
    signal,
  );
  const originalId =
    result.savings_percent > PRESERVE_ABOVE_SAVINGS
      ? await preserveOriginal(services.db, principal.userId, request.text, result.original_tokens)
      : null;
  services.metrics.observeCompress('compress', (performance.now() - started) / 1000);
  const quality = request.include_quality
    ? await detectForCaller(services, principal, { original_text: request.text, compressed_text: result.compressed_text || ' ' }, signal)
    : null;
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
    ...(quality ? { quality: { quality_score: quality.quality_score, issues_found: quality.issues_found, issues: quality.issues } } : {}),
  };
}

export interface CachedCompression {
  /** The response body bytes: identical on a hit to what the miss sent. */
  body: Uint8Array;
  cache: 'hit' | 'miss' | 'bypass';
  originalTokens: number;
  compressedTokens: number;
}

/** The semantic cache in front of compressForCaller (Pro and up; Free bypasses it). */
export async function compressThroughCache(
  services: Services,
  principal: Principal,
  request: CompressRequest,
  signal?: AbortSignal,
): Promise<CachedCompression> {
  const ttl = CACHE_TTL_MS[principal.plan];
  const key = ttl === null ? null : cacheKey(principal.userId, request);
  if (key) {
    const hit = await services.cache.get(key);
    services.metrics.observeCache(!!hit);
    if (hit) {
      await enforceQuota(services, principal);
      return { body: hit.body, cache: 'hit', originalTokens: hit.originalTokens, compressedTokens: hit.compressedTokens };
    }
  }
  const response = await compressForCaller(services, principal, request, signal);
  const body = Buffer.from(JSON.stringify(response));
  const entry = { body, originalTokens: response.original_tokens, compressedTokens: response.compressed_tokens };
  if (key && ttl) await services.cache.set(key, entry, ttl);
  return { ...entry, cache: key ? 'miss' : 'bypass' };
}

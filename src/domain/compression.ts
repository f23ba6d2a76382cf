import type { Principal } from '../auth/principal.js';
import type { Services } from '../services.js';
import type { Fidelity } from '../../workers/shared/fidelity.js';
import { recordUsageEvent, type UsageMethod } from './usage.js';
import { preserveOriginal, PRESERVE_ABOVE_SAVINGS } from './originals.js';

export interface CompressRequest {
  text: string;
  fidelity: Fidelity;
  query?: string | null;
  model?: string | null;
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
}

/** Runs one compression in the pool, keeps the original when required, and records the usage event. */
export async function compressForCaller(
  services: Services,
  principal: Principal,
  request: CompressRequest,
  meta: { method: UsageMethod; toolName?: string | null; client?: string | null; signal?: AbortSignal },
): Promise<CompressResponse> {
  const started = performance.now();
  const result = await services.pool.run(
    'compress',
    { text: request.text, fidelity: request.fidelity, query: request.query ?? null, model: request.model ?? null },
    meta.signal,
  );
  const originalId =
    result.savings_percent > PRESERVE_ABOVE_SAVINGS
      ? await preserveOriginal(services.db, principal.userId, request.text, result.original_tokens)
      : null;
  const seconds = (performance.now() - started) / 1000;
  services.metrics.observeCompress('compress', seconds);
  services.background.add(
    'usage event',
    recordUsageEvent(services.db, {
      principal,
      method: meta.method,
      toolName: meta.toolName,
      client: meta.client,
      fidelity: request.fidelity,
      model: request.model,
      status: 'success',
      inputTokens: result.original_tokens,
      outputTokens: result.compressed_tokens,
      latencyMs: seconds * 1000,
      inputText: request.text,
    }),
  );
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
  };
}

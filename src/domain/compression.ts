import type { Principal } from '../auth/principal.js';
import type { Services } from '../services.js';
import type { Fidelity } from '../../workers/shared/fidelity.js';
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

/**
 * Runs one compression in the pool and keeps the original when more than 80% was removed.
 * Recording the usage event is the transport's job (REST, MCP and batch label it differently).
 */
export async function compressForCaller(
  services: Services,
  principal: Principal,
  request: CompressRequest,
  signal?: AbortSignal,
): Promise<CompressResponse> {
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

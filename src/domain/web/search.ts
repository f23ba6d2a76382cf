// gc_web_search: the caller's own search-provider key is passed through to the provider (one request
// header) and is never logged, stored or returned. Results are re-ranked for the query in the pool
// and compressed into one query-guided context block.
import { braveWebSearch, SearchProviderError, type BraveHttpGet } from '../../providers/search/brave.js';
import type { Fidelity } from '../../../workers/shared/fidelity.js';
import type { Call } from '../call.js';
import { compressText } from '../compression/text.js';
import { DomainError, invalid } from '../errors.js';
import { guardedGet, refusal } from './guard.js';

export const SEARCH_PROVIDERS = ['brave'] as const;

export interface SearchInput {
  query: string;
  api_key: string;
  count: number;
  fidelity: Fidelity;
}

function providerError(err: SearchProviderError): DomainError {
  if (err.code === 'search_key_rejected') return invalid(`${err.code}: ${err.message}`, { code: err.code });
  if (err.code === 'search_rate_limited') return new DomainError('rate_limited', `${err.code}: ${err.message}`, { code: err.code, retryAfter: 1 });
  return new DomainError('unavailable', `${err.code}: ${err.message}`, { code: err.code, retryAfter: 1 });
}

export async function webSearch(call: Call, input: SearchInput) {
  const settings = call.services.config.web;
  const query = input.query.trim();
  if (!query) throw invalid('query must not be blank');
  await call.requireQuota();
  // No redirects: a redirect would carry the key's header to a host the caller did not choose.
  const get: BraveHttpGet = async (url, headers) => {
    const r = await guardedGet(settings, url, { accept: ['application/json'], headers, keepErrorStatus: true, maxRedirects: 0 }).catch((err) => refusal(err, 'search provider'));
    return { status: r.status, body: r.body };
  };
  let hits;
  try {
    hits = await braveWebSearch(get, settings.searchBaseUrl, input.api_key, query, input.count);
  } catch (err) {
    if (err instanceof SearchProviderError) throw providerError(err);
    throw err;
  }
  const ranked = hits.length ? await call.compute('webRankHits', { query, hits: hits.map(({ title, url, snippet }) => ({ title, url, snippet })) }) : [];
  const results = ranked.map((r, i) => ({ rank: i + 1, title: r.title, url: r.url, snippet: r.snippet, provider_rank: r.provider_rank, lexical_score: r.lexical_score, score: r.score }));
  const block = results.map((r) => `## ${r.title}\n\n${r.url}\n\n${r.snippet}`).join('\n\n');
  const context = block ? await compressText(call, { text: block, fidelity: input.fidelity, query }) : null;
  call.report({ inputTokens: context?.original_tokens ?? 0, outputTokens: context?.compressed_tokens ?? 0, fidelity: input.fidelity, inputText: query });
  return {
    provider: 'brave' as const,
    query,
    result_count: results.length,
    results,
    context: context?.compressed_text ?? '',
    original_tokens: context?.original_tokens ?? 0,
    compressed_tokens: context?.compressed_tokens ?? 0,
    savings_percent: context?.savings_percent ?? 0,
  };
}

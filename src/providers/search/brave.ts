// Client of the Brave Search API's web search (GET /res/v1/web/search, key in X-Subscription-Token).
// The key is the caller's: it goes into that one header and nowhere else (no log line, no error
// message, no stored row). The transport is injected so the caller's SSRF guard carries the request.

export interface BraveHttpGet {
  (url: string, headers: Record<string, string>): Promise<{ status: number; body: string }>;
}

export interface BraveResult {
  title: string;
  url: string;
  /** description and extra_snippets, HTML tags removed. */
  snippet: string;
  age: string | null;
}

/** The provider's answer to a request it refused: status and a message safe to show (never the key). */
export class SearchProviderError extends Error {
  override name = 'SearchProviderError';
  constructor(
    readonly status: number,
    readonly code: 'search_key_rejected' | 'search_rate_limited' | 'search_provider_error' | 'search_bad_response',
    message: string,
  ) {
    super(message);
  }
}

export const BRAVE_MAX_COUNT = 20;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/** Brave marks query terms with <strong>; snippets are plain text for the caller. */
export function plainSnippet(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+\d*);/gi, (m, e: string) => {
      if (e[0] === '#') {
        const n = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1));
        return Number.isFinite(n) && n > 0 && n < 0x110000 ? String.fromCodePoint(n) : m;
      }
      return ENTITIES[e.toLowerCase()] ?? m;
    })
    .replace(/\s+/g, ' ')
    .trim();
}

export async function braveWebSearch(get: BraveHttpGet, baseUrl: string, apiKey: string, query: string, count: number): Promise<BraveResult[]> {
  const url = `${baseUrl}/res/v1/web/search?${new URLSearchParams({ q: query, count: String(Math.min(BRAVE_MAX_COUNT, Math.max(1, count))) })}`;
  const res = await get(url, { accept: 'application/json', 'x-subscription-token': apiKey });
  if (res.status === 401 || res.status === 403) throw new SearchProviderError(res.status, 'search_key_rejected', `the search provider rejected the API key (HTTP ${res.status})`);
  if (res.status === 429) throw new SearchProviderError(res.status, 'search_rate_limited', 'the search provider rate-limited this key (HTTP 429); retry later');
  if (res.status < 200 || res.status >= 300) throw new SearchProviderError(res.status, 'search_provider_error', `the search provider answered HTTP ${res.status}`);
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    throw new SearchProviderError(res.status, 'search_bad_response', 'the search provider answered with invalid JSON');
  }
  const results = (body as { web?: { results?: unknown } } | null)?.web?.results;
  if (results === undefined) return [];
  if (!Array.isArray(results)) throw new SearchProviderError(res.status, 'search_bad_response', 'the search provider answered without a web.results array');
  const out: BraveResult[] = [];
  for (const r of results as Record<string, unknown>[]) {
    if (!r || typeof r.url !== 'string' || typeof r.title !== 'string') continue;
    const extra = Array.isArray(r.extra_snippets) ? r.extra_snippets.filter((s): s is string => typeof s === 'string') : [];
    const snippet = [typeof r.description === 'string' ? r.description : '', ...extra].map(plainSnippet).filter(Boolean).join(' … ');
    out.push({ title: plainSnippet(r.title), url: r.url, snippet, age: typeof r.age === 'string' ? r.age : null });
  }
  return out;
}

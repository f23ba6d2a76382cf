// The web area's outbound fetch: every hop of a redirect chain is checked again (scheme, host,
// public address, pinned connection), the body is capped, the whole chain has one deadline and the
// content type must be one the caller accepts. Hosts the operator allowed (WEB_ALLOWED_HOSTS,
// host:port) skip the public-address check and may use http: that is how tests reach their local
// servers; nothing else on loopback or a private range is ever fetched.
import type { IncomingHttpHeaders } from 'node:http';
import type { WebSettings } from '../../config.js';
import { DomainError, invalid } from '../errors.js';
import { checkOutboundUrl, FetchRefusedError, getOnce, vetHost } from '../platform/ssrf.js';

export interface GuardedFetchOptions {
  /** Accepted media types (lower case, without parameters); a response of another type is refused. */
  accept: readonly string[];
  headers?: Record<string, string>;
  maxBytes?: number;
  timeoutMs?: number;
  maxRedirects?: number;
  /** Return a 4xx/5xx answer (body capped like any other) instead of refusing it (API clients map statuses themselves). */
  keepErrorStatus?: boolean;
}

export interface FetchedPage {
  status: number;
  body: string;
  bytes: number;
  contentType: string | null;
  finalUrl: string;
  etag: string | null;
  lastModified: string | null;
}

/** Parses a URL and says whether it is an operator-allowed host; refuses bad schemes and credentials. */
export function checkWebUrl(settings: WebSettings, raw: string, field = 'url'): { url: URL; allowed: boolean } {
  return checkOutboundUrl(raw, settings.allowedHosts, field);
}

/** A refusal as the tool error callers see: invalid_input with code fetch_refused and the reason. */
export function refusal(err: unknown, what = 'url'): never {
  if (err instanceof FetchRefusedError) {
    throw invalid(`fetch_refused (${err.reason}): ${what}: ${err.message}`, { code: 'fetch_refused', extra: { reason: err.reason } });
  }
  throw err;
}

export function mediaType(contentType: string | null): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

const WEB_HEADERS = { 'user-agent': 'semantic-compression-service/web', accept: 'text/html, application/xhtml+xml, application/xml;q=0.9, */*;q=0.5' };

/**
 * GET with the SSRF guard. Conditional headers (If-None-Match ...) may be passed in `headers`; a 304
 * comes back as status 304 with an empty body. Throws FetchRefusedError for every refusal, or
 * DomainError unsupported_content_type.
 */
export async function guardedGet(settings: WebSettings, raw: string, options: GuardedFetchOptions): Promise<FetchedPage> {
  const maxBytes = options.maxBytes ?? settings.maxBytes;
  const deadline = Date.now() + (options.timeoutMs ?? settings.timeoutMs);
  let { url, allowed } = checkWebUrl(settings, raw);
  for (let hop = 0; hop <= (options.maxRedirects ?? 5); hop++) {
    const pinned = allowed ? null : await vetHost(url.hostname);
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new FetchRefusedError('timeout', 'fetch timed out');
    const res = await getOnce(url, { pinned, maxBytes, timeoutMs: remaining, headers: { ...WEB_HEADERS, ...options.headers }, keepErrorStatus: options.keepErrorStatus ?? false });
    if (res.location !== null) {
      // Every redirect target goes through the same checks as the first URL.
      ({ url, allowed } = checkWebUrl(settings, new URL(res.location, url).toString(), 'redirect target'));
      continue;
    }
    const type = mediaType(res.contentType);
    if (res.status >= 200 && res.status < 300 && !options.accept.includes(type)) {
      throw new DomainError('invalid', `unsupported_content_type: ${url.toString()} answered ${type || 'no content type'}; accepted: ${options.accept.join(', ')}`, {
        code: 'unsupported_content_type',
      });
    }
    return {
      status: res.status,
      body: res.body,
      bytes: Buffer.byteLength(res.body),
      contentType: res.contentType,
      finalUrl: url.toString(),
      etag: header(res.headers, 'etag'),
      lastModified: header(res.headers, 'last-modified'),
    };
  }
  throw new FetchRefusedError('redirect', 'too many redirects');
}

function header(h: IncomingHttpHeaders, name: string): string | null {
  const v = h[name];
  return typeof v === 'string' ? v : Array.isArray(v) ? (v[0] ?? null) : null;
}

// The web area's outbound fetch: every hop of a redirect chain is checked again (scheme, host,
// public address, pinned connection), the body is capped, the whole chain has one deadline and the
// content type must be one the caller accepts. Hosts the operator allowed (WEB_ALLOWED_HOSTS,
// host:port) skip the public-address check and may use http: that is how tests reach their local
// servers; nothing else on loopback or a private range is ever fetched.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { WebSettings } from '../../config.js';
import { DomainError, invalid } from '../errors.js';
import { checkOutboundUrl, FetchRefusedError, pinnedLookup, vetHost } from '../platform/ssrf.js';

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
    const res = await getOnce(url, pinned, maxBytes, remaining, options.headers ?? {}, options.keepErrorStatus ?? false);
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

interface Once {
  status: number;
  body: string;
  contentType: string | null;
  location: string | null;
  headers: IncomingHttpHeaders;
}

function getOnce(url: URL, pinned: { address: string; family: number } | null, maxBytes: number, timeoutMs: number, headers: Record<string, string>, keepErrorStatus: boolean): Promise<Once> {
  return new Promise((resolve, reject) => {
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = request(
      {
        // Brackets off an IPv6 literal: the socket layer wants the bare address.
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port: url.port || (url.protocol === 'https:' ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { 'user-agent': 'semantic-compression-service/web', accept: 'text/html, application/xhtml+xml, application/xml;q=0.9, */*;q=0.5', ...headers },
        ...(url.protocol === 'https:' && !isIP(url.hostname.replace(/^\[|\]$/g, '')) ? { servername: url.hostname } : {}),
        // Pinned to the vetted address: a second lookup cannot rebind the name to a private one.
        ...(pinned
          ? {
              lookup: pinnedLookup(pinned),
            }
          : {}),
        timeout: timeoutMs,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && status !== 304 && res.headers.location) {
          res.resume();
          resolve({ status, body: '', contentType: null, location: res.headers.location, headers: res.headers });
          return;
        }
        if (status !== 304 && (status < 200 || status >= 300) && !keepErrorStatus) {
          res.resume();
          reject(new FetchRefusedError('status', `the server answered ${status}`));
          return;
        }
        const declared = Number(res.headers['content-length'] ?? NaN);
        if (Number.isFinite(declared) && declared > maxBytes) {
          res.destroy();
          reject(new FetchRefusedError('size', `the response (${declared} bytes) exceeds ${maxBytes} bytes`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            res.destroy();
            reject(new FetchRefusedError('size', `the response exceeds ${maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () =>
          resolve({ status, body: Buffer.concat(chunks).toString('utf8'), contentType: (res.headers['content-type'] as string | undefined) ?? null, location: null, headers: res.headers }),
        );
        res.on('error', (err) => reject(new FetchRefusedError('network', err.message)));
      },
    );
    const timer = setTimeout(() => req.destroy(new FetchRefusedError('timeout', 'fetch timed out')), timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('timeout', () => req.destroy(new FetchRefusedError('timeout', 'fetch timed out')));
    req.on('error', (err) => reject(err instanceof FetchRefusedError ? err : new FetchRefusedError('network', `${url.host} unreachable: ${err.message}`)));
    req.end();
  });
}

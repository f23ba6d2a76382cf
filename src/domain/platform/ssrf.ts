import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/** A URL the service refuses to fetch (scheme, address, size, redirect or timeout). */
export class FetchRefusedError extends Error {
  constructor(
    readonly reason: 'scheme' | 'address' | 'redirect' | 'size' | 'timeout' | 'status' | 'invalid_url' | 'network',
    message: string,
  ) {
    super(message);
    this.name = 'FetchRefusedError';
  }
}

// Private, loopback, link-local, shared, documentation, multicast and reserved ranges (v4 and v6).
const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) BLOCKED.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['::', 96], ['100::', 64], ['2001::', 23], ['2001:db8::', 32], ['2002::', 16],
  ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) BLOCKED.addSubnet(net, prefix, 'ipv6');

/** The IPv4 address embedded in an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::/96) IPv6 address. */
function embeddedV4(address: string): string | null {
  const lower = address.toLowerCase();
  const m = /^(?:::ffff:|64:ff9b::)(?:0:)?(.+)$/.exec(lower);
  if (!m) return null;
  const rest = m[1]!;
  if (isIP(rest) === 4) return rest;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(rest);
  if (!hex) return null;
  const hi = parseInt(hex[1]!, 16);
  const lo = parseInt(hex[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** True when the address may be fetched: a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return !BLOCKED.check(bare, 'ipv4');
  if (family === 6) {
    const v4 = embeddedV4(bare);
    if (v4) return isPublicAddress(v4);
    return !BLOCKED.check(bare, 'ipv6');
  }
  return false;
}

export interface SafeFetchOptions {
  maxBytes: number;
  timeoutMs: number;
  maxRedirects?: number;
  /** Test hook only: resolve names differently (never set in production code). */
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>;
  /**
   * Test hook only, for fetching from a local HTTPS server in tests: addresses this returns true for
   * pass the public-address check, and `ca` is trusted. Production callers never pass it.
   */
  testHooks?: { allowAddress?: (address: string) => boolean; ca?: string | Buffer };
}

/** Resolves a host and refuses it unless every address is public (a name may not mix public and private). */
export async function vetHost(
  host: string,
  resolve = defaultResolve,
  allowAddress?: (address: string) => boolean,
): Promise<{ address: string; family: number }> {
  const bare = host.replace(/^\[|\]$/g, '');
  const lower = bare.toLowerCase().replace(/\.$/, '');
  if (lower === 'localhost' || lower.endsWith('.localhost') || lower.endsWith('.local') || lower.endsWith('.internal')) {
    throw new FetchRefusedError('address', `refusing to fetch from ${host}: local host name`);
  }
  const literal = isIP(bare);
  const addresses = literal ? [{ address: bare, family: literal }] : await resolve(bare).catch(() => {
    throw new FetchRefusedError('network', `cannot resolve ${host}`);
  });
  if (addresses.length === 0) throw new FetchRefusedError('network', `cannot resolve ${host}`);
  for (const a of addresses) {
    if (!isPublicAddress(a.address) && !allowAddress?.(a.address)) throw new FetchRefusedError('address', `refusing to fetch from ${host}: ${a.address} is not a public address`);
  }
  return addresses[0]!;
}

async function defaultResolve(host: string) {
  return dnsLookup(host, { all: true, verbatim: true });
}

/** host[:port] as operators list hosts in the *_ALLOWED_HOSTS settings. */
export function hostKey(url: URL): string {
  return (url.port ? `${url.hostname}:${url.port}` : url.hostname).toLowerCase();
}

/**
 * A target a caller chose for an outbound request: a valid URL without credentials, https, or http
 * to a host the operator allowed. `allowed` hosts skip the public-address check (vetHost).
 */
export function checkOutboundUrl(raw: string, allowedHosts: readonly string[], field = 'url'): { url: URL; allowed: boolean } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchRefusedError('invalid_url', `${field} is not a valid URL`);
  }
  if (url.username || url.password) throw new FetchRefusedError('invalid_url', `${field} must not carry credentials`);
  const allowed = allowedHosts.includes(hostKey(url));
  if (url.protocol !== 'https:' && !(allowed && url.protocol === 'http:')) {
    throw new FetchRefusedError('scheme', `only https URLs are fetched, not ${url.protocol.replace(/:$/, '')}`);
  }
  return { url, allowed };
}

/**
 * A socket lookup pinned to a vetted address, so a second resolution cannot rebind the name to a
 * private one (Node's autoSelectFamily asks with { all: true } and expects an array).
 */
export function pinnedLookup(pinned: { address: string; family: number }): LookupFunction {
  return ((_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) =>
    opts?.all ? cb(null, [pinned]) : cb(null, pinned.address, pinned.family)) as unknown as LookupFunction;
}

/** Parses and checks a URL before any network work: https only, no credentials. */
export function checkUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchRefusedError('invalid_url', 'file_url is not a valid URL');
  }
  if (url.protocol !== 'https:') throw new FetchRefusedError('scheme', `only https URLs are fetched, not ${url.protocol.replace(/:$/, '')}`);
  if (url.username || url.password) throw new FetchRefusedError('invalid_url', 'URLs with credentials are refused');
  return url;
}

const INGEST_HEADERS = { 'user-agent': 'semantic-compression-service/ingest', accept: 'text/*, application/json;q=0.9, */*;q=0.5' };

/**
 * Fetches a public HTTPS URL with SSRF protection: the host is resolved and every address vetted,
 * the connection is pinned to the vetted address (no DNS rebinding), redirects are followed
 * manually and re-vetted, the body is capped at maxBytes and the whole fetch at timeoutMs.
 */
export async function fetchPublicHttps(raw: string, options: SafeFetchOptions): Promise<{ text: string; contentType: string | null; finalUrl: string }> {
  const deadline = Date.now() + options.timeoutMs;
  let url = checkUrl(raw);
  for (let hop = 0; hop <= (options.maxRedirects ?? 3); hop++) {
    const pinned = await vetHost(url.hostname, options.resolve, options.testHooks?.allowAddress);
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new FetchRefusedError('timeout', 'fetch timed out');
    const res = await getOnce(url, { pinned, maxBytes: options.maxBytes, timeoutMs: remaining, headers: INGEST_HEADERS, ca: options.testHooks?.ca });
    if (res.location) {
      url = checkUrl(new URL(res.location, url).toString());
      continue;
    }
    // A 304 answers a conditional request, and this fetch sends none.
    if (res.status === 304) throw new FetchRefusedError('status', 'the server answered 304');
    return { text: res.body, contentType: res.contentType, finalUrl: url.toString() };
  }
  throw new FetchRefusedError('redirect', 'too many redirects');
}

export interface GetOnceOptions {
  /** The vetted address to connect to (null: an operator-allowed host, resolved as usual). */
  pinned: { address: string; family: number } | null;
  maxBytes: number;
  timeoutMs: number;
  headers: Record<string, string>;
  /** Resolve 4xx/5xx answers (body capped) instead of refusing them. */
  keepErrorStatus?: boolean;
  /** An extra CA to trust (tests' local HTTPS servers only). */
  ca?: string | Buffer;
}

export interface OnceResponse {
  status: number;
  body: string;
  contentType: string | null;
  /** A redirect's target (the body is then empty), else null. */
  location: string | null;
  headers: IncomingHttpHeaders;
}

/**
 * One GET hop, http or https, on a pinned connection, with the body capped and a deadline. A 304
 * comes back as it is; redirects are returned, not followed, so the caller checks each target.
 */
export function getOnce(url: URL, options: GetOnceOptions): Promise<OnceResponse> {
  const { pinned, maxBytes, timeoutMs } = options;
  return new Promise((resolve, reject) => {
    const https = url.protocol === 'https:';
    // Brackets off an IPv6 literal: the socket layer wants the bare address.
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const req = (https ? httpsRequest : httpRequest)(
      {
        host,
        port: url.port || (https ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: options.headers,
        ...(https && !isIP(host) ? { servername: url.hostname } : {}),
        // Pinned to the vetted address: a second lookup cannot rebind the name to a private one.
        ...(pinned ? { lookup: pinnedLookup(pinned) } : {}),
        ...(options.ca ? { ca: options.ca } : {}),
        timeout: timeoutMs,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && status !== 304 && res.headers.location) {
          res.resume();
          resolve({ status, body: '', contentType: null, location: res.headers.location, headers: res.headers });
          return;
        }
        if (status !== 304 && (status < 200 || status >= 300) && !options.keepErrorStatus) {
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

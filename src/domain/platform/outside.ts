// The one translation of a failed request to an outside server (a peer, a webhook receiver, a web
// page, an upstream MCP server, a JWKS endpoint...) into the domain's vocabulary. The caller's own
// mistakes (a URL that is not allowed) are `invalid` / fetch_refused (400); the outside server's
// failures are `bad_gateway` (502) with a `reason` and the host, never a bare 500 (docs/decisions.md,
// "Outside fetch failures").
import { DomainError } from '../errors.js';
import { FetchRefusedError } from './ssrf.js';

/** Why an outside server could not be used. */
export type OutsideReason = 'network' | 'dns' | 'tls' | 'timeout' | 'redirect' | 'status' | 'size' | 'protocol';

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EHOSTDOWN', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME']);
const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ESOCKETTIMEDOUT']);
const TLS_MESSAGE = /\b(SSL|TLS|certificate|self[- ]signed|wrong version number|handshake)\b/i;
const CAUSE_PHRASE: Record<OutsideReason, string> = {
  network: 'could not be reached',
  dns: 'could not be resolved',
  tls: 'failed the TLS handshake',
  timeout: 'did not answer in time',
  redirect: 'answered a redirect, which is not followed',
  status: 'answered an error status',
  size: 'answered more than the size limit',
  protocol: 'answered something that is not HTTP',
};

/** The chain of causes of an error (fetch's TypeError wraps the socket error in `cause`). */
function chain(err: unknown): { name?: string; code?: string; message?: string }[] {
  const out: { name?: string; code?: string; message?: string }[] = [];
  let e: unknown = err;
  for (let i = 0; i < 5 && e && typeof e === 'object'; i++) {
    out.push(e as { name?: string; code?: string; message?: string });
    e = (e as { cause?: unknown }).cause;
  }
  return out;
}

/** The reason a request failed and the deepest message (the socket's or the TLS layer's), or null when it is not a transport failure. */
export function outsideReasonOf(err: unknown): { reason: OutsideReason; cause: string } | null {
  const links = chain(err);
  if (links.length === 0) return null;
  const cause = (links.findLast((l) => l.message)?.message ?? String(err)).slice(0, 300);
  const all = links.map((l) => `${l.code ?? ''} ${l.message ?? ''}`).join(' ');
  if (err instanceof FetchRefusedError) {
    if (err.reason === 'network') return { reason: TLS_MESSAGE.test(err.message) ? 'tls' : /cannot resolve/.test(err.message) ? 'dns' : 'network', cause };
    if (err.reason === 'timeout' || err.reason === 'redirect' || err.reason === 'status' || err.reason === 'size') return { reason: err.reason, cause };
    return null; // scheme, address, invalid_url: the caller's URL, not the outside server
  }
  for (const l of links) {
    const code = l.code ?? '';
    if (l.name === 'TimeoutError' || l.name === 'AbortError' || TIMEOUT_CODES.has(code)) return { reason: 'timeout', cause };
    if (code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS') || /CERT|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return { reason: 'tls', cause };
    if (DNS_CODES.has(code)) return { reason: 'dns', cause };
    if (code === 'HPE_INVALID_CONSTANT' || code.startsWith('HPE_') || code === 'UND_ERR_INFO') return { reason: 'protocol', cause };
  }
  if (/redirect/i.test(all)) return { reason: 'redirect', cause };
  if (TLS_MESSAGE.test(all)) return { reason: 'tls', cause };
  if (links.some((l) => NETWORK_CODES.has(l.code ?? '')) || /fetch failed|socket hang up|other side closed|ECONNREFUSED|ECONNRESET/i.test(all)) return { reason: 'network', cause };
  return null;
}

/** A 502 naming the server, what was asked of it, and why it failed. */
export function badGateway(what: string, host: string, reason: OutsideReason, cause: string): DomainError {
  return new DomainError('bad_gateway', `${what}: ${host} ${CAUSE_PHRASE[reason]} (${cause})`, { extra: { reason, host } });
}

/**
 * An error of a request to `target` in domain terms: a DomainError stays as it is, a refused URL is
 * invalid/fetch_refused, a transport failure is bad_gateway with its reason. Anything else (a bug)
 * is returned unchanged for the surface to log as a 500.
 */
export function outsideFailure(err: unknown, what: string, target: URL | string): unknown {
  if (err instanceof DomainError) return err;
  const host = typeof target === 'string' ? safeHost(target) : target.host;
  if (err instanceof FetchRefusedError) {
    const r = outsideReasonOf(err);
    if (!r) return new DomainError('invalid', `fetch_refused (${err.reason}): ${what}: ${err.message}`, { code: 'fetch_refused', extra: { reason: err.reason } });
    return badGateway(what, host, r.reason, r.cause);
  }
  const r = outsideReasonOf(err);
  return r ? badGateway(what, host, r.reason, r.cause) : err;
}

function safeHost(raw: string): string {
  try {
    return new URL(raw).host;
  } catch {
    return raw.slice(0, 100);
  }
}

/**
 * fetch() to an outside server with its failures translated (outsideFailure): redirects are not
 * followed (a 3xx is a bad_gateway with reason redirect) and the whole exchange has a deadline.
 */
export async function fetchOutside(url: URL, init: RequestInit & { timeoutMs: number }, what: string): Promise<{ status: number; text: string }> {
  const { timeoutMs, ...rest } = init;
  try {
    const res = await fetch(url, { ...rest, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    if (res.status >= 300 && res.status < 400) {
      await res.body?.cancel();
      throw badGateway(what, url.host, 'redirect', `${res.status} to ${(res.headers.get('location') ?? '?').slice(0, 200)}`);
    }
    return { status: res.status, text: await cappedText(res, MAX_ANSWER_BYTES) };
  } catch (err) {
    throw outsideFailure(err, what, url);
  }
}

/** The most of an answer read (the rest is dropped unread). */
const MAX_ANSWER_BYTES = 65_536;

async function cappedText(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  while (size < maxBytes) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.length;
  }
  await reader.cancel().catch(() => {});
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}

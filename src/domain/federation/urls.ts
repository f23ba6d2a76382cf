// Outbound targets of the federation (a peer's base URL, a user's webhook URL): https to a public
// address, like every other URL the service reaches, or a host:port the operator allowed in
// FEDERATION_ALLOWED_HOSTS (a peer or receiver on the private network, where http is accepted).
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { FederationSettings } from '../../config.js';
import { invalid } from '../errors.js';
import { FetchRefusedError, fetchPublicHttps, hostKey, pinnedLookup, vetHost } from '../platform/ssrf.js';

/** The federation settings of the service a database belongs to (set by app.ts from config.federation). */
const settings = new WeakMap<object, FederationSettings>();

export function setFederationSettings(db: object, value: FederationSettings): void {
  settings.set(db, value);
}

export function federationSettings(db: object): FederationSettings {
  return settings.get(db) ?? { allowedHosts: [], sweepMs: 5000 };
}

/**
 * Parses and vets a target URL; refusals are `invalid` with code fetch_refused and say why. At
 * registration (`registering`) a name that does not resolve yet is accepted: every request to it is
 * vetted again (and pinned) when it is sent.
 */
export async function checkTarget(db: object, raw: string, field: string, registering = false): Promise<{ url: URL; allowed: boolean }> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(`fetch_refused: ${field} is not a valid URL`, { code: 'fetch_refused' });
  }
  if (url.username || url.password) throw invalid(`fetch_refused: ${field} must not carry credentials`, { code: 'fetch_refused' });
  const allowed = federationSettings(db).allowedHosts.includes(hostKey(url));
  if (url.protocol !== 'https:' && !(allowed && url.protocol === 'http:')) {
    throw invalid(`fetch_refused: ${field} must be https (http only for hosts in FEDERATION_ALLOWED_HOSTS), only https is accepted, not ${url.protocol.replace(/:$/, '')}`, { code: 'fetch_refused' });
  }
  if (!allowed) {
    try {
      await vetHost(url.hostname);
    } catch (err) {
      if (err instanceof FetchRefusedError && registering && err.reason === 'network') return { url, allowed };
      if (err instanceof FetchRefusedError) throw invalid(`fetch_refused: ${err.message}`, { code: 'fetch_refused' });
      throw err;
    }
  }
  return { url, allowed };
}

/** GETs a JSON document from a vetted target (≤ 64 kB, 10 s). */
export async function getJson(db: object, raw: string, field: string): Promise<unknown> {
  const { url, allowed } = await checkTarget(db, raw, field);
  let text: string;
  if (allowed) {
    const res = await fetch(url, { signal: AbortSignal.timeout(10_000), redirect: 'error' });
    if (!res.ok) throw invalid(`${field}: the server answered ${res.status}`);
    text = (await res.text()).slice(0, 65_536);
  } else {
    try {
      text = (await fetchPublicHttps(url.toString(), { maxBytes: 65_536, timeoutMs: 10_000 })).text;
    } catch (err) {
      if (err instanceof FetchRefusedError) throw invalid(`fetch_refused: ${err.message}`, { code: 'fetch_refused' });
      throw err;
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalid(`${field}: the answer is not JSON`);
  }
}

/** POSTs a JSON body to a vetted target (pinned to the vetted address unless allowed); answers status and body text. */
export async function postJson(db: object, raw: string, body: string, headers: Record<string, string>, timeoutMs = 10_000): Promise<{ status: number; text: string }> {
  const { url, allowed } = await checkTarget(db, raw, 'url');
  const all = { 'content-type': 'application/json', 'user-agent': 'semantic-compression-service/federation', ...headers };
  if (allowed) {
    const res = await fetch(url, { method: 'POST', body, headers: all, signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    return { status: res.status, text: (await res.text()).slice(0, 65_536) };
  }
  const pinned = await vetHost(url.hostname);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: url.hostname,
        servername: isIP(url.hostname.replace(/^\[|\]$/g, '')) ? undefined : url.hostname,
        port: url.port || 443,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { ...all, 'content-length': Buffer.byteLength(body) },
        lookup: pinnedLookup(pinned),
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size <= 65_536) chunks.push(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

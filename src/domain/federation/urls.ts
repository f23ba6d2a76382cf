// Outbound targets of the federation (a peer's base URL, a user's webhook URL): https to a public
// address, like every other URL the service reaches, or a host:port the operator allowed in
// FEDERATION_ALLOWED_HOSTS (a peer or receiver on the private network, where http is accepted).
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { FederationSettings } from '../../config.js';
import { invalid } from '../errors.js';
import { badGateway, fetchOutside, outsideFailure } from '../platform/outside.js';
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

/** One request's time limit to a peer or receiver (FEDERATION_TIMEOUT_MS). */
const timeoutOf = (db: object) => federationSettings(db).timeoutMs ?? 10_000;

/** GETs a JSON document from a vetted target (≤ 64 kB); an unreachable or failing server is a 502 naming it. */
export async function getJson(db: object, raw: string, field: string): Promise<unknown> {
  const { url, allowed } = await checkTarget(db, raw, field);
  const what = `${field}: fetching ${url.pathname}`;
  let text: string;
  if (allowed) {
    const res = await fetchOutside(url, { timeoutMs: timeoutOf(db) }, what);
    if (res.status < 200 || res.status >= 300) throw badGateway(what, url.host, 'status', `HTTP ${res.status}`);
    text = res.text;
  } else {
    try {
      text = (await fetchPublicHttps(url.toString(), { maxBytes: 65_536, timeoutMs: timeoutOf(db) })).text;
    } catch (err) {
      throw outsideFailure(err, what, url);
    }
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw badGateway(what, url.host, 'protocol', 'the answer is not JSON');
  }
}

/** POSTs a JSON body to a vetted target (pinned to the vetted address unless allowed); answers status and body text. */
export async function postJson(db: object, raw: string, body: string, headers: Record<string, string>, timeoutMs = timeoutOf(db)): Promise<{ status: number; text: string }> {
  const { url, allowed } = await checkTarget(db, raw, 'url');
  const all = { 'content-type': 'application/json', 'user-agent': 'semantic-compression-service/federation', ...headers };
  const what = `POST ${url.pathname}`;
  if (allowed) return fetchOutside(url, { method: 'POST', body, headers: all, timeoutMs }, what);
  try {
    return await postPinned(url, body, all, timeoutMs);
  } catch (err) {
    throw outsideFailure(err, what, url);
  }
}

/** The POST to a public target, on a connection pinned to the vetted address (no DNS rebinding). */
async function postPinned(url: URL, body: string, all: Record<string, string>, timeoutMs: number): Promise<{ status: number; text: string }> {
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
    req.on('timeout', () => req.destroy(new FetchRefusedError('timeout', `no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

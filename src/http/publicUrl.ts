import type { Config } from '../config.js';

/** host[:port] with a DNS name, an IPv4 address or a bracketed IPv6 address; nothing else (no path, user info, spaces). */
const HOST = /^(\[[0-9a-f:.]+\]|[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?)(?::(\d{1,5}))?$/;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function parseHost(value: string): { name: string; port: string | null } | null {
  const m = HOST.exec(value.trim().toLowerCase());
  return m ? { name: m[1]!, port: m[2] ?? null } : null;
}

/** First value of a header proxies may have appended to ("a, b"). */
function first(value: string | undefined): string | undefined {
  return value?.split(',')[0]?.trim() || undefined;
}

/**
 * Whether a request's host may become the public base URL: a loopback host (any port), or an entry of
 * PUBLIC_HOSTS; an entry without a port accepts the host on any port, one with a port only that port.
 */
export function acceptedHost(host: string, allowed: readonly string[]): string | null {
  const h = parseHost(host);
  if (!h) return null;
  const value = h.port ? `${h.name}:${h.port}` : h.name;
  if (LOOPBACK.has(h.name)) return value;
  for (const entry of allowed) {
    const a = parseHost(entry);
    if (a && a.name === h.name && (a.port === null || a.port === h.port)) return value;
  }
  return null;
}

/**
 * The base URL clients should use (agent card, OAuth metadata, MCP resource, signed upload URLs):
 * PUBLIC_URL when configured. Otherwise the request's X-Forwarded-Host (else Host), but only when it
 * is a loopback host or on PUBLIC_HOSTS, so a forged header never ends up in a document or a signed
 * URL; X-Forwarded-Proto https counts only with such a host. Anything else: http://localhost:PORT.
 */
export function publicBaseUrl(config: Pick<Config, 'publicUrl' | 'publicHosts' | 'port'>, headers: Record<string, string | undefined>): string {
  if (config.publicUrl) return config.publicUrl.replace(/\/+$/, '');
  const candidate = first(headers['x-forwarded-host']) ?? headers.host;
  const host = candidate ? acceptedHost(candidate, config.publicHosts) : null;
  if (!host) return `http://localhost:${config.port}`;
  const proto = first(headers['x-forwarded-proto'])?.toLowerCase() === 'https' ? 'https' : 'http';
  return `${proto}://${host}`;
}

import type { Config } from '../config.js';
import { acceptedHost } from '../http/publicUrl.js';

type OriginConfig = Pick<Config, 'host' | 'publicUrl' | 'publicHosts' | 'mcpAllowedOrigins'>;

const LOOPBACK_BIND = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/** Origins of loopback pages, any port: a local tool's own UI may call its local server. */
const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

/** A loopback name in a Host header (any port). */
const LOOPBACK_HOST = /^(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

/**
 * DNS-rebinding and cross-site protection of /mcp (MCP transport spec, "Security warning"): a request
 * carrying an Origin is served only when that origin is the public URL's, a loopback page, or on
 * MCP_ALLOWED_ORIGINS (`*` allows any); no Origin means a non-browser client and is allowed. When
 * the server listens on loopback only, the Host must also be a loopback name or on PUBLIC_HOSTS, so
 * a page on evil.example whose name was rebound to 127.0.0.1 is refused. Returns why, or null.
 */
export function transportRefusal(config: OriginConfig, headers: Record<string, string | undefined>): string | null {
  const origin = headers.origin;
  if (origin !== undefined && !originAllowed(config, origin, headers.host)) return `Origin ${JSON.stringify(origin.slice(0, 200))} is not allowed to call /mcp`;
  if (LOOPBACK_BIND.has(config.host) && !(headers.host && acceptedHost(headers.host, config.publicHosts))) {
    return `Host ${JSON.stringify((headers.host ?? '').slice(0, 200))} is not a name this local server answers to`;
  }
  return null;
}

/**
 * A loopback page is accepted when the server listens on loopback, or when the request names the
 * server by a loopback Host (a page on this machine calling it through localhost, whatever the bind
 * address, e.g. HOST=0.0.0.0 in a container with a published port). A rebound name never qualifies:
 * the browser sends the attacker's name as both Host and Origin, and that origin is not loopback.
 */
function originAllowed(config: OriginConfig, origin: string, host: string | undefined): boolean {
  const value = origin.trim().toLowerCase();
  if (config.mcpAllowedOrigins.includes('*') || config.mcpAllowedOrigins.includes(value)) return true;
  if (config.publicUrl && new URL(config.publicUrl).origin === value) return true;
  if (!LOOPBACK_ORIGIN.test(value)) return false;
  return LOOPBACK_BIND.has(config.host) || LOOPBACK_HOST.test((host ?? '').trim().toLowerCase());
}

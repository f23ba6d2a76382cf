// How proxy_mcp_server reaches an upstream MCP server. Over HTTP: the SDK's Streamable HTTP client
// transport with a fetch that vets the host (public addresses only, unless the operator allowed
// it) and pins the socket to the vetted address, caps the body and follows no redirect. Over stdio:
// only a server the operator configured by name; a caller never supplies a command line.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable, Transform } from 'node:stream';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpProxySettings } from '../../config.js';
import { invalidInput } from '../errors.js';
import { checkOutboundUrl, FetchRefusedError, pinnedLookup, vetHost } from '../platform/ssrf.js';

export type Upstream = { url: string; headers?: Record<string, string> } | { stdio: string };

/** Headers a caller may not set on the upstream request (the transport owns them). */
const RESERVED_HEADERS = new Set(['host', 'content-length', 'content-type', 'accept', 'connection', 'transfer-encoding', 'mcp-session-id', 'mcp-protocol-version', 'upgrade', 'te', 'trailer']);

const refused = (detail: string) => invalidInput(`fetch_refused: ${detail}`, [{ loc: ['server'], msg: detail, type: 'value_error' }]);

/** The upstream URL, checked before any network work. */
export function checkUpstreamUrl(settings: McpProxySettings, raw: string): { url: URL; allowed: boolean } {
  try {
    return checkOutboundUrl(raw, settings.allowedHosts, 'server.url');
  } catch (err) {
    throw err instanceof FetchRefusedError ? refused(`${err.message} (http only for hosts in MCP_PROXY_ALLOWED_HOSTS)`) : err;
  }
}

function capped(maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      seen += chunk.length;
      done(seen > maxBytes ? new Error(`the upstream response exceeds ${maxBytes} bytes`) : null, chunk);
    },
  });
}

function headerRecord(h: HeadersInit | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(h).forEach((v, k) => (out[k] = v));
  return out;
}

/** A fetch for the SDK transport: vetted and pinned address, no redirects, capped body. */
function guardedFetch(settings: McpProxySettings, allowed: boolean) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input.toString());
    checkUpstreamUrl(settings, url.toString());
    let pinned: { address: string; family: number } | null = null;
    if (!allowed) {
      try {
        pinned = await vetHost(url.hostname);
      } catch (err) {
        if (err instanceof FetchRefusedError) throw new Error(`fetch_refused: ${err.message}`);
        throw err;
      }
    }
    const body = init?.body === undefined || init.body === null ? null : typeof init.body === 'string' ? init.body : Buffer.from(await new Response(init.body).arrayBuffer());
    return new Promise<Response>((resolve, reject) => {
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const req = send(
        url,
        {
          method: init?.method ?? 'GET',
          headers: headerRecord(init?.headers),
          signal: init?.signal ?? undefined,
          ...(pinned
            ? {
                lookup: pinnedLookup(pinned),
              }
            : {}),
        },
        (res) => {
          const status = res.statusCode ?? 502;
          const headers = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(', ') : v);
          if (status >= 300 && status < 400) {
            res.resume();
            reject(new Error(`fetch_refused: the upstream answered a redirect (${status}); give its final URL`));
            return;
          }
          const stream = status === 204 || status === 304 ? null : (Readable.toWeb(res.pipe(capped(settings.maxBytes))) as ReadableStream);
          resolve(new Response(stream, { status, headers }));
        },
      );
      req.on('error', reject);
      req.end(body ?? undefined);
    });
  };
}

/** The SDK client transport for an upstream, after every check that needs no network. */
export function upstreamTransport(settings: McpProxySettings, server: Upstream): Transport {
  if ('stdio' in server) {
    const spec = settings.stdioServers[server.stdio];
    if (!spec) {
      const known = Object.keys(settings.stdioServers);
      throw invalidInput(`No stdio MCP server named '${server.stdio}' is configured (${known.length ? `configured: ${known.join(', ')}` : 'MCP_PROXY_STDIO_SERVERS is empty'})`, [
        { loc: ['server', 'stdio'], msg: 'Unknown stdio server', type: 'value_error' },
      ]);
    }
    return new StdioClientTransport({ command: spec.command, args: spec.args, env: settings.childEnv, stderr: 'ignore' });
  }
  const { url, allowed } = checkUpstreamUrl(settings, server.url);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(server.headers ?? {})) {
    if (!/^[A-Za-z0-9-]{1,100}$/.test(k) || RESERVED_HEADERS.has(k.toLowerCase())) {
      throw invalidInput(`Header '${k.slice(0, 100)}' cannot be sent upstream`, [{ loc: ['server', 'headers', k.slice(0, 100)], msg: 'Reserved or invalid header name', type: 'value_error' }]);
    }
    headers[k] = v;
  }
  return new StreamableHTTPClientTransport(url, { fetch: guardedFetch(settings, allowed), requestInit: { headers } });
}

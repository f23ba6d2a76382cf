import { randomUUID } from 'node:crypto';
import { authenticate } from '../auth/authenticate.js';
import type { Principal } from '../auth/principal.js';
import { DomainError } from '../domain/errors.js';
import { HttpError, httpReplyOf } from '../http/errors.js';
import { parseJsonBody } from '../http/jsonBody.js';
import { BodyReader, declaredLength, headersOf, writeReply } from '../http/io.js';
import { publicBaseUrl } from '../http/publicUrl.js';
import type { RawHandler } from '../http/server.js';
import { MCP_SCOPES } from '../auth/scopes.js';
import type { Services } from '../services.js';
import { mcpResource, scopeShortfall } from './oauth.js';
import { transportRefusal } from './origin.js';
import { allTools } from './registry.js';
import { parseToolsets, toolsetNames, type Toolsets } from './toolsets.js';
import { pipeResponse } from './pipe.js';
import { transportRequest } from './transportRequest.js';
import type { McpEntry, SessionStore } from './sessions.js';

/** Toolsets a client asks to see listed: `?toolsets=a,b` on the MCP URL, else the X-MCP-Toolsets header. */
function requestedToolsets(query: string | undefined, headers: Record<string, string>): Toolsets {
  const fromUrl = new URLSearchParams(query ?? '').get('toolsets') ?? undefined;
  return parseToolsets(fromUrl ?? headers['x-mcp-toolsets'], toolsetNames(allTools()));
}

/** The last resource URL handed to the SDK: every request of one deployment names the same one. */
let lastResource: { href: string; url: URL } | null = null;
function resourceUrl(href: string): URL {
  if (lastResource?.href !== href) lastResource = { href, url: new URL(href) };
  return lastResource.url;
}

/** The status counted for a request whose client went away before its answer (nginx's convention, as in REST). */
const CLIENT_GONE = 499;

function isInitialize(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => (m as { method?: string } | null)?.method === 'initialize');
}

/**
 * /mcp on uWebSockets.js: authenticate, pick the session (or a one-shot server), hand the SDK's
 * web-standard transport the request (transportRequest.ts), and send its Response back (pipe.ts);
 * a plain request inside a session is answered directly (directAnswers.ts).
 */
export function createMcpHandler(services: Services, sessions: SessionStore): RawHandler {
  return (res, req, bodies) => {
    const method = req.getCaseSensitiveMethod().toUpperCase();
    const query = req.getQuery();
    const headers = headersOf(req);
    const requestId = randomUUID();
    let aborted = false;
    let onAbort: (() => void) | undefined;
    res.onAborted(() => {
      aborted = true;
      body?.abort();
      onAbort?.();
    });
    // Attached now (before any await) and paused: the body is read only once the caller checks out.
    const body = method === 'POST' ? new BodyReader(res, services.config.maxBodyBytes, bodies) : null;
    const started = performance.now();
    // A graceful stop waits for these (the standalone GET stream never ends by itself: not counted).
    (method === 'GET' ? handle() : sessions.track(handle()))
      .catch(async (err): Promise<number> => {
        const known = httpReplyOf(err);
        if (!known) services.log.error('mcp bridge failed', { requestId, error: err instanceof Error ? err.message : String(err) });
        const reply = known ?? { status: 500, body: { detail: 'Internal server error', request_id: requestId }, headers: {} };
        const close = body && !aborted ? (await body.settleUnread(declaredLength(headers))) === 'close' : false;
        if (!aborted) writeReply(res, reply.status, { body: reply.body, headers: reply.headers }, requestId, close);
        return aborted ? CLIENT_GONE : reply.status;
      })
      .then((status) => services.metrics.observeRequest(method, '/mcp', status, (performance.now() - started) / 1000))
      .finally(() => body?.release());

    /** Answers the request; resolves with the status sent. */
    async function handle(): Promise<number> {
      // Before authentication: a rebound or cross-site browser request learns nothing, not even whether a key is valid.
      const refusal = transportRefusal(services.config, headers);
      if (refusal) throw new HttpError(403, refusal);
      const base = publicBaseUrl(services.config, headers);
      const resource = mcpResource(base);
      const metadata = `${base}/.well-known/oauth-protected-resource`;
      let principal: Principal;
      try {
        principal = await authenticate(services, headers.authorization, resource);
      } catch (err) {
        if (err instanceof HttpError && err.status === 401) {
          throw new HttpError(401, err.detail, { 'www-authenticate': `Bearer resource_metadata="${metadata}", scope="${MCP_SCOPES.join(' ')}"` });
        }
        throw err;
      }
      const read = body ? await body.read() : null;
      if (read === 'too-large') throw new HttpError(413, `Request body exceeds the limit of ${services.config.maxBodyBytes} bytes`);
      if (read === 'over-budget') throw new HttpError(503, 'Too many request bodies in flight; retry shortly', { 'retry-after': '1' });
      if (aborted || read === 'aborted') return CLIENT_GONE;
      const raw = read;
      let parsed: unknown;
      try {
        parsed = raw && raw.length ? parseJsonBody(raw) : undefined;
      } catch (err) {
        // Not JSON: the transport answers with a JSON-RPC parse error. Too deep: 422 like REST.
        if (!(err instanceof DomainError && err.issues?.[0]?.type === 'json_invalid')) throw err;
        parsed = undefined;
      }
      // Step-up per the MCP authorization spec: 403 naming the scope the client should ask for.
      const shortfall = scopeShortfall(principal, parsed);
      if (shortfall) {
        const scope = shortfall.needed.join(' ');
        throw new HttpError(403, `The access token lacks the scope needed for ${shortfall.what}: ${shortfall.needed.join(' or ')}`, {
          'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${metadata}"`,
        });
      }
      const sessionId = headers['mcp-session-id'];
      let entry: McpEntry | null;
      if (sessionId) {
        // Any instance serves any session: one it does not hold is rebuilt from the shared record.
        entry = await sessions.find(sessionId, principal, base);
        if (!entry) {
          writeReply(res, 404, { body: { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null } }, requestId, false);
          return 404;
        }
      } else if (method === 'POST' && isInitialize(parsed)) {
        entry = await sessions.open(principal, base, requestedToolsets(query, headers));
      } else {
        entry = await sessions.oneShot(principal, base, requestedToolsets(query, headers));
      }
      const authInfo = { token: principal.via, clientId: principal.keyId ?? principal.userId, scopes: principal.scopes ?? [...MCP_SCOPES], resource: resourceUrl(resource) };
      try {
        if (method === 'POST' && entry.direct?.accepts(headers, parsed)) {
          await entry.direct.answer(res, parsed, { requestId, headers, authInfo, isAborted: () => aborted, onAbort: (fn) => (onAbort = fn) });
          return aborted ? CLIENT_GONE : 200;
        }
        const unparsed = raw && raw.length && parsed === undefined ? new Uint8Array(raw) : null;
        const request = transportRequest(method, `http://localhost/mcp${query ? `?${query}` : ''}`, headers, unparsed);
        const response = await entry.transport.handleRequest(request, { parsedBody: parsed, authInfo });
        await pipeResponse(res, response, requestId, () => aborted);
        return aborted ? CLIENT_GONE : response.status;
      } finally {
        if (entry.ephemeral) await entry.server.close();
      }
    }
  };
}

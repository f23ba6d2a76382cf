import { randomUUID } from 'node:crypto';
import type { Services } from '../services.js';
import { authenticate } from '../auth/authenticate.js';
import { requirePlan } from '../auth/plans.js';
import type { Principal } from '../auth/principal.js';
import { Call, ownerOf } from '../domain/call.js';
import { unavailable } from '../domain/errors.js';
import { httpReplyOf } from './errors.js';
import { parseJsonBody } from './jsonBody.js';
import { storableText } from '../lib/text.js';
import { BodyBudget, BodyReader, declaredLength, headersOf, writeReply, writeStream } from './io.js';
import { Router } from './router.js';
import { httpEngine } from './engine/select.js';
import type { EngineInfo, RawRequest, RawResponse } from './engine/types.js';
import type { Method, Reply, RequestContext, RouteSpec } from './route.js';
import { validate } from './validate.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const YIELD_BEFORE_PARSE_BYTES = 64 * 1024;

const REQUEST_ID = /^[\w.-]{1,128}$/;

export interface HttpServer {
  readonly port: number;
  /** The engine serving HTTP and why it was chosen. */
  readonly engine: EngineInfo;
  /** Request-body bytes held in memory now, across requests (the gc_http_request_body_bytes gauge). */
  bodyBytesInUse(): number;
  /** Stops accepting and resolves once in-flight requests have answered (or the grace time ends). */
  close(graceMs: number): Promise<void>;
}

/** Extra handler for a path the JSON router does not own (the MCP bridge), by exact path. */
export type RawHandler = (res: RawResponse, req: RawRequest, bodies: BodyBudget) => void;

interface Incoming {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  requestId: string;
  started: number;
}

/** How long the server must see no request in flight before a graceful close counts it as drained. */
const DRAIN_QUIET_MS = 100;

export function startHttpServer(
  routes: RouteSpec<any, any>[],
  services: Services,
  options: {
    host: string;
    port: number;
    maxBodyBytes: number;
    maxRepositoryBodyBytes: number;
    /** Request-body bytes held at once across requests; past it 503 with Retry-After. */
    maxInflightBodyBytes: number;
    raw?: Record<string, RawHandler>;
  },
): Promise<HttpServer> {
  const router = new Router<RouteSpec<any, any>>();
  for (const route of routes) router.add(route.method, route.path, route);
  const engine = httpEngine(services.config.httpEngine);
  let inFlight = 0;
  let draining = false;
  const idle: (() => void)[] = [];
  const settle = () => {
    inFlight--;
    if (inFlight === 0) idle.splice(0).forEach((fn) => fn());
  };

  const budget = new BodyBudget(options.maxInflightBodyBytes);
  const raw = new Map(Object.entries(options.raw ?? {}));

  const serve = (res: RawResponse, req: RawRequest) => {
    const path = req.getUrl();
    const rawHandler = raw.get(path);
    if (rawHandler) return rawHandler(res, req, budget);
    const headers = headersOf(req);
    const incoming: Incoming = {
      method: req.getCaseSensitiveMethod().toUpperCase(),
      path,
      query: req.getQuery() ?? '',
      headers,
      requestId: REQUEST_ID.test(headers['x-request-id'] ?? '') ? headers['x-request-id']! : randomUUID(),
      started: performance.now(),
    };
    const abort = new LazyAbort();
    let done = false;
    let body: BodyReader | null = null;
    res.onAborted(() => {
      done = true;
      abort.abort();
      body?.abort();
    });
    // HEAD is the GET route answered without its body.
    const head = incoming.method === 'HEAD';
    const found = router.find(head ? 'GET' : incoming.method, incoming.path);
    const limit = found.kind === 'found' && found.match.handler.repositoryBody ? options.maxRepositoryBodyBytes : options.maxBodyBytes;
    // Attached now (before any await) and, unless small, paused: the body is read only once the key checks out.
    body = BODY_METHODS.has(incoming.method) ? new BodyReader(res, limit, budget, declaredLength(headers)) : null;
    inFlight++;
    const finish = async (status: number, reply: Reply, route: string, closeConnection = false) => {
      let close = closeConnection || draining;
      // A body left unread on the socket would be parsed as the next request: drain a small one, else close.
      if (body && !close && !done) close = (await body.settleUnread(declaredLength(incoming.headers))) === 'close';
      if (!done && reply.stream && !head) {
        // A stream answers for as long as it runs; the request counts as in flight until it ends.
        await writeStream(res, status, reply, incoming.requestId, () => done).catch((err) =>
          services.log.error('stream failed', { requestId: incoming.requestId, error: err instanceof Error ? err.message : String(err) }),
        );
        done = true;
      } else if (!done) {
        done = true;
        // A HEAD answer has no body: a streamed reply is closed unread.
        if (head && reply.stream) void reply.stream[Symbol.asyncIterator]().return?.();
        writeReply(res, status, reply, incoming.requestId, close, head);
      }
      body?.release();
      const seconds = (performance.now() - incoming.started) / 1000;
      services.metrics.observeRequest(incoming.method, route, status, seconds);
      // The route pattern, never the URL: paths and query strings can carry ids and upload signatures.
      if (services.config.logRequests) services.log.info('request', { method: incoming.method, route, status, ms: Math.round(seconds * 1000), request_id: incoming.requestId });
      settle();
    };
    handle(incoming, found, limit, body, abort, () => done)
      .then(({ status, reply, route, close }) => finish(status, reply, route, close))
      .catch((err) => {
        const { status, reply } = errorReply(err, incoming.requestId, services);
        // Refused (401, 403, 429, 503 …) or failed: counted under the route it was meant for.
        finish(status, reply, found.kind === 'found' ? found.match.pattern : 'unmatched');
      });
  };

  async function handle(
    incoming: Incoming,
    found: ReturnType<typeof router.find>,
    limit: number,
    body: BodyReader | null,
    signal: LazyAbort,
    isDone: () => boolean,
  ): Promise<{ status: number; reply: Reply; route: string; close?: boolean }> {
    if (found.kind === 'not-found') {
      return { status: 404, reply: { body: { detail: `No route for ${incoming.method} ${incoming.path}` } }, route: 'unmatched' };
    }
    if (found.kind === 'method-not-allowed') {
      return {
        status: 405,
        reply: { body: { detail: `Method ${incoming.method} not allowed on ${incoming.path}` }, headers: { allow: (found.allow.includes('GET') ? [...found.allow, 'HEAD'] : found.allow).join(', ') } },
        route: 'unmatched',
      };
    }
    const { handler: route, pattern } = found.match;
    // Path and query text meet the same boundary rule as bodies (docs/reliability.md): storable text only.
    const params = found.match.params;
    for (const k in params) params[k] = storableText(params[k]!);
    const declared = Number(incoming.headers['content-length'] ?? '0');
    if (declared > limit) {
      return { status: 413, reply: { body: { detail: tooLarge(limit) } }, route: pattern, close: true };
    }
    // Authentication first, from the headers alone: a request without a valid key is refused unread.
    const principal = route.auth === 'public' ? undefined : await authenticate(services, incoming.headers.authorization);
    // A compression the pool could not take now is refused at the door, before its body is read or parsed;
    // an admitted one holds its place until answered (ComputePool.admit).
    const release = principal && route.usage ? services.pool.admit(ownerOf(principal)) : undefined;
    if (release === null) {
      const refused = unavailable('Compute pool is saturated; retry shortly', 1);
      await new Call({ services, principal: principal!, surface: 'REST', client: clientOf(incoming.headers) }).finishWith(refused).catch(() => undefined);
      throw refused;
    }
    try {
      return await admitted(incoming, route, pattern, params, principal, limit, body, signal, isDone);
    } finally {
      release?.();
    }
  }

  async function admitted(
    incoming: Incoming,
    route: RouteSpec<any, any>,
    pattern: string,
    params: Record<string, string>,
    principal: Principal | undefined,
    limit: number,
    body: BodyReader | null,
    signal: LazyAbort,
    isDone: () => boolean,
  ): Promise<{ status: number; reply: Reply; route: string; close?: boolean }> {
    const read = body ? await body.read() : null;
    if (read === 'too-large') {
      return { status: 413, reply: { body: { detail: tooLarge(limit) } }, route: pattern, close: true };
    }
    if (read === 'over-budget') {
      return { status: 503, reply: { body: { detail: 'Too many request bodies in flight; retry shortly' }, headers: { 'retry-after': '1' } }, route: pattern, close: true };
    }
    if (read === 'aborted' || isDone()) return { status: 499, reply: {}, route: pattern };
    const rawBody = read;
    // A large body is parsed in its own turn of the event loop, so a burst of them cannot hold back
    // other requests (liveness probes among them) for the sum of their parse times.
    if (rawBody && rawBody.length > YIELD_BEFORE_PARSE_BYTES) await new Promise((r) => setImmediate(r));

    // From here on an authenticated call is a Call: a metered route writes its one usage event however it ends.
    const call = principal
      ? new Call({ services, principal, surface: 'REST', client: clientOf(incoming.headers), get signal() { return signal.signal; }, headers: incoming.headers })
      : undefined;
    try {
      const reply = await run(route, incoming, rawBody, params, signal, principal, call);
      // Answered only once its usage event has committed (group commit): an acknowledged call survives a crash.
      if (route.usage) await call?.finish('success');
      return { status: reply.status ?? 200, reply, route: pattern };
    } catch (err) {
      if (route.usage) await call?.finishWith(err).catch(() => undefined);
      throw err;
    }
  }

  async function run(
    route: RouteSpec<any, any>,
    incoming: Incoming,
    rawBody: Buffer | null,
    params: Record<string, string>,
    abort: LazyAbort,
    principal: Principal | undefined,
    call: Call | undefined,
  ): Promise<Reply> {
    if (principal && route.plan) requirePlan(principal.plan, route.plan);
    const body = route.body ? validate(route.body, parseJson(rawBody), 'body') : undefined;
    const query = route.query ? validate(route.query, parseQuery(incoming.query), 'query') : parseQuery(incoming.query);
    const ctx: RequestContext = {
      method: incoming.method as Method,
      path: incoming.path,
      params,
      query,
      body,
      rawBody,
      headers: incoming.headers,
      requestId: incoming.requestId,
      principal: principal!,
      call: call!,
      get signal() {
        return abort.signal;
      },
      services,
    };
    return route.handler(ctx);
  }

  // A connection accepted before the listen socket closed can still deliver its request a moment
  // later (its headers were in flight when SIGTERM came): drained means no request in flight for a
  // quiet spell, not just at the instant close was called; such late requests are served, not cut off.
  async function drained(): Promise<void> {
    for (;;) {
      if (inFlight > 0) await new Promise<void>((r) => idle.push(r));
      await new Promise((r) => setTimeout(r, DRAIN_QUIET_MS).unref());
      if (inFlight === 0) return;
    }
  }

  return engine.listen(options.host, options.port, serve).then((listener) => ({
    port: listener.port,
    engine: engine.info,
    bodyBytesInUse: () => budget.inUse,
    async close(graceMs) {
      draining = true;
      listener.stopAccepting();
      await Promise.race([drained(), new Promise<void>((r) => setTimeout(r, graceMs).unref())]);
      listener.closeConnections();
    },
  }));
}

/** The AI client signal of a REST call: its User-Agent (classified when usage is read). */
function clientOf(headers: Record<string, string>): string | null {
  const ua = headers['user-agent'];
  return ua ? ua.slice(0, 200) : null;
}

function tooLarge(limit: number): string {
  return `Request body exceeds the limit of ${limit} bytes`;
}

function parseJson(raw: Buffer | null): unknown {
  return !raw || raw.length === 0 ? undefined : parseJsonBody(raw);
}

/**
 * The request's abort signal, made on first use: most requests never read it, and an AbortController
 * per request was a tenth of the event loop's time on /health/liveness under load.
 */
class LazyAbort {
  private controller: AbortController | null = null;
  private aborted = false;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort();
    }
    return this.controller.signal;
  }

  abort(): void {
    this.aborted = true;
    this.controller?.abort();
  }
}

function parseQuery(query: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (query === '') return out;
  for (const [k, v] of new URLSearchParams(query)) out[storableText(k)] = storableText(v);
  return out;
}

function errorReply(err: unknown, requestId: string, services: Services): { status: number; reply: Reply } {
  const known = httpReplyOf(err);
  if (known) return { status: known.status, reply: { body: known.body, headers: known.headers } };
  services.log.error('unhandled error', { requestId, error: err instanceof Error ? err.stack ?? err.message : String(err) });
  return { status: 500, reply: { body: { detail: 'Internal server error', request_id: requestId } } };
}


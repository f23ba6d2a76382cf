import { a2aProtocol, type Caller } from '../a2a/protocol/service.js';
import { parseGetTask, parseListTasks, parseSendMessage, parseTaskId } from '../a2a/protocol/request.js';
import { A2AProtocolError, invalidParams, restErrorOf, restStatusBody, rpcErrorOf, type StreamResponse } from '../a2a/protocol/wire.js';
import { a2aListTasks, a2aTask, rpcAnswer } from './a2aSchemas.js';
import { asDomainError } from '../domain/errors.js';
import { httpReplyOf } from '../http/errors.js';
import { parseJsonBody } from '../http/jsonBody.js';
import { publicBaseUrl } from '../http/publicUrl.js';
import { z } from 'zod';
import { defineRoute, type Reply, type RequestContext } from '../http/route.js';

/**
 * The A2A protocol (v1.0) at the agent card's interfaces: the HTTP+JSON binding at {base_url} (and the
 * same operations under /a2a/v1) and the JSON-RPC binding at /a2a/v1/jsonrpc, all over
 * src/a2a/protocol (docs/a2a.md). Authentication, rate
 * limits and body limits are the router's, as for /v1. The federation's own routes under /a2a/v1
 * (share-requests, tasks/claim, tasks/complete) are literal paths and win over the patterns here.
 */
export const A2A_BASE = '/a2a/v1';
export const A2A_JSONRPC_PATH = `${A2A_BASE}/jsonrpc`;

const A2A_JSON = 'application/a2a+json';
const SSE_HEADERS = { 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };
const HEARTBEAT_MS = 10_000;
const SUPPORTED_VERSIONS = new Set(['1.0', '1']);
/** `{task id}:{verb}` in the last path segment (AIP-136 custom methods). */
const TASK_VERB = /^(.+):(cancel|subscribe)$/;

function callerOf(ctx: RequestContext<unknown, unknown>): Caller {
  return { principal: ctx.principal, client: ctx.headers['user-agent']?.slice(0, 200) ?? null, baseUrl: publicBaseUrl(ctx.services.config, ctx.headers) };
}

/** Refusals that hold for every A2A request: a protocol version we do not speak, a body that is not JSON. */
function checkRequest(ctx: RequestContext<unknown, unknown>, withBody: boolean): void {
  const version = ctx.headers['a2a-version']?.trim();
  if (version && !SUPPORTED_VERSIONS.has(version)) {
    throw new A2AProtocolError('VersionNotSupportedError', `A2A-Version ${version.slice(0, 20)} is not supported; this agent speaks 1.0`);
  }
  const type = ctx.headers['content-type'];
  if (withBody && type) {
    const media = type.split(';', 1)[0]!.trim().toLowerCase();
    if (media !== 'application/json' && media !== A2A_JSON) {
      throw new A2AProtocolError('ContentTypeNotSupportedError', `Unsupported Content-Type "${type.slice(0, 100)}"; expected application/json or application/a2a+json`);
    }
  }
}

function jsonBody(ctx: RequestContext<unknown, unknown>): unknown {
  if (!ctx.rawBody || ctx.rawBody.length === 0) throw invalidParams('The request has no body: a JSON object is expected');
  try {
    return parseJsonBody(ctx.rawBody);
  } catch (err) {
    throw invalidParams(`Invalid JSON payload: ${asDomainError(err)?.issues?.[0]?.msg ?? 'not JSON'}`);
  }
}

const GOOGLE_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT', 401: 'UNAUTHENTICATED', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 409: 'ABORTED', 410: 'NOT_FOUND',
  413: 'INVALID_ARGUMENT', 422: 'INVALID_ARGUMENT', 429: 'RESOURCE_EXHAUSTED', 501: 'UNIMPLEMENTED', 503: 'UNAVAILABLE', 504: 'DEADLINE_EXCEEDED',
};

/** Any failure of an HTTP+JSON operation in the binding's error shape; an unexpected one goes on to the server (500, logged). */
function restFailure(err: unknown): Reply {
  if (err instanceof A2AProtocolError) {
    const { status, body } = restErrorOf(err);
    return { status, body, contentType: A2A_JSON };
  }
  const known = httpReplyOf(err);
  if (!known) throw err;
  const message = typeof known.body.detail === 'string' ? known.body.detail : 'Invalid request';
  return { status: known.status, body: restStatusBody(known.status, GOOGLE_STATUS[known.status] ?? 'UNKNOWN', message), headers: known.headers, contentType: A2A_JSON };
}

/** Server-Sent Events of a stream, with a comment line every HEARTBEAT_MS so idle proxies keep it open. */
async function* sse(source: AsyncGenerator<StreamResponse>, data: (e: StreamResponse) => unknown, failure: (err: unknown) => string): AsyncGenerator<string> {
  let pending = source.next();
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const beat = new Promise<'beat'>((r) => (timer = setTimeout(() => r('beat'), HEARTBEAT_MS)));
      const next = await Promise.race([pending, beat]).finally(() => clearTimeout(timer));
      if (next === 'beat') {
        yield ': keep-alive\n\n';
        continue;
      }
      if (next.done) return;
      yield `data: ${JSON.stringify(data(next.value))}\n\n`;
      pending = source.next();
    }
  } catch (err) {
    yield failure(err);
  } finally {
    // Not awaited: a follower waiting for the task's next event lets go when that event (or the end) comes.
    void source.return(undefined).catch(() => undefined);
  }
}

function restStream(source: AsyncGenerator<StreamResponse>): Reply {
  return {
    stream: sse(source, (e) => e, (err) => {
      const reply = restFailureOrInternal(err);
      return `event: error\ndata: ${JSON.stringify(reply)}\n\n`;
    }),
    contentType: 'text/event-stream',
    headers: SSE_HEADERS,
  };
}

function restFailureOrInternal(err: unknown): unknown {
  try {
    return restFailure(err).body;
  } catch {
    return restStatusBody(500, 'INTERNAL', 'The stream failed; read the task with GetTask');
  }
}

/** An HTTP+JSON operation: checks, the operation, its answer or its error in the binding's shape. */
function rest(withBody: boolean, op: (ctx: RequestContext<unknown, unknown>) => Promise<Reply>) {
  return async (ctx: RequestContext<unknown, unknown>): Promise<Reply> => {
    try {
      checkRequest(ctx, withBody);
      return await op(ctx);
    } catch (err) {
      return restFailure(err);
    }
  };
}

const ok = (body: unknown): Reply => ({ body, contentType: A2A_JSON });

function noRoute(ctx: RequestContext<unknown, unknown>): Reply {
  return { status: 404, body: { detail: `No route for ${ctx.method} ${ctx.path}` } };
}

// ---- JSON-RPC binding ----

const RPC_PUSH_METHODS = new Set(['CreateTaskPushNotificationConfig', 'GetTaskPushNotificationConfig', 'ListTaskPushNotificationConfigs', 'DeleteTaskPushNotificationConfig']);

type RpcId = string | number | null;

function rpcError(id: RpcId, error: { code: number; message: string; data?: unknown }): Reply {
  return { body: { jsonrpc: '2.0', id, error }, contentType: 'application/json' };
}

function rpcFailure(id: RpcId, err: unknown): Reply {
  if (err instanceof A2AProtocolError) return rpcError(id, rpcErrorOf(err));
  const known = httpReplyOf(err);
  if (!known) throw err;
  const message = typeof known.body.detail === 'string' ? known.body.detail : 'Request failed';
  // Not one of the protocol's errors (pool saturated, database down, ...): JSON-RPC's internal error, with the HTTP status for context.
  return rpcError(id, { code: -32603, message, data: [{ http_status: known.status, ...(known.headers['retry-after'] ? { retry_after_seconds: Number(known.headers['retry-after']) } : {}) }] });
}

async function jsonRpc(ctx: RequestContext<unknown, unknown>): Promise<Reply> {
  let id: RpcId = null;
  try {
    checkRequest(ctx, true);
    let request: unknown;
    try {
      request = ctx.rawBody && ctx.rawBody.length ? parseJsonBody(ctx.rawBody) : undefined;
    } catch {
      return rpcError(null, { code: -32700, message: 'Parse error: the body is not JSON' });
    }
    if (request === null || typeof request !== 'object' || Array.isArray(request)) {
      return rpcError(null, { code: -32600, message: 'Invalid Request: one JSON-RPC 2.0 request object is expected (batches are not supported)' });
    }
    const r = request as Record<string, unknown>;
    if (typeof r.id === 'string' || typeof r.id === 'number') id = r.id;
    if (r.jsonrpc !== '2.0' || typeof r.method !== 'string') return rpcError(id, { code: -32600, message: 'Invalid Request: jsonrpc must be "2.0" and method a string' });
    const params = r.params === undefined ? {} : r.params;
    if (params === null || typeof params !== 'object' || Array.isArray(params)) return rpcError(id, { code: -32602, message: 'Invalid params: params must be an object' });
    const p = params as Record<string, unknown>;
    const a2a = a2aProtocol(ctx.services);
    const caller = callerOf(ctx);
    const result = (value: unknown): Reply => ({ body: { jsonrpc: '2.0', id, result: value }, contentType: 'application/json' });
    const stream = (source: AsyncGenerator<StreamResponse>): Reply => ({
      stream: sse(source, (e) => ({ jsonrpc: '2.0', id, result: e }), (err) => {
        let body: unknown;
        try {
          body = rpcFailure(id, err).body;
        } catch {
          body = { jsonrpc: '2.0', id, error: { code: -32603, message: 'The stream failed; read the task with GetTask' } };
        }
        return `data: ${JSON.stringify(body)}\n\n`;
      }),
      contentType: 'text/event-stream',
      headers: SSE_HEADERS,
    });
    switch (r.method) {
      case 'SendMessage':
        return result({ task: await a2a.send(caller, parseSendMessage(p)) });
      case 'SendStreamingMessage':
        return stream(await a2a.stream(caller, parseSendMessage(p)));
      case 'GetTask': {
        const g = parseGetTask(p);
        return result(await a2a.get(caller, g.id, g.historyLength));
      }
      case 'ListTasks':
        return result(await a2a.list(caller, parseListTasks(p)));
      case 'CancelTask':
        return result(await a2a.cancel(caller, parseTaskId(p)));
      case 'SubscribeToTask':
        return stream(await a2a.subscribe(caller, parseTaskId(p)));
      case 'GetExtendedAgentCard':
        throw new A2AProtocolError('ExtendedAgentCardNotConfiguredError', 'This agent has no extended agent card (extendedAgentCard: false)');
      default:
        if (RPC_PUSH_METHODS.has(r.method)) throw new A2AProtocolError('PushNotificationNotSupportedError', 'Push notifications are not supported (pushNotifications: false)');
        return rpcError(id, { code: -32601, message: `Method not found: ${r.method.slice(0, 100)}` });
    }
  } catch (err) {
    return rpcFailure(id, err);
  }
}

/**
 * The HTTP+JSON binding's operations under a base path. The agent card lists the binding at {base_url}
 * (the spec's "HTTP+JSON at {base_url}"), so the operations are served there; the same operations are
 * also served under /a2a/v1 ("A2A paths are prefixed /a2a/v1"), beside the JSON-RPC binding.
 */
function httpJsonRoutes(prefix: string) {
  return [
    defineRoute({
      method: 'POST',
      path: `${prefix}/message:send`,
      auth: 'key',
      response: z.object({ task: a2aTask }),
      doc: { contentType: A2A_JSON },
      handler: rest(true, async (ctx) => ok({ task: await a2aProtocol(ctx.services).send(callerOf(ctx), parseSendMessage(jsonBody(ctx))) })),
    }),
    defineRoute({
      method: 'POST',
      path: `${prefix}/message:stream`,
      auth: 'key',
      doc: { summary: 'Send a message and stream the task (Server-Sent Events)', contentType: 'text/event-stream' },
      handler: rest(true, async (ctx) => restStream(await a2aProtocol(ctx.services).stream(callerOf(ctx), parseSendMessage(jsonBody(ctx))))),
    }),
    defineRoute({
      method: 'GET',
      path: `${prefix}/tasks`,
      auth: 'key',
      response: a2aListTasks,
      doc: { contentType: A2A_JSON },
      handler: rest(false, async (ctx) => ok(await a2aProtocol(ctx.services).list(callerOf(ctx), parseListTasks(ctx.query as Record<string, string>)))),
    }),
    defineRoute({
      method: 'GET',
      path: `${prefix}/tasks/:task_id`,
      auth: 'key',
      response: a2aTask,
      doc: { description: 'The task; {id}:subscribe streams it as Server-Sent Events instead.', contentType: A2A_JSON },
      // GET /tasks/{id}, and GET /tasks/{id}:subscribe, which the binding allows besides POST.
      handler: rest(false, async (ctx) => {
        const verb = TASK_VERB.exec(ctx.params.task_id!);
        const a2a = a2aProtocol(ctx.services);
        if (verb?.[2] === 'subscribe') return restStream(await a2a.subscribe(callerOf(ctx), verb[1]!));
        if (verb) return noRoute(ctx);
        const g = parseGetTask({ id: ctx.params.task_id, historyLength: (ctx.query as Record<string, string>).historyLength });
        return ok(await a2a.get(callerOf(ctx), g.id, g.historyLength));
      }),
    }),
    defineRoute({
      method: 'POST',
      path: `${prefix}/tasks/:task_operation`,
      auth: 'key',
      response: a2aTask,
      doc: { description: '{id}:cancel answers the task; {id}:subscribe streams it as Server-Sent Events.', contentType: A2A_JSON },
      // POST /tasks/{id}:cancel and /tasks/{id}:subscribe; a literal route (the federation's /a2a/v1/tasks/claim) is matched before this pattern.
      handler: rest(false, async (ctx) => {
        const verb = TASK_VERB.exec(ctx.params.task_operation!);
        if (!verb) return noRoute(ctx);
        const a2a = a2aProtocol(ctx.services);
        if (verb[2] === 'cancel') return ok(await a2a.cancel(callerOf(ctx), verb[1]!));
        return restStream(await a2a.subscribe(callerOf(ctx), verb[1]!));
      }),
    }),
  ];
}

export const a2aRoutes = [
  ...httpJsonRoutes(''),
  ...httpJsonRoutes(A2A_BASE),
  defineRoute({
    method: 'POST',
    path: A2A_JSONRPC_PATH,
    auth: 'key',
    response: rpcAnswer,
    doc: { description: 'JSON-RPC 2.0: a result or an error object, both with status 200; the streaming methods answer Server-Sent Events of such objects.' },
    handler: jsonRpc,
  }),
];

import type { RawResponse } from '../http/engine/types.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { ErrorCode, SUPPORTED_PROTOCOL_VERSIONS, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { writeReply } from '../http/io.js';
import { sseEvent, write } from './pipe.js';

type RequestId = string | number;
const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
// zod's int() refuses integers past 2^53, so the check is for safe integers.
const isId = (v: unknown): v is RequestId => typeof v === 'string' || Number.isSafeInteger(v);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isAnswer = (m: JSONRPCMessage): m is JSONRPCMessage & { id: RequestId } => 'id' in m && ('result' in m || 'error' in m);

/**
 * A message the SDK transport would take as exactly one JSON-RPC request, by its own schema
 * (JSONRPCRequestSchema: strict, `params` an object whose `_meta` holds at most a progress token).
 * Anything less plain (a batch, a related-task `_meta`, null params) answers false and takes the
 * SDK's path, so whatever the SDK would refuse is still refused by the SDK.
 */
export function isPlainRequest(body: unknown): body is JSONRPCRequest {
  if (!isRecord(body) || body.jsonrpc !== '2.0' || typeof body.method !== 'string' || !isId(body.id)) return false;
  for (const k in body) if (!REQUEST_KEYS.has(k)) return false;
  if (body.params === undefined) return true;
  if (!isRecord(body.params)) return false;
  const meta = body.params._meta;
  if (meta === undefined) return true;
  if (!isRecord(meta)) return false;
  for (const k in meta) if (k !== 'progressToken') return false;
  return meta.progressToken === undefined || isId(meta.progressToken);
}

/** The headers the SDK transport checks on a POST inside a session, all passing its checks. */
function headersPass(headers: Record<string, string>): boolean {
  const accept = headers.accept;
  const type = headers['content-type']?.split(';', 1)[0]!.trim().toLowerCase();
  const version = headers['mcp-protocol-version'];
  return (
    !!accept?.includes('application/json') &&
    accept.includes('text/event-stream') &&
    type === 'application/json' &&
    (version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version))
  );
}

interface Waiter {
  deliver(message: JSONRPCMessage): void;
  /** The session closed before the answer: the caller gets a JSON-RPC error instead of a hang. */
  close(): void;
}

/**
 * Answers the common MCP request, a single JSON-RPC request on an open session, without the SDK
 * transport's web Request, ReadableStream and Response (about half of MCP's cost over REST). The
 * request still goes to the same Server through transport.onmessage, as the transport hands it over;
 * its answer, and any notification or request about it, comes back through transport.send, caught
 * here by request id. Everything else (initialize, batches, notifications, GET, DELETE, and any
 * header the transport might refuse) takes the SDK transport's own path with its own checks.
 */
export class DirectAnswers {
  private readonly waiting = new Map<RequestId, Waiter>();

  constructor(
    private readonly transport: WebStandardStreamableHTTPServerTransport,
    /** false: answers are single JSON bodies and notifications about a request are dropped, as the SDK's JSON mode does. */
    private readonly sse: boolean,
  ) {
    const sdkSend = transport.send.bind(transport);
    transport.send = (message, options) => {
      const id = isAnswer(message) ? message.id : options?.relatedRequestId;
      const waiter = id === undefined ? undefined : this.waiting.get(id);
      if (!waiter) return sdkSend(message, options);
      waiter.deliver(message);
      return Promise.resolve();
    };
    const onclose = transport.onclose;
    transport.onclose = () => {
      for (const waiter of [...this.waiting.values()]) waiter.close();
      onclose?.();
    };
  }

  /** Whether this request can be answered here; false sends it down the SDK transport's path. */
  accepts(headers: Record<string, string>, body: unknown): body is JSONRPCRequest {
    return (
      isPlainRequest(body) &&
      body.method !== 'initialize' &&
      !this.waiting.has(body.id) &&
      this.transport.sessionId !== undefined &&
      headers['mcp-session-id'] === this.transport.sessionId &&
      headersPass(headers)
    );
  }

  /**
   * Hands the request to the server and writes its answer: one JSON body when nothing about the
   * request comes before it, else an SSE stream of every message ending with the answer. Resolves
   * once the answer is written or the client went away (`onAbort` registers for that).
   */
  answer(
    res: RawResponse,
    request: JSONRPCRequest,
    ctx: { requestId: string; headers: Record<string, string>; authInfo: AuthInfo; isAborted: () => boolean; onAbort: (fn: () => void) => void },
  ): Promise<void> {
    const sessionId = this.transport.sessionId!;
    let streaming = false;
    let writes = Promise.resolve();
    return new Promise<void>((resolve) => {
      const finish = () => {
        this.waiting.delete(request.id);
        resolve();
      };
      const waiter: Waiter = {
        deliver: (message) => {
          const final = isAnswer(message) && message.id === request.id;
          if (ctx.isAborted()) return final ? finish() : undefined;
          if (final && !streaming) {
            writeReply(res, 200, { raw: Buffer.from(JSON.stringify(message)), contentType: 'application/json', headers: { 'mcp-session-id': sessionId } }, ctx.requestId, false);
            return finish();
          }
          if (!this.sse) return final ? finish() : undefined;
          if (!streaming) {
            streaming = true;
            res.cork(() => {
              res.writeStatus('200 OK');
              res.writeHeader('x-request-id', ctx.requestId);
              res.writeHeader('content-type', 'text/event-stream');
              res.writeHeader('cache-control', 'no-cache, no-transform');
              res.writeHeader('x-accel-buffering', 'no');
              res.writeHeader('mcp-session-id', sessionId);
            });
          }
          const chunk = sseEvent(message);
          writes = writes.then(() => (ctx.isAborted() ? undefined : write(res, chunk)));
          if (final) {
            this.waiting.delete(request.id);
            void writes.then(() => {
              if (!ctx.isAborted()) res.cork(() => res.end());
              resolve();
            });
          }
        },
        close: () => {
          const error = { jsonrpc: '2.0' as const, id: request.id, error: { code: ErrorCode.ConnectionClosed, message: 'Session closed before the request was answered' } };
          waiter.deliver(error);
        },
      };
      this.waiting.set(request.id, waiter);
      // A client gone away: its answer, when it comes, goes where the SDK sends an answer nobody waits for.
      ctx.onAbort(finish);
      const url = `http://localhost/mcp`;
      this.transport.onmessage?.(request, {
        authInfo: ctx.authInfo,
        requestInfo: {
          headers: ctx.headers,
          get url() {
            return new URL(url);
          },
        },
      });
    });
  }
}

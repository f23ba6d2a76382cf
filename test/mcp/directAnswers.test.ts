import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, JSONRPCRequestSchema, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import type uWS from 'uWebSockets.js';
import { describe, expect, it } from 'vitest';
import { DirectAnswers, isPlainRequest } from '../../src/mcp/directAnswers.js';
import { transportRequest } from '../../src/mcp/transportRequest.js';

/** A stand-in uWebSockets.js response that records what is written to it. */
function recorder() {
  const out = { status: '', headers: {} as Record<string, string>, body: '', ended: false };
  const res = {
    cork: (f: () => void) => f(),
    writeStatus: (s: string) => ((out.status = s), res),
    writeHeader: (k: string, v: string) => ((out.headers[k] = v), res),
    getWriteOffset: () => 0,
    write: (chunk: Uint8Array) => ((out.body += Buffer.from(chunk).toString()), true),
    tryEnd: (chunk: Uint8Array) => ((out.body += Buffer.from(chunk).toString()), (out.ended = true), [true, true]),
    end: (chunk?: Uint8Array) => ((out.body += chunk ? Buffer.from(chunk).toString() : ''), (out.ended = true), res),
  };
  return { res: res as unknown as uWS.HttpResponse, out };
}

const baseHeaders = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', host: 'x' };
const authInfo = { token: 't', clientId: 'c', scopes: ['mcp:tools'] };

/** A session on the SDK's transport whose tools/call handler the test controls, with DirectAnswers on it. */
async function session(sse: boolean, handler: (req: { params: { name: string; _meta?: { progressToken?: string | number } } }, extra: { sendNotification: (n: never) => Promise<void> }) => Promise<unknown>) {
  const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(CallToolRequestSchema, handler as never);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID(), enableJsonResponse: !sse });
  await server.connect(transport);
  const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } };
  await (await transport.handleRequest(transportRequest('POST', 'http://localhost/mcp', baseHeaders, null), { parsedBody: init })).text();
  const headers = { ...baseHeaders, 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-06-18' };
  const direct = new DirectAnswers(transport, sse);
  const call = (id: number, meta?: { progressToken?: string }): JSONRPCRequest => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'x', arguments: {}, ...(meta ? { _meta: meta } : {}) } });
  const answer = (request: JSONRPCRequest, aborted = { value: false }, onAbort?: (f: () => void) => void) => {
    const { res, out } = recorder();
    const done = direct.answer(res, request, { requestId: 'r', headers, authInfo, isAborted: () => aborted.value, onAbort: onAbort ?? (() => undefined) });
    return { out, done };
  };
  return { transport, direct, headers, call, answer };
}

const result = { content: [{ type: 'text', text: 'ok' }] };

describe('DirectAnswers', () => {
  it('answers a plain request with one JSON body carrying the session id', async () => {
    const s = await session(true, async () => result);
    expect(s.direct.accepts(s.headers, s.call(1))).toBe(true);
    const { out, done } = s.answer(s.call(1));
    await done;
    expect(out.status).toBe('200 OK');
    expect(out.headers['content-type']).toBe('application/json');
    expect(out.headers['mcp-session-id']).toBe(s.transport.sessionId);
    expect(JSON.parse(out.body)).toEqual({ jsonrpc: '2.0', id: 1, result });
  });

  it('streams notifications about the request as SSE, ending with the answer; JSON mode drops them', async () => {
    const handler = async (req: { params: { _meta?: { progressToken?: string | number } } }, extra: { sendNotification: (n: never) => Promise<void> }) => {
      await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: req.params._meta!.progressToken!, progress: 1 } } as never);
      return result;
    };
    const sse = await session(true, handler);
    const streamed = sse.answer(sse.call(2, { progressToken: 'p' }));
    await streamed.done;
    expect(streamed.out.headers['content-type']).toBe('text/event-stream');
    const events = streamed.out.body.split('\n\n').filter(Boolean);
    expect(events).toHaveLength(2);
    expect(events[0]).toMatch(/^event: message\ndata: .*"notifications\/progress"/);
    expect(JSON.parse(events[1]!.replace('event: message\ndata: ', ''))).toEqual({ jsonrpc: '2.0', id: 2, result });
    expect(streamed.out.ended).toBe(true);

    const json = await session(false, handler);
    const plain = json.answer(json.call(3, { progressToken: 'p' }));
    await plain.done;
    expect(plain.out.headers['content-type']).toBe('application/json');
    expect(JSON.parse(plain.out.body).id).toBe(3);
  });

  it('a session closed while a request waits answers it with a JSON-RPC error instead of hanging', async () => {
    let release!: () => void;
    const s = await session(true, () => new Promise((r) => (release = () => r(result))));
    const pending = s.answer(s.call(4));
    await new Promise((r) => setImmediate(r));
    await s.transport.close();
    await pending.done;
    expect(JSON.parse(pending.out.body)).toMatchObject({ id: 4, error: { code: -32000 } });
    release();
  });

  it('a client gone away releases the wait; its late answer writes nothing', async () => {
    let release!: () => void;
    const s = await session(true, () => new Promise((r) => (release = () => r(result))));
    const aborted = { value: false };
    let abort!: () => void;
    const pending = s.answer(s.call(5), aborted, (f) => (abort = f));
    await new Promise((r) => setImmediate(r));
    aborted.value = true;
    abort();
    await pending.done;
    release();
    await new Promise((r) => setImmediate(r));
    expect(pending.out.body).toBe('');
    expect(s.direct.accepts(s.headers, s.call(5))).toBe(true);
  });

  it('leaves to the SDK transport what it must check: initialize, batches, other sessions, bad headers, an id in flight', async () => {
    let release!: () => void;
    const s = await session(true, () => new Promise((r) => (release = () => r(result))));
    expect(s.direct.accepts(s.headers, { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} })).toBe(false);
    expect(s.direct.accepts(s.headers, [s.call(1)])).toBe(false);
    expect(s.direct.accepts(s.headers, { jsonrpc: '2.0', method: 'notifications/initialized' })).toBe(false);
    expect(s.direct.accepts({ ...s.headers, 'mcp-session-id': 'other' }, s.call(1))).toBe(false);
    expect(s.direct.accepts({ ...s.headers, accept: 'application/json' }, s.call(1))).toBe(false);
    expect(s.direct.accepts({ ...s.headers, 'content-type': 'text/plain' }, s.call(1))).toBe(false);
    expect(s.direct.accepts({ ...s.headers, 'mcp-protocol-version': '1999-01-01' }, s.call(1))).toBe(false);
    expect(s.direct.accepts({ ...s.headers, 'content-type': 'application/json; charset=utf-8' }, s.call(1))).toBe(true);
    const pending = s.answer(s.call(6));
    expect(s.direct.accepts(s.headers, s.call(6))).toBe(false);
    await new Promise((r) => setImmediate(r));
    release();
    await pending.done;
  });

  it('takes only what the SDK would parse as one JSON-RPC request', () => {
    // Mostly well-formed, so that many are accepted; each field is sometimes something the schema refuses.
    const some = <T, U>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<U>) => fc.oneof({ arbitrary: good, weight: 4 }, { arbitrary: bad, weight: 1 });
    const id = some(fc.oneof(fc.string(), fc.integer()), fc.oneof(fc.double(), fc.constant(null), fc.boolean()));
    const meta = some(fc.record({ progressToken: id }, { requiredKeys: [] }), fc.oneof(fc.constant(null), fc.dictionary(fc.constantFrom('other', 'io.modelcontextprotocol/related-task'), id)));
    const params = some(fc.record({ name: fc.string(), _meta: meta }, { requiredKeys: ['name'] }), fc.oneof(fc.constant(null), fc.constant([]), fc.string()));
    const base = fc.record({ jsonrpc: some(fc.constant('2.0'), fc.constant('1.0')), id, method: some(fc.string(), fc.integer()), params }, { requiredKeys: ['jsonrpc', 'id', 'method'] });
    const stray = some(fc.constant(null), fc.constantFrom('result', 'error', 'extra'));
    const message = fc.tuple(base, stray).map(([m, key]) => (key ? { ...m, [key]: {} } : m));
    let accepted = 0;
    fc.assert(
      fc.property(message, (m) => {
        if (!isPlainRequest(m)) return;
        accepted++;
        expect(JSONRPCRequestSchema.safeParse(m).success).toBe(true);
      }),
      { numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(100);
  });
});

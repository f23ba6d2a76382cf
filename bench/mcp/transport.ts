// The SDK's server path alone, in process: a session's WebStandardStreamableHTTPServerTransport and
// Server answering tools/call (a fixed result), request built as the bridge builds it
// (transportRequest.ts), answer sent through pipe.ts to a stand-in socket. Two sessions, one with
// routeRequestsDirectly and one without, in alternating blocks; CPU per request of this process.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type uWS from 'uWebSockets.js';
import { loadavg } from 'node:os';
import { routeRequestsDirectly } from '../../src/mcp/direct.js';
import { pipeResponse } from '../../src/mcp/pipe.js';
import { transportRequest } from '../../src/mcp/transportRequest.js';
import { sized } from '../lib/smoke.js';

const N = Number(process.env.BENCH_N ?? sized(20_000, 2));
/** Alternating blocks of the two sessions, N calls of each in all. */
const BLOCKS = sized(20, 2);
const result = { accurate_tokens: 10, tokenizer: 'o200k_base', fast_estimate: 13, json_estimate: 26, bytes: 51 };
const headers = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', authorization: 'Bearer k', host: '127.0.0.1:8080', 'user-agent': 'node' };
const socket = { cork: (f: () => void) => f(), writeStatus() {}, writeHeader() {}, getWriteOffset: () => 0, tryEnd: () => [true, true], end() {}, write: () => true } as unknown as uWS.HttpResponse;
const authInfo = { token: 'k', clientId: 'k', scopes: ['mcp:tools'], resource: new URL('http://127.0.0.1:8080/mcp') };

async function session(direct: boolean): Promise<() => Promise<void>> {
  const server = new Server({ name: 'bench', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(CallToolRequestSchema, async () => ({ content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result }));
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID() });
  await server.connect(transport);
  if (direct) routeRequestsDirectly(server, transport);
  const post = (h: Record<string, string>, body: unknown) => transport.handleRequest(transportRequest('POST', 'http://localhost/mcp', h, null), { parsedBody: body, authInfo });
  await (await post(headers, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } })).text();
  const inSession = { ...headers, 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-06-18' };
  await post(inSession, { jsonrpc: '2.0', method: 'notifications/initialized' });
  let id = 1;
  return async () => {
    const response = await post(inSession, { jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: 'estimate_tokens', arguments: { text: 'Estimate the tokens of this short sentence, please.' } } });
    await pipeResponse(socket, response, 'r', () => false);
  };
}

const calls = { protocol: await session(false), direct: await session(true) };
const cpu = { protocol: 0, direct: 0 };
for (const f of Object.values(calls)) for (let i = 0; i < sized(2000, 1); i++) await f();
for (let block = 0; block < BLOCKS; block++) {
  const kind = block % 2 ? 'direct' : 'protocol';
  const start = process.cpuUsage();
  for (let i = 0; i < N / (BLOCKS / 2); i++) await calls[kind]();
  const used = process.cpuUsage(start);
  cpu[kind] += used.user + used.system;
}
console.log(`SDK server path, CPU µs per tools/call (n = ${N} each, 1-min load average ${loadavg()[0]!.toFixed(1)}): protocol's guards ${(cpu.protocol / N).toFixed(1)}, routed directly ${(cpu.direct / N).toFixed(1)}`);

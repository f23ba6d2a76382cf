import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { routeRequestsDirectly } from '../../src/mcp/direct.js';
import { waitFor } from '../helpers/waitFor.js';

/** A transport that records what the server sends back. */
function loopback(): Transport & { sent: JSONRPCMessage[] } {
  return { sent: [], start: async () => undefined, close: async () => undefined, async send(m) { this.sent.push(m); } };
}

async function connected() {
  const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(CallToolRequestSchema, async (r) => ({ content: [{ type: 'text', text: `ran ${r.params.name}` }] }));
  const errors: Error[] = [];
  server.onerror = (e) => errors.push(e);
  const transport = loopback();
  await server.connect(transport);
  // Counts what takes the protocol's own path (its guards), then routes requests around it.
  let generic = 0;
  const protocolPath = transport.onmessage!;
  transport.onmessage = (m, extra) => {
    generic++;
    protocolPath(m, extra);
  };
  routeRequestsDirectly(server, transport);
  // Handled once answered: a request by its own answer; anything else by the answer to a ping sent
  // after it (the protocol handles messages in order), which is then taken out of what was sent.
  let barriers = 0;
  const deliver = async (m: JSONRPCMessage) => {
    transport.onmessage!(m, undefined);
    const request = 'method' in m && 'id' in m && !('result' in m) && !('error' in m);
    const id = request ? m.id : `after-${++barriers}`;
    if (!request) transport.onmessage!({ jsonrpc: '2.0', id, method: 'ping' }, undefined);
    const answered = () => transport.sent.findIndex((s) => 'id' in s && s.id === id);
    const at = await waitFor(`the answer to ${id}`, () => answered() + 1);
    if (!request) transport.sent.splice(at - 1, 1);
  };
  return { transport, errors, deliver, generic: () => generic };
}

describe('routeRequestsDirectly', () => {
  it('hands a request straight to the request path and answers it as before', async () => {
    const { transport, deliver, generic } = await connected();
    await deliver({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x', arguments: {} } });
    expect(transport.sent).toEqual([{ jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'ran x' }] } }]);
    await deliver({ jsonrpc: '2.0', id: 8, method: 'no/such' });
    expect(transport.sent[1]).toMatchObject({ id: 8, error: { code: -32601 } });
    expect(generic()).toBe(0);
  });

  it('leaves responses, errors and notifications to the protocol (their own path, as without the routing)', async () => {
    const { transport, errors, deliver, generic } = await connected();
    // A response to a request the server never made: the protocol reports it, as without the routing.
    await deliver({ jsonrpc: '2.0', id: 99, result: {} });
    await deliver({ jsonrpc: '2.0', id: 98, error: { code: 1, message: 'x' } });
    // Carrying a result as well as a method: neither a request nor a response to the protocol.
    await deliver({ jsonrpc: '2.0', id: 97, method: 'tools/call', result: {} } as unknown as JSONRPCMessage);
    await deliver({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(generic()).toBe(4);
    expect(transport.sent).toEqual([]);
    expect(errors.map((e) => e.message)).toEqual([
      expect.stringContaining('unknown message ID'),
      expect.stringContaining('unknown message ID'),
      expect.stringContaining('Unknown message type'),
    ]);
  });
});

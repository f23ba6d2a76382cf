import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { createUser } from '../../src/domain/identity/users.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let client: Client;
let freeKey: string;

beforeAll(async () => {
  server = await startTestServer();
  client = await connectMcp(server.url, server.ownerKey);
  const user = await createUser(server.app.services.db, { plan: 'free' });
  freeKey = (await createApiKey(server.app.services.db, { userId: user.id, plan: 'free' })).key;
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});

describe(`MCP transport (${DB_KIND})`, () => {
  it('initializes a session and lists tools with JSON schemas', async () => {
    expect(client.getServerVersion()?.name).toBe('semantic-compression-service');
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('estimate_tokens');
    expect(names).toContain('tool_help');
    for (const tool of tools) expect(tool.inputSchema.type).toBe('object');
  });

  it('rejects a missing or bad key with 401 and protected-resource metadata', async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('/.well-known/oauth-protected-resource');
    const meta = await fetch(`${server.url}/.well-known/oauth-protected-resource`).then((r) => r.json());
    expect(meta.resource).toBe(`${server.url}/mcp`);
    expect(meta.scopes_supported).toEqual(['mcp:tools', 'mcp:read', 'mcp:write']);
  });

  it('serves one-shot stateless calls without a session', async () => {
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.ownerKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'estimate_tokens', arguments: { text: 'hello world' } } }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const body = await res.json();
    expect(body.id).toBe(7);
    expect(body.result.structuredContent).toMatchObject({ accurate_tokens: 2, bytes: 11 });
  });

  it("does not let another user's key use a session", async () => {
    const sessionId = (client as unknown as { _transport: { sessionId: string } })._transport.sessionId;
    expect(sessionId).toBeTruthy();
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${freeKey}`,
        'mcp-session-id': sessionId,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-06-18',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(res.status).toBe(404);
  });

  it('returns tool-level errors as results, not transport errors', async () => {
    const unknown = await call(client, 'no_such_tool');
    expect(unknown.isError).toBe(true);
    expect(unknown.data.error).toBe('not_found');
    const invalid = await call(client, 'check_budget', { period: 'month' });
    expect(invalid.isError).toBe(true);
    expect(invalid.data.error).toBe('validation_error');
    expect(JSON.stringify(invalid.data.issues)).toContain('period');
  });

  it('records a usage event per call with tool name, method and client', async () => {
    await call(client, 'estimate_tokens', { text: 'count me' });
    await server.app.services.background.drain();
    const [event] = await server.app.services.db.query<any>(
      "select * from usage_events where tool_name = 'estimate_tokens' order by created_at desc limit 1",
    );
    expect(event).toMatchObject({ method: 'mcp_advisory', client: 'vitest-client', status: 'success' });
  });
});

describe(`MCP streaming through the bridge (${DB_KIND})`, () => {
  it('streams answers that carry notifications as SSE, and sends a bare answer as one JSON body', async () => {
    const sse = await startTestServer({ mcpSseResponses: true });
    const sseClient = await connectMcp(sse.url, sse.ownerKey);
    const post = (body: unknown) =>
      fetch(`${sse.url}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${sse.ownerKey}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': (sseClient as unknown as { _transport: { sessionId: string } })._transport.sessionId,
          'mcp-protocol-version': '2025-06-18',
        },
        body: JSON.stringify(body),
      });
    try {
      const progress: number[] = [];
      const result = await sseClient.callTool({ name: 'estimate_tokens', arguments: { text: 'streamed answer' } }, undefined, { onprogress: (p) => progress.push(p.progress) });
      expect((result.structuredContent as { accurate_tokens: number }).accurate_tokens).toBeGreaterThan(0);
      expect(progress.length).toBeGreaterThan(0);

      const streamed = await post({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'estimate_tokens', arguments: { text: 'x' }, _meta: { progressToken: 'p8' } } });
      expect(streamed.headers.get('content-type')).toContain('text/event-stream');
      const events = (await streamed.text()).split('\n\n').filter(Boolean);
      expect(events[0]).toMatch(/^event: message\ndata: .*"notifications\/progress"/);
      expect(events.at(-1)).toMatch(/^event: message\ndata: .*"id":8/);

      const bare = await post({ jsonrpc: '2.0', id: 9, method: 'tools/list' });
      expect(bare.headers.get('content-type')).toContain('application/json');
      expect(bare.headers.get('mcp-session-id')).toBeTruthy();
      const body = (await bare.json()) as { id: number; result: { tools: unknown[] } };
      expect(body.id).toBe(9);
      expect(body.result.tools.length).toBeGreaterThan(0);
    } finally {
      await sseClient.close();
      await sse.close();
    }
  });
});

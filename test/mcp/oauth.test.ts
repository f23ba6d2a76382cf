// OAuth access tokens on /mcp: RFC 8707 resource binding (aud = {base}/mcp) and per-tool scopes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jwtConfig, startIdp, type TestIdp } from '../accounts/helpers.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';

let idp: TestIdp;
let server: TestServer;
let resource: string;

beforeAll(async () => {
  idp = await startIdp();
  server = await startTestServer(jwtConfig(idp));
  resource = `${server.url}/mcp`;
});
afterAll(async () => {
  await server?.close();
  await idp?.close();
});

const token = (scope: string | null, audience = resource, sub = 'oauth|agent') =>
  idp.sign({ plan: 'pro', ...(scope === null ? {} : { scope }) }, { sub, audience });

/** One stateless JSON-RPC call over a raw socket, to see status codes and headers. */
async function rpc(bearer: string, method: string, params: Record<string, unknown> = {}) {
  const res = await fetch(resource, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await res.text();
  return { status: res.status, challenge: res.headers.get('www-authenticate'), json: text ? JSON.parse(text) : undefined };
}

const callTool = (bearer: string, name: string, args: Record<string, unknown> = {}) => rpc(bearer, 'tools/call', { name, arguments: args });

describe(`MCP OAuth access tokens (${DB_KIND})`, () => {
  it('advertises the resource, its authorization server and the three scopes', async () => {
    const meta = await server.request('GET', '/.well-known/oauth-protected-resource', { key: null });
    expect(meta.json).toMatchObject({ resource, authorization_servers: [idp.issuer], scopes_supported: ['mcp:tools', 'mcp:read', 'mcp:write'] });
  });

  it('serves the official SDK client with a token bound to the MCP resource and all scopes', async () => {
    const client = await connectMcp(server.url, await token('mcp:tools mcp:read mcp:write'), 'oauth-agent');
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('ingest_context');
      expect((await call(client, 'estimate_tokens', { text: 'hello world' })).data.accurate_tokens).toBe(2);
      const ingested = await call(client, 'ingest_context', { text: '# Notes\n\nThe cache keeps entries for an hour.\n' });
      expect(ingested.isError).toBe(false);
      const listed = await call(client, 'list_documents');
      expect(listed.data.documents.map((d: { file_id: string }) => d.file_id)).toContain(ingested.data.file_id);
    } finally {
      await client.close();
    }
  });

  it('rejects a token whose audience is not the MCP resource (no token passthrough), while REST accepts it', async () => {
    const restToken = await token('mcp:tools mcp:read mcp:write', idp.audience);
    const res = await rpc(restToken, 'tools/list');
    expect(res.status).toBe(401);
    expect(res.json.detail).toMatch(/aud/);
    expect(res.challenge).toContain(`resource_metadata="${server.url}/.well-known/oauth-protected-resource"`);
    expect((await server.request('GET', '/v1/keys', { key: null, headers: { authorization: `Bearer ${restToken}` } })).status).toBe(200);

    // ...and the reverse: a token minted for /mcp is not a REST credential when REST has its own audience.
    const mcpToken = await token('mcp:tools');
    expect((await server.request('GET', '/v1/keys', { key: null, headers: { authorization: `Bearer ${mcpToken}` } })).status).toBe(401);
    expect((await rpc(mcpToken, 'tools/list')).status).toBe(200);
  });

  it('accepts a token whose aud lists the MCP resource among others, on both surfaces', async () => {
    const both = await idp.sign({ plan: 'pro', scope: 'mcp:tools' }, { sub: 'oauth|agent', audience: [idp.audience, resource] as unknown as string });
    expect((await rpc(both, 'tools/list')).status).toBe(200);
    expect((await server.request('GET', '/v1/keys', { key: null, headers: { authorization: `Bearer ${both}` } })).status).toBe(200);
  });

  it('mcp:tools alone runs compute tools but not tools that read or write stored data (403 step-up)', async () => {
    const t = await token('mcp:tools');
    expect((await rpc(t, 'tools/list')).status).toBe(200);
    const ok = await callTool(t, 'estimate_tokens', { text: 'hello world' });
    expect(ok.status).toBe(200);
    expect(ok.json.result.structuredContent.accurate_tokens).toBe(2);

    const read = await callTool(t, 'list_documents');
    expect(read.status).toBe(403);
    expect(read.challenge).toContain('error="insufficient_scope"');
    expect(read.challenge).toContain('scope="mcp:read"');
    expect(read.challenge).toContain('resource_metadata=');
    expect(read.json.detail).toContain('list_documents');

    const write = await callTool(t, 'delete_document', { file_id: '00000000-0000-0000-0000-000000000000' });
    expect(write.status).toBe(403);
    expect(write.challenge).toContain('scope="mcp:write"');
  });

  it('mcp:read reads stored data but cannot write or run compute tools', async () => {
    const t = await token('mcp:read', resource, 'oauth|reader');
    const listed = await callTool(t, 'list_documents');
    expect(listed.status).toBe(200);
    expect(listed.json.result.structuredContent.documents).toEqual([]);
    expect((await callTool(t, 'ingest_context', { text: 'x' })).status).toBe(403);
    expect((await callTool(t, 'estimate_tokens', { text: 'x' })).challenge).toContain('scope="mcp:tools"');
  });

  it('a token with no MCP scope cannot even initialize; unrelated scopes do not count', async () => {
    for (const scope of [null, 'openid profile']) {
      const res = await rpc(await token(scope), 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } });
      expect(res.status).toBe(403);
      expect(res.challenge).toContain('scope="mcp:tools mcp:read mcp:write"');
    }
  });

  it('API keys are not scope-limited', async () => {
    const res = await callTool(server.ownerKey, 'list_documents');
    expect(res.status).toBe(200);
  });
});

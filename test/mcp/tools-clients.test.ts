// configure_for_client over the MCP SDK client: a snippet per client in its own format, pointing at
// this service's /mcp with the chosen toolsets, and never carrying the caller's key.
import { Client as McpClient, type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_IDS } from '../../src/domain/platform/clientConfig.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { connectAs, newKey } from '../helpers/users.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let key: string;
let pro: Client;
let free: Client;
beforeAll(async () => {
  server = await startTestServer();
  key = await newKey(server, 'pro');
  pro = await connectMcp(server.url, key);
  free = await connectAs(server, 'free');
});
afterAll(async () => {
  for (const c of [pro, free]) await c?.close();
  await server?.close();
});

describe(`configure_for_client (${DB_KIND})`, () => {
  it('every client gets a snippet in its format with this server\'s URL and toolsets, and no key', async () => {
    for (const client of CLIENT_IDS) {
      const r = (await call(pro, 'configure_for_client', { client, toolsets: ['knowledge-base'] })).data;
      expect(r.url, client).toBe(`${server.url}/mcp?toolsets=knowledge-base`);
      expect(r.snippet, client).toContain(r.url);
      expect(r.snippet, client).not.toContain(key);
      expect(r.snippet, client).not.toMatch(/gc_[0-9a-f]{32}/);
      expect(r.location.length, client).toBeGreaterThan(5);
      if (r.format === 'json') expect(() => JSON.parse(r.snippet), client).not.toThrow();
      if (r.format === 'toml') expect(r.snippet).toMatch(/^\[mcp_servers\.compression\]\nurl = ".+"\nbearer_token_env_var = "GC_KEY"\n$/);
    }
    const cursor = JSON.parse((await call(pro, 'configure_for_client', { client: 'cursor', env_var: 'COMPRESSION_KEY' })).data.snippet);
    expect(cursor).toEqual({ mcpServers: { compression: { url: `${server.url}/mcp`, headers: { Authorization: 'Bearer ${env:COMPRESSION_KEY}' } } } });
    const vscode = JSON.parse((await call(pro, 'configure_for_client', { client: 'vscode' })).data.snippet);
    expect(vscode.servers.compression).toMatchObject({ type: 'http', url: `${server.url}/mcp` });
    expect(vscode.inputs[0]).toMatchObject({ type: 'promptString', password: true });
  });

  it('the Claude Code command it gives adds a server the real MCP transport accepts', async () => {
    const r = (await call(pro, 'configure_for_client', { client: 'claude-code', toolsets: ['all'] })).data;
    expect(r.snippet).toBe(`claude mcp add --transport http compression "${server.url}/mcp?toolsets=all" --header "Authorization: Bearer $GC_KEY"`);
    // The URL it names, with the header it names, lists every tool over the SDK client.
    const all = new McpClient({ name: 'claude-code', version: '1.0.0' });
    await all.connect(new StreamableHTTPClientTransport(new URL(r.url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
    expect((await all.listTools()).tools.length).toBeGreaterThan(40);
    await all.close();
  });

  it('unknown clients, toolsets and variable names are clear errors; Free gets plan_required', async () => {
    expect((await call(pro, 'configure_for_client', { client: 'notepad' })).data.error).toBe('validation_error');
    const ts = await call(pro, 'configure_for_client', { client: 'cursor', toolsets: ['nonsense'] });
    expect(ts.isError).toBe(true);
    expect(ts.data.detail).toMatch(/Unknown toolset nonsense; toolsets are core, /);
    expect((await call(pro, 'configure_for_client', { client: 'cursor', env_var: 'bad name' })).data.error).toBe('validation_error');
    expect((await call(free, 'configure_for_client', { client: 'cursor' })).data.error).toBe('plan_required');
  });
});

// MCP beyond tools/call, through the official SDK client: transport security (Origin, Host), logging
// (setLevel, messages from long runs), progress and cancellation, resources with completion, and
// toolsets that keep the default tools/list under 5,000 tokens.
import { Client as McpClient, type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, LoggingMessageNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { encode } from 'gpt-tokenizer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preserveOriginal } from '../../src/domain/compression/originals.js';
import { runTask } from '../../src/domain/compute.js';
import { allTools } from '../../src/mcp/registry.js';
import { makeUser } from '../accounts/helpers.js';
import { makeTenant } from '../kb/helpers.js';
import { call } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/waitFor.js';

let server: TestServer;
const open: Client[] = [];
async function client(key = server.ownerKey, query = ''): Promise<Client> {
  const c = new McpClient({ name: 'protocol-test', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp${query}`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  open.push(c);
  return c;
}

beforeAll(async () => {
  server = await startTestServer({ poolThreads: 1, mcpAllowedOrigins: ['https://app.example.com'] });
});
afterAll(async () => {
  await Promise.allSettled(open.map((c) => c.close()));
  await server?.close();
});

const FILES = Array.from({ length: 12 }, (_, i) => ({
  path: `src/mod${i}.ts`,
  content: `import { helper${(i + 1) % 12} } from './mod${(i + 1) % 12}';\nexport function helper${i}(x: number): number {\n  return helper${(i + 1) % 12}(x) + ${i};\n}\n`,
}));

const initialize = (headers: Record<string, string>) =>
  fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${server.ownerKey}`, ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }),
  });

describe(`MCP transport security (${DB_KIND})`, () => {
  it('refuses a foreign Origin with 403, before authentication; no Origin, a loopback page or an allowed origin is served', async () => {
    const evil = await initialize({ origin: 'http://evil.example' });
    expect(evil.status).toBe(403);
    expect((await evil.json()).detail).toContain('Origin');
    const evilNoKey = await fetch(`${server.url}/mcp`, { method: 'POST', headers: { origin: 'https://evil.example', 'content-type': 'application/json' }, body: '{}' });
    expect(evilNoKey.status).toBe(403);
    expect((await initialize({})).status).toBe(200);
    expect((await initialize({ origin: 'http://localhost:5173' })).status).toBe(200);
    expect((await initialize({ origin: 'https://app.example.com' })).status).toBe(200);
    expect((await initialize({ origin: 'https://app.example.com.evil.example' })).status).toBe(403);
  });

  it('on a loopback listener, a Host that is not a local name is refused (DNS rebinding)', async () => {
    const { request } = await import('node:http');
    const status = (host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: new URL(server.url).port, method: 'POST', path: '/mcp', headers: { host, authorization: `Bearer ${server.ownerKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
      });
    expect(await status('rebound.evil.example')).toBe(403);
    expect(await status(`localhost:${new URL(server.url).port}`)).not.toBe(403);
  });
});

describe(`MCP logging, progress and cancellation (${DB_KIND})`, () => {
  it('sends progress for each compute step of compress_codebase, increasing, ending at its total', async () => {
    const c = await client();
    const updates: { progress: number; total?: number }[] = [];
    const result = await c.callTool({ name: 'compress_codebase', arguments: { files: FILES, query: 'helper' } }, CallToolResultSchema, { onprogress: (p) => updates.push(p) });
    expect(result.isError).toBeFalsy();
    expect(updates.length).toBeGreaterThanOrEqual(3);
    expect(updates[0]!.progress).toBe(0);
    for (let i = 1; i < updates.length; i++) expect(updates[i]!.progress).toBeGreaterThan(updates[i - 1]!.progress);
    const last = updates.at(-1)!;
    expect(last.total).toBeGreaterThan(1);
    expect(last.progress).toBe(last.total);
  });

  it('a call with no compute step still ends its progress; without a progressToken none is sent', async () => {
    const c = await client();
    const updates: { progress: number; total?: number }[] = [];
    await c.callTool({ name: 'get_compression_presets', arguments: {} }, CallToolResultSchema, { onprogress: (p) => updates.push(p) });
    expect(updates.map((u) => u.progress)).toEqual([0, 1]);
    expect(updates.at(-1)!.total).toBe(1);
  });

  it('logging/setLevel filters notifications/message; a run past a second says it is still running; errors are logged', async () => {
    const c = await client();
    const messages: { level: string; data: any }[] = [];
    c.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void messages.push(n.params as { level: string; data: unknown }));
    // The only thread is held, so the next call waits in the queue for about two seconds.
    const hold = runTask(server.app.services, 'ping', { holdMs: 2200 }, { owner: 'someone-else' });
    expect(server.app.services.pool.stats().running).toBe(1); // dispatched at once: the thread is held from here
    await call(c, 'estimate_tokens', { text: 'waits behind the held thread' });
    await hold;
    expect(messages.some((m) => m.level === 'info' && /still running/.test(m.data.message))).toBe(true);

    messages.length = 0;
    await call(c, 'get_original_output', { original_id: '00000000-0000-4000-8000-000000000000' });
    expect(messages.some((m) => m.level === 'warning' && m.data.error === 'not_found')).toBe(true);

    await c.setLoggingLevel('error');
    messages.length = 0;
    await call(c, 'get_original_output', { original_id: '00000000-0000-4000-8000-000000000000' });
    expect(messages).toEqual([]);
  });

  it('notifications/cancelled stops the call’s pool work: its queued task leaves the queue at once', async () => {
    const c = await client();
    const pool = server.app.services.pool;
    const hold = runTask(server.app.services, 'ping', { holdMs: 3000 }, { owner: 'someone-else' });
    expect(pool.stats().running).toBe(1); // dispatched at once: the thread is held from here
    let holding = true;
    void hold.then(() => (holding = false));
    const abort = new AbortController();
    const pending = c.callTool({ name: 'compress_codebase', arguments: { files: FILES } }, CallToolResultSchema, { signal: abort.signal }).then(() => 'answered', () => 'cancelled');
    await waitFor('the call queued behind the held thread', () => pool.stats().queue_size > 0);
    abort.abort('user stopped it');
    expect(await pending).toBe('cancelled');
    await waitFor('the cancelled call left the queue', () => pool.stats().queue_size === 0);
    expect(holding).toBe(true); // it left at once, not when the held thread freed up
    expect(pool.stats().running).toBe(1);
    await hold;
  });
});

describe(`MCP resources and completion (${DB_KIND})`, () => {
  it('reads the caller’s preserved originals and Knowledge Hub items; another user’s read as not found; completion offers only own ids', async () => {
    const db = server.app.services.db;
    const tenant = await makeTenant(server, 'pro');
    const other = await makeUser(server, 'pro');
    const mine = await preserveOriginal(db, tenant.userId, 'the whole original text', 5);
    const theirs = await preserveOriginal(db, other.userId, 'someone else’s original', 4);
    const c = await client(tenant.keyA);
    const item = await call(c, 'gc_kb_ingest', { name: 'notes', content: '# Notes\n\nResources are owner-scoped.' });
    expect(item.isError).toBe(false);

    const { resourceTemplates } = await c.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual(['gc://knowledge/items/{item_id}', 'gc://originals/{original_id}']);
    const { resources } = await c.listResources();
    expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining([`gc://originals/${mine}`, `gc://knowledge/items/${item.data.item_id}`]));
    expect(resources.map((r) => r.uri)).not.toContain(`gc://originals/${theirs}`);

    const read = await c.readResource({ uri: `gc://originals/${mine}` });
    expect(read.contents[0]).toMatchObject({ uri: `gc://originals/${mine}`, text: 'the whole original text' });
    expect((await c.readResource({ uri: `gc://knowledge/items/${item.data.item_id}` })).contents[0]).toMatchObject({ text: expect.stringContaining('owner-scoped') });
    await expect(c.readResource({ uri: `gc://originals/${theirs}` })).rejects.toMatchObject({ code: -32002 });
    await expect(c.readResource({ uri: 'gc://originals/not-an-id' })).rejects.toMatchObject({ code: -32002 });
    await expect(c.readResource({ uri: 'file:///etc/passwd' })).rejects.toMatchObject({ code: -32602 });
    // An unbound key of the same user sees no project items.
    const unbound = await client(tenant.unbound);
    await expect(unbound.readResource({ uri: `gc://knowledge/items/${item.data.item_id}` })).rejects.toMatchObject({ code: -32002 });

    const complete = (uri: string, name: string, value: string) => c.complete({ ref: { type: 'ref/resource', uri }, argument: { name, value } });
    expect((await complete('gc://originals/{original_id}', 'original_id', mine.slice(0, 4))).completion.values).toContain(mine);
    expect((await complete('gc://originals/{original_id}', 'original_id', theirs.slice(0, 8))).completion.values).not.toContain(theirs);
    expect((await complete('gc://knowledge/items/{item_id}', 'item_id', '')).completion.values).toContain(item.data.item_id);
  });
});

describe(`MCP prompts (${DB_KIND})`, () => {
  it('lists the workflow prompts, renders them with their arguments, completes argument values and refuses bad ones', async () => {
    const c = await client();
    const { prompts } = await c.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['budget-check', 'compress-text']);
    for (const p of prompts) expect(p.description).toBeTruthy();
    const got = await c.getPrompt({ name: 'compress-text', arguments: { text: 'Some long text.', fidelity: 'outline' } });
    expect(got.messages[0]!.content).toMatchObject({ type: 'text', text: expect.stringContaining('fidelity "outline"') });
    expect((await c.complete({ ref: { type: 'ref/prompt', name: 'compress-text' }, argument: { name: 'fidelity', value: 'ba' } })).completion.values).toEqual(['balanced']);
    await expect(c.getPrompt({ name: 'compress-text', arguments: {} })).rejects.toMatchObject({ code: -32602 });
    await expect(c.getPrompt({ name: 'compress-text', arguments: { text: 'x', fidelity: 'tiny' } })).rejects.toMatchObject({ code: -32602 });
    await expect(c.getPrompt({ name: 'nope' })).rejects.toMatchObject({ code: -32602 });
  });
});

describe(`MCP toolsets (${DB_KIND})`, () => {
  const tokens = (tools: unknown[]) => encode(JSON.stringify({ tools })).length;

  it('the default tools/list is the core and stays under 5,000 tokens; ?toolsets=all lists every tool', async () => {
    const { tools } = await (await client()).listTools();
    const size = tokens(tools);
    console.log(`default tools/list: ${tools.length} tools, ${size} tokens; catalogue ${allTools().length} tools`);
    expect(size).toBeLessThan(5000);
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['tool_help', 'estimate_tokens', 'compress_tool_output', 'optimize_for_model']));
    const all = await (await client(server.ownerKey, '?toolsets=all')).listTools();
    expect(all.tools.map((t) => t.name).sort()).toEqual(allTools().map((t) => t.name).sort());
  });

  it('X-MCP-Toolsets or ?toolsets= adds categories; an unknown toolset is a 400 naming the valid ones', async () => {
    const kb = await (await client(server.ownerKey, '?toolsets=knowledge-base')).listTools();
    expect(kb.tools.map((t) => t.name)).toContain('gc_kb_query');
    const viaHeader = await initialize({ 'x-mcp-toolsets': 'nonsense' });
    expect(viaHeader.status).toBe(400);
    expect((await viaHeader.json()).detail).toMatch(/Unknown toolset nonsense; toolsets are core, .*knowledge-base/);
  });

  it('tool_help enable_toolsets widens the list at run time with tools/list_changed; unlisted tools are callable all along', async () => {
    const c = await client();
    const before = (await c.listTools()).tools.map((t) => t.name);
    expect(before).not.toContain('toon_encode');
    // Callable without being listed.
    expect((await call(c, 'toon_encode', { data: { a: 1 } })).isError).toBe(false);
    let changed = 0;
    c.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++);
    const r = await call(c, 'tool_help', { enable_toolsets: ['general'] });
    expect(r.data.toolsets.enabled).toEqual(['core', 'general']);
    await waitFor('notifications/tools/list_changed', () => changed > 0);
    expect(changed).toBe(1);
    expect((await c.listTools()).tools.map((t) => t.name)).toContain('toon_encode');
    expect((await call(c, 'tool_help', { enable_toolsets: ['bogus'] })).data.error).toBe('invalid_request');
  });
});

// proxy_mcp_server against real upstream MCP servers built with the SDK (test/fixtures/mcp/upstream.mjs),
// one over Streamable HTTP in its own process and one over stdio started by the service.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { call } from '../helpers/mcp.js';
import { DB_KIND } from '../helpers/server.js';
import { connectAs } from '../helpers/users.js';
import { startCapturingServer, type CapturingServer } from '../workflows/helpers.js';

const UPSTREAM = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/mcp/upstream.mjs');

function startHttpUpstream(): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [UPSTREAM, 'http'], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.once('error', reject);
    child.stdout!.on('data', (d: Buffer) => {
      const m = /port (\d+)/.exec(d.toString());
      if (m) resolve({ child, port: Number(m[1]) });
    });
  });
}

describe(`proxy_mcp_server (${DB_KIND})`, () => {
  let server: CapturingServer;
  let upstream: { child: ChildProcess; port: number };
  let pro: Client;
  let url: string;

  beforeAll(async () => {
    upstream = await startHttpUpstream();
    url = `http://127.0.0.1:${upstream.port}/mcp`;
    const base = loadConfig({});
    server = await startCapturingServer({
      mcpProxy: { ...base.mcpProxy, allowedHosts: [`127.0.0.1:${upstream.port}`, '127.0.0.1:9'], stdioServers: { fixture: { command: process.execPath, args: [UPSTREAM, 'stdio'] } }, timeoutMs: 5000 },
    });
    pro = await connectAs(server, 'pro');
  });

  afterAll(async () => {
    await pro?.close();
    await server?.close();
    upstream?.child.kill();
  });

  it('calls an upstream tool over Streamable HTTP and compresses its output, keeping the error line', async () => {
    const r = await call(pro, 'proxy_mcp_server', { server: { url }, tool: 'read_log', arguments: { lines: 400 }, query: 'which error failed the build' });
    expect(r.isError).toBe(false);
    expect(r.data).toMatchObject({ upstream: { transport: 'streamable-http', name: 'upstream-fixture', version: '1.2.3' }, tool: 'read_log', is_error: false, compressed: true });
    expect(r.data.compressed_tokens).toBeLessThan(r.data.original_tokens / 2);
    expect(r.data.content[0].text).toContain('TS2345');
    expect(r.data.tokens_saved).toBe(r.data.original_tokens - r.data.compressed_tokens);
  });

  it('lists the upstream tools with shorter descriptions and schemas byte for byte', async () => {
    const r = await call(pro, 'proxy_mcp_server', { server: { url }, action: 'list_tools', max_description_chars: 40 });
    expect(r.isError).toBe(false);
    const names = r.data.tools.map((t: { name: string }) => t.name).sort();
    expect(names).toEqual(['echo', 'fail', 'read_log', 'slow', 'whoami']);
    const readLog = r.data.tools.find((t: { name: string }) => t.name === 'read_log');
    expect(readLog.description.length).toBeLessThanOrEqual(40);
    expect(readLog.inputSchema.properties.lines).toMatchObject({ type: 'integer', maximum: 5000 });
    expect(r.data.compressed_tokens).toBeLessThan(r.data.original_tokens);
  });

  it('works the same over stdio with a server the operator configured', async () => {
    const r = await call(pro, 'proxy_mcp_server', { server: { stdio: 'fixture' }, tool: 'read_log', arguments: { lines: 400 }, query: 'error' });
    expect(r.isError).toBe(false);
    expect(r.data).toMatchObject({ upstream: { transport: 'stdio', name: 'upstream-fixture' }, compressed: true });
    expect(r.data.content[0].text).toContain('TS2345');
    const small = await call(pro, 'proxy_mcp_server', { server: { stdio: 'fixture' }, tool: 'echo', arguments: { text: 'hello upstream' }, include_structured: true });
    expect(small.data).toMatchObject({ compressed: false, content: [{ type: 'text', text: 'hello upstream' }], structured_content: { text: 'hello upstream', length: 14 } });
  });

  it("passes the caller's upstream headers through, and returns the upstream's own tool errors as is_error", async () => {
    const who = await call(pro, 'proxy_mcp_server', { server: { url, headers: { Authorization: 'Bearer upstream-token-123' } }, tool: 'whoami' });
    expect(who.data.content[0].text).toBe('Bearer upstream-token-123');
    const failed = await call(pro, 'proxy_mcp_server', { server: { url }, tool: 'fail' });
    expect(failed.isError).toBe(false);
    expect(failed.data).toMatchObject({ is_error: true, content: [{ type: 'text', text: 'disk quota exceeded on /var/build' }] });
    // The upstream credential went through only: not in a log line, not in any table.
    expect(server.logs.join('\n')).not.toContain('upstream-token-123');
    const db = server.app.services.db;
    const tables = await db.query<{ table_name: string }>("select table_name from information_schema.tables where table_schema = 'public'");
    for (const { table_name } of tables) {
      const rows = await db.query(`select * from "${table_name}"`);
      expect(JSON.stringify(rows), table_name).not.toContain('upstream-token-123');
    }
  });

  it('refuses what it must: private targets, plain http, unknown stdio names, redirects, reserved headers, no tool', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ server: { url: 'http://127.0.0.1:10/mcp' }, tool: 'echo' }, /fetch_refused.*https/],
      [{ server: { url: 'https://127.0.0.1:10/mcp' }, tool: 'echo' }, /fetch_refused.*not a public address/],
      [{ server: { url: 'https://169.254.169.254/mcp' }, tool: 'echo' }, /fetch_refused/],
      [{ server: { url: 'not a url' }, tool: 'echo' }, /fetch_refused.*valid URL/],
      [{ server: { stdio: 'bash' }, tool: 'echo' }, /No stdio MCP server named 'bash'/],
      [{ server: { url: `http://127.0.0.1:${upstream.port}/moved` }, tool: 'echo' }, /redirect/],
      [{ server: { url, headers: { Host: 'evil' } }, tool: 'echo' }, /cannot be sent upstream/],
      [{ server: { url } }, /tool is required/],
      [{ server: { command: 'rm', args: ['-rf', '/'] }, tool: 'echo' }, /.+/],
    ];
    for (const [args, detail] of cases) {
      const r = await call(pro, 'proxy_mcp_server', args);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(JSON.stringify(r.data), JSON.stringify(args)).toMatch(detail);
    }
  });

  it('reports an unknown upstream tool and a timeout as clear errors', async () => {
    const unknown = await call(pro, 'proxy_mcp_server', { server: { url }, tool: 'no_such_tool' });
    // The SDK server answers an unknown tool with isError content (or a protocol error): either way the caller learns it.
    expect(unknown.isError ? JSON.stringify(unknown.data) : unknown.data.content[0].text).toMatch(/no_such_tool/);
    const slow = await call(pro, 'proxy_mcp_server', { server: { url }, tool: 'slow', arguments: { ms: 8000 } });
    expect(slow.isError).toBe(true);
    expect(JSON.stringify(slow.data)).toMatch(/in time|timed out|timeout/i);
  });

  it('reports an unreachable server as unavailable, at once', async () => {
    // 127.0.0.1:9 is an allowed host here with nothing listening on it. With a time limit longer than
    // the test may run, only the refused connection can end the call, and it must say so (not a timeout).
    const settings = server.app.services.config.mcpProxy;
    const limit = settings.timeoutMs;
    settings.timeoutMs = 10 * 60_000;
    try {
      const down = await call(pro, 'proxy_mcp_server', { server: { url: 'http://127.0.0.1:9/mcp' }, tool: 'echo' });
      expect(down.isError).toBe(true);
      expect(JSON.stringify(down.data)).toMatch(/Cannot reach the upstream MCP server/);
      expect(down.data).toMatchObject({ error: 'bad_gateway', reason: 'network', host: '127.0.0.1:9' });
    } finally {
      settings.timeoutMs = limit;
    }
  });

  it('is a Pro tool', async () => {
    const free = await connectAs(server, 'free');
    const r = await call(free, 'proxy_mcp_server', { server: { url }, tool: 'echo', arguments: { text: 'x' } });
    expect(r.isError).toBe(true);
    expect(JSON.stringify(r.data)).toMatch(/plan/i);
    await free.close();
  });
});

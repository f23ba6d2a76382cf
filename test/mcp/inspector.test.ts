// An outside MCP client: @modelcontextprotocol/inspector in CLI mode, run as its own process
// against a started server, the way a developer checks an MCP endpoint by hand.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const inspectorBin = join(dirname(require.resolve('@modelcontextprotocol/inspector/package.json')), 'cli', 'build', 'cli.js');

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

/** `mcp-inspector --cli <url> --transport http ...`; resolves with the parsed JSON it prints. */
async function inspector(args: string[], key = server.ownerKey): Promise<any> {
  const { stdout } = await run(process.execPath, [inspectorBin, '--cli', `${server.url}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${key}`, ...args], {
    timeout: 60_000,
    env: { ...process.env, NODE_NO_WARNINGS: '1' },
  });
  return JSON.parse(stdout);
}

describe(`MCP through @modelcontextprotocol/inspector --cli (${DB_KIND})`, () => {
  it('lists the registry tools with their input schemas', async () => {
    const { tools } = await inspector(['--method', 'tools/list']);
    const names = tools.map((t: { name: string }) => t.name);
    expect(names).toContain('estimate_tokens');
    expect(names).toContain('compress_tool_output');
    const estimate = tools.find((t: { name: string }) => t.name === 'estimate_tokens');
    expect(estimate.inputSchema.type).toBe('object');
    expect(estimate.inputSchema.properties).toHaveProperty('text');
  }, 90_000);

  it('calls a tool and gets structured content back', async () => {
    const result = await inspector(['--method', 'tools/call', '--tool-name', 'estimate_tokens', '--tool-arg', 'text=hello world, how are you']);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.accurate_tokens).toBe(6);
    expect(result.structuredContent.bytes).toBe(24);
  }, 90_000);

  it('is turned away with a bad key', async () => {
    await expect(inspector(['--method', 'tools/list'], 'gc_00000000000000000000000000000000')).rejects.toThrow();
  }, 90_000);
});

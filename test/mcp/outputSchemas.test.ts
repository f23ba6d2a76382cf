// Tools as data: every listed tool carries MCP annotations and an outputSchema. What each tool returns is
// validated against it on every call the suites make: the official SDK client's callTool checks the listed
// schema and callTool (src/mcp/call.ts) the tool's zod schema, and the contract suite (test/contract) calls
// every tool once with a sample that must succeed. The samples below check a few core tools here too.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allTools } from '../../src/mcp/registry.js';
import { call } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { connectAs } from '../helpers/users.js';

const PROSE = 'The service compresses text for language models. It keeps the meaning and drops the filler. '.repeat(40);
const LOG = Array.from({ length: 60 }, (_, i) => (i % 10 === 9 ? `ERROR build failed at src/app.ts:${i}` : `info: compiled module ${i % 3}`)).join('\n');

/** Valid inputs for the core tools, called here directly (the contract suite calls every tool). */
const SAMPLE_INPUT: Record<string, Record<string, unknown>> = {
  tool_help: { tool_name: 'estimate_tokens' },
  gc_pre_flight: { text: PROSE, used_tokens: 1000, model: 'gpt-4o' },
  check_context_budget: { used_tokens: 50_000, context_window: 128_000 },
  check_budget: { scope: 'monthly' },
  estimate_tokens: { text: PROSE },
  recommend_fidelity: { text: PROSE, context_window: 8000 },
  should_compress: { text: PROSE, context_window: 8000 },
  optimize_for_model: { text: PROSE, model: 'gpt-4o' },
  adapt_to_context_window: { text: PROSE, context_window: 4000, used_tokens: 2000, reserve_tokens: 200 },
  compress_tool_output: { output: LOG },
  gc_session_summary: {},
  get_compression_presets: {},
  get_compression_profile: {},
  set_compression_profile: { profile: 'detailed', chunk_size: 256 },
};

let server: TestServer;
let client: Client;
beforeAll(async () => {
  server = await startTestServer();
  client = await connectAs(server, 'enterprise');
  expect((await call(client, 'tool_help', { enable_toolsets: ['all'] })).isError).toBe(false);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await server?.close();
});

async function listAll(c: Client) {
  const tools = [];
  let cursor: string | undefined;
  do {
    const page = await c.listTools(cursor ? { cursor } : undefined);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}

describe(`tool metadata as data (${DB_KIND})`, () => {
  it('lists every tool with annotations (a title at least) and an object outputSchema', async () => {
    const listed = await listAll(client);
    expect(listed).toHaveLength(allTools().length);
    for (const tool of listed) {
      expect(tool.annotations?.title, tool.name).toEqual(expect.any(String));
      expect(tool.outputSchema?.type, tool.name).toBe('object');
    }
    // Hints say what differs from MCP's defaults: a read-only tool says so, a deleting one is not marked harmless.
    const byName = new Map(listed.map((t) => [t.name, t]));
    expect(byName.get('estimate_tokens')!.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(byName.get('delete_document')!.annotations?.destructiveHint).toBeUndefined();
    expect(byName.get('delete_document')!.annotations?.idempotentHint).toBe(true);
    expect(byName.get('gc_web_lookup')!.annotations?.openWorldHint).toBeUndefined();
    expect(byName.get('compress_codebase')!.annotations).toMatchObject({ destructiveHint: false, openWorldHint: false });
  });

  it('every tool declares an outputSchema', () => {
    expect(allTools().filter((t) => !t.output).map((t) => t.name)).toEqual([]);
  });

  for (const tool of allTools().filter((t) => SAMPLE_INPUT[t.name])) {
    it(`${tool.name}: structuredContent validates against its outputSchema`, async () => {
      // The SDK client throws when structuredContent does not match the listed outputSchema.
      const result = await client.callTool({ name: tool.name, arguments: SAMPLE_INPUT[tool.name] });
      expect(result.isError, JSON.stringify(result.content).slice(0, 400)).toBeFalsy();
      const checked = tool.output!.safeParse(result.structuredContent);
      expect(checked.success ? [] : checked.error.issues).toEqual([]);
    });
  }

  it('an error of a tool with an outputSchema carries its payload in text only (clients validate any structuredContent)', async () => {
    const result = await client.callTool({ name: 'check_context_budget', arguments: { used_tokens: 10, model: 'no-such-model' } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    const payload = JSON.parse((result.content as { text: string }[])[0]!.text);
    expect(payload.error).toBe('validation_error');
    expect(payload.detail).toMatch(/context_window/);
  });
});

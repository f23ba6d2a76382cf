import { expect } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** An official SDK client connected to the server's /mcp with a bearer key. */
export async function connectMcp(url: string, key: string, name = 'vitest-client'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return client;
}

/** The JSON a tool returned (structured content), with isError. */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ isError: boolean; data: any }> {
  const result = await client.callTool({ name, arguments: args });
  return { isError: !!result.isError, data: result.structuredContent ?? JSON.parse((result.content as { text: string }[])[0]!.text) };
}

/** A tool call that must succeed: its result. */
export async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const r = await call(client, name, args);
  expect(r.isError, `${name} ${JSON.stringify(args).slice(0, 80)}: ${JSON.stringify(r.data).slice(0, 400)}`).toBe(false);
  return r.data;
}

/**
 * A tool call that must fail, with a detail: `expected` is the error code, or a pattern the code and
 * detail together must match.
 */
export async function fails(client: Client, name: string, args: Record<string, unknown>, expected?: string | RegExp): Promise<any> {
  const r = await call(client, name, args);
  const shown = `${name} ${JSON.stringify(args).slice(0, 80)}: ${JSON.stringify(r.data).slice(0, 300)}`;
  expect(r.isError, `should fail: ${shown}`).toBe(true);
  expect(typeof r.data.detail, shown).toBe('string');
  if (typeof expected === 'string') expect(r.data.error, shown).toBe(expected);
  else if (expected) expect(`${r.data.error} ${r.data.detail} ${JSON.stringify(r.data.issues ?? "")}`, shown).toMatch(expected);
  return r.data;
}

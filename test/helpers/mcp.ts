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

// AI-client recognition from real signals: REST User-Agent strings and MCP clientInfo names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { createUser } from '../../src/domain/identity/users.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const USER_AGENTS: [string, string][] = [
  ['claude-cli/1.0.51 (external, cli)', 'claude-code'],
  ['Claude/0.12.28 (darwin; Electron)', 'claude-desktop'],
  ['Cursor/1.2.3', 'cursor'],
  ['Windsurf/1.10.7 (linux)', 'windsurf'],
  ['Cline/3.17.9', 'cline'],
  ['Continue/1.0.14', 'continue'],
  ['GitHubCopilotChat/0.29.1', 'vscode-copilot'],
  ['Zed/0.194.3 (linux; x86_64)', 'zed'],
  ['codex_cli_rs/0.8.0 (Ubuntu 24.4.0; x86_64)', 'codex'],
  ['GeminiCLI/0.1.12 (linux; x64)', 'gemini-cli'],
  ['Anthropic/JS 0.56.0', 'anthropic-sdk'],
  ['OpenAI/Python 1.93.0', 'openai-sdk'],
  ['semantic-compression-cli/0.1.0', 'semcomp-cli'],
  ['curl/8.5.0', 'curl'],
  ['python-requests/2.32.3', 'python-requests'],
  ['node', 'node-fetch'],
  ['Go-http-client/1.1', 'go-http'],
  ['SomeInHouseBot/2.0', 'other'],
];
const MCP_CLIENTS: [string, string][] = [
  ['claude-code', 'claude-code'],
  ['claude-ai', 'claude-desktop'],
  ['cursor-vscode', 'cursor'],
  ['Visual Studio Code', 'vscode-copilot'],
  ['gemini-cli-mcp-client', 'gemini-cli'],
  ['codex-mcp-client', 'codex'],
  ['mcp', 'mcp-sdk'],
];

describe(`AI client recognition (${DB_KIND})`, () => {
  it('counts REST calls by User-Agent and MCP calls by clientInfo under the right client', async () => {
    const db = server.app.services.db;
    const user = await createUser(db, { plan: 'pro', name: 'clients' });
    const key = (await createApiKey(db, { userId: user.id, plan: 'pro', name: 'c' })).key;
    for (const [ua] of USER_AGENTS) {
      const res = await server.request('POST', '/v1/compress', { key, body: { text: `Hello from ${ua}.` }, headers: { 'user-agent': ua } });
      expect(res.status).toBe(200);
    }
    for (const [name] of MCP_CLIENTS) {
      const client = await connectMcp(server.url, key, name);
      try {
        expect((await call(client, 'estimate_tokens', { text: 'hi' })).isError).toBe(false);
      } finally {
        await client.close();
      }
    }
    const res = await server.request('GET', '/v1/usage/by-client', { key });
    expect(res.status).toBe(200);
    const calls = Object.fromEntries(res.json.data.map((r: any) => [r.client, r.calls]));
    const expected: Record<string, number> = {};
    for (const [, label] of [...USER_AGENTS, ...MCP_CLIENTS]) expected[label] = (expected[label] ?? 0) + 1;
    expect(calls).toEqual(expected);
  });
});

import { afterAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { createUser } from '../../src/domain/identity/users.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';

const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

async function freeKeys(server: TestServer, n: number): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < n; i++) {
    const user = await createUser(server.app.services.db, { plan: 'free' });
    keys.push((await createApiKey(server.app.services.db, { userId: user.id, plan: 'free' })).key);
  }
  return keys;
}

for (const backend of ['memory', 'redis'] as const) {
  describe(`rate limits, ${backend} windows (${DB_KIND})`, () => {
    it('answers 429 with Retry-After past the plan limit, per key, REST and MCP alike', async () => {
      const server = await startTestServer({
        rateLimits: { free: 3, pro: 100, team: 100, enterprise: 100 },
        redisUrl: backend === 'redis' ? 'redis://127.0.0.1:6379' : null,
      });
      servers.push(server);
      const [a, b] = await freeKeys(server, 2);
      for (let i = 0; i < 3; i++) expect((await server.request('GET', '/v1/keys', { key: a })).status).toBe(200);
      const limited = await server.request('GET', '/v1/keys', { key: a });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.json.detail).toMatch(/3 requests per minute/);
      const mcp = await fetch(`${server.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${a}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(mcp.status).toBe(429);
      expect((await server.request('GET', '/v1/keys', { key: b })).status).toBe(200);
      expect((await server.request('GET', '/health', { key: null })).status).toBe(200);
    });
  });
}

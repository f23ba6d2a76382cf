import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/domain/accounts/apiKeys.js';
import { createUser } from '../../src/domain/accounts/users.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});


describe(`last_used_at (${DB_KIND})`, () => {
  it('is written on first use over REST or MCP, then at most once a minute', async () => {
    const db = server.app.services.db;
    const user = await createUser(db, { plan: 'pro', name: 'last-used' });
    const owner = await createApiKey(db, { userId: user.id, plan: 'pro', name: 'lister' });
    const rest = await createApiKey(db, { userId: user.id, plan: 'pro', name: 'rest' });
    const mcp = await createApiKey(db, { userId: user.id, plan: 'pro', name: 'mcp' });
    const list = async (keyId: string) => {
      await server.app.services.background.drain();
      const res = await server.request('GET', '/v1/keys', { key: owner.key });
      return res.json.keys.find((k: any) => k.key_id === keyId)?.last_used_at ?? null;
    };
    expect(await list(rest.row.key_id)).toBeNull();

    expect((await server.request('POST', '/v1/compress', { key: rest.key, body: { text: 'One short text.' } })).status).toBe(200);
    const first = await list(rest.row.key_id);
    expect(first).not.toBeNull();
    expect(Date.now() - new Date(first).getTime()).toBeLessThan(60_000);
    // A second call within the minute does not write again.
    await server.request('POST', '/v1/compress', { key: rest.key, body: { text: 'Another short text.' } });
    expect(await list(rest.row.key_id)).toBe(first);

    const client = await connectMcp(server.url, mcp.key);
    try {
      await call(client, 'estimate_tokens', { text: 'hello' });
    } finally {
      await client.close();
    }
    expect(await list(mcp.row.key_id)).not.toBeNull();
  });
});

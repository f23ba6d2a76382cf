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

describe(`one usage event per call, with its status (${DB_KIND})`, () => {
  it('a rejected compression, a failed batch document and a structural call are recorded with the response’s figures', async () => {
    const db = server.app.services.db;
    const user = await createUser(db, { plan: 'pro', name: 'statuses' });
    const key = await createApiKey(db, { userId: user.id, plan: 'pro', name: 's' });
    const events = async () => {
      await server.app.services.background.drain();
      return db.query<{ method: string; status: string; input_tokens: number; output_tokens: number; savings_percent: number }>(
        'select method, status, input_tokens, output_tokens, savings_percent from usage_events where key_id = $1 order by created_at, id',
        [key.row.key_id],
      );
    };
    expect((await server.request('POST', '/v1/compress', { key: key.key, body: { text: 'x', fidelity: 'extreme' } })).status).toBe(400);
    expect((await server.request('POST', '/v1/compress', { key: key.key, body: { fidelity: 'balanced' } })).status).toBe(422);
    expect((await events()).map((e) => [e.method, e.status])).toEqual([['REST', 'client_error'], ['REST', 'client_error']]);

    const batch = await server.request('POST', '/v1/batch-compress', { key: key.key, body: { documents: [{ text: 'Fine text here.' }, { text: 'Bad one.', fidelity: 'nope' }] } });
    expect(batch.status).toBe(200);
    expect((await events()).slice(2).map((e) => [e.method, e.status]).sort()).toEqual([['batch', 'client_error'], ['batch', 'success']]);

    const structural = await server.request('POST', '/v1/compress-code/structural', {
      key: key.key,
      body: { files: [{ path: 'a.py', content: 'from b import helper\n\ndef main():\n    return helper(2)\n' }, { path: 'b.py', content: 'def helper(x):\n    return x * 2\n' }] },
    });
    const last = (await events()).at(-1)!;
    expect(last).toMatchObject({ method: 'REST', status: 'success', input_tokens: structural.json.original_tokens, output_tokens: structural.json.compressed_tokens });
    expect(Number(last.savings_percent)).toBe(structural.json.savings_percent);
  });
});

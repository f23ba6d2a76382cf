// MCP sessions are bounded (per key, per instance, idle time) and never freeze the caller's plan.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { createUser } from '../../src/domain/identity/users.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { appMetric } from '../helpers/metrics.js';
import { waitFor } from '../helpers/waitFor.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ authCacheMs: 0, mcpSessions: { maxSessions: 6, maxPerKey: 3, idleMs: 1500 } });
});
afterAll(async () => {
  await server?.close();
});

async function keyFor(plan: 'free' | 'pro') {
  const db = server.app.services.db;
  const user = await createUser(db, { plan, name: `sessions-${plan}` });
  return { userId: user.id, key: (await createApiKey(db, { userId: user.id, plan, name: 's' })).key };
}

/** initialize over raw HTTP: the status, and the session id when one was opened. */
async function initialize(key: string): Promise<{ status: number; id: string | null }> {
  const res = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'cap-test', version: '1' } } }),
  });
  await res.text();
  return { status: res.status, id: res.headers.get('mcp-session-id') };
}

/** Sessions this instance holds, as /metrics reports them (reading it refreshes none). */
const held = () => appMetric(server.app.services, 'gc_mcp_sessions');

/** The sweep closes every session once idle; none is touched meanwhile. */
const allIdledOut = () => waitFor('every session to idle out', async () => (await held()) === 0);

async function ping(key: string, id: string): Promise<number> {
  const res = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
  });
  await res.text();
  return res.status;
}

describe(`MCP session limits (${DB_KIND})`, () => {
  it('a key holds at most its cap: a new session closes that key’s least recently used one', async () => {
    const { key } = await keyFor('pro');
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await initialize(key)).id!);
    expect(await ping(key, ids[0]!)).toBe(404); // the oldest went
    for (const id of ids.slice(1)) expect(await ping(key, id)).toBe(200);
  });

  it('the instance holds at most its cap: past it initialize is 503 with Retry-After', async () => {
    await allIdledOut(); // the earlier tests' sessions
    const keys = await Promise.all([keyFor('pro'), keyFor('pro'), keyFor('pro')]);
    const opened = [];
    for (const k of keys) for (let i = 0; i < 2; i++) opened.push(await initialize(k.key));
    expect(opened.map((o) => o.status)).toEqual(Array(6).fill(200));
    const extra = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${keys[0]!.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }),
    });
    // keys[0] is at 2 of 3 per key, so only the instance cap can refuse it.
    expect(extra.status).toBe(503);
    expect(Number(extra.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('an idle session is closed', async () => {
    await allIdledOut();
    const { key } = await keyFor('pro');
    const { id } = await initialize(key);
    expect(await ping(key, id!)).toBe(200);
    expect(await held()).toBe(1);
    await allIdledOut();
    expect(await ping(key, id!)).toBe(404);
  });

  it('another key of the same user cannot use the session', async () => {
    const { userId, key } = await keyFor('pro');
    const other = (await createApiKey(server.app.services.db, { userId, plan: 'pro', name: 'other' })).key;
    const { id } = await initialize(key);
    expect(await ping(other, id!)).toBe(404);
    expect(await ping(key, id!)).toBe(200);
  });

  it('a downgrade reaches an open session on its next call', async () => {
    const { userId, key } = await keyFor('pro');
    const client = await connectMcp(server.url, key);
    try {
      expect((await call(client, 'estimate_tokens', { text: 'hello' })).isError).toBe(false);
      expect((await call(client, 'compress_tool_output', { output: 'a\nb\nc' })).isError).toBe(false);
      await server.app.services.db.query(`update users set plan = 'free' where id = $1`, [userId]);
      const refused = await call(client, 'compress_tool_output', { output: 'a\nb\nc' });
      expect(refused.data).toMatchObject({ error: 'plan_required', required_plan: 'pro' });
    } finally {
      await client.close();
    }
  });
});

// An MCP session outlives the process that opened it: rebuilt from its record (migration 210) by
// another instance on the same PostgreSQL database, or by the next process on the same PGlite folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startApp, type RunningApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { createUser } from '../../src/domain/identity/users.js';
import { createLogger } from '../../src/lib/log.js';
import { DB_KIND, freshDatabase } from '../helpers/server.js';

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function start(db: { databaseUrl: string | null; dataDir: string }): Promise<RunningApp> {
  return startApp(loadConfig({}, { host: '127.0.0.1', port: 0, poolThreads: 1, shutdownGraceMs: 2000, bootstrapOwner: false, ...db }), createLogger(false));
}

const headers = (key: string, id?: string) => ({
  authorization: `Bearer ${key}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  ...(id ? { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' } : {}),
});

async function rpc(app: RunningApp, key: string, id: string, method: string, params?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`http://127.0.0.1:${app.port}/mcp`, { method: 'POST', headers: headers(key, id), body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }) });
  const text = await res.text();
  const data = text.startsWith('event:') || text.includes('\ndata: ') ? text.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6))).at(-1) : text ? JSON.parse(text) : null;
  return { status: res.status, body: data };
}

async function initialize(app: RunningApp, key: string): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${app.port}/mcp`, {
    method: 'POST',
    headers: headers(key),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { roots: {} }, clientInfo: { name: 'restore-test', version: '3.1' } } }),
  });
  await res.text();
  expect(res.status).toBe(200);
  return res.headers.get('mcp-session-id')!;
}

const tool = async (app: RunningApp, key: string, id: string, name: string, args: Record<string, unknown> = {}) => {
  const r = await rpc(app, key, id, 'tools/call', { name, arguments: args });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.result.structuredContent;
};

describe(`MCP sessions from their shared record (${DB_KIND})`, () => {
  it(DB_KIND === 'postgres' ? 'a session opened on A is served by B with its state; a change on B is seen by A; DELETE on B ends it on A' : 'a session survives a restart of the process on the same data folder', async () => {
    const database = await freshDatabase();
    const dir = mkdtempSync(join(tmpdir(), 'gc-sessions-'));
    const where = DB_KIND === 'postgres' ? database : { databaseUrl: null, dataDir: dir };
    cleanups.push(async () => (rmSync(dir, { recursive: true, force: true }), database.drop()));
    let a = await start(where);
    const user = await createUser(a.services.db, { plan: 'pro' });
    const { key } = await createApiKey(a.services.db, { userId: user.id, plan: 'pro' });
    const other = (await createApiKey(a.services.db, { userId: user.id, plan: 'pro' })).key;
    const id = await initialize(a, key);
    await tool(a, key, id, 'set_compression_profile', { profile: 'summary', chunk_size: 300 });
    await tool(a, key, id, 'estimate_tokens', { text: 'one two three' });

    let b: RunningApp;
    if (DB_KIND === 'postgres') {
      b = await start(database);
      cleanups.push(() => b.close());
    } else {
      await a.close();
      b = a = await start(where);
    }
    cleanups.push(() => a.close());
    // Another key of the same user still cannot use it, on the instance that rebuilds it.
    expect((await rpc(b, other, id, 'ping')).status).toBe(404);
    const profile = await tool(b, key, id, 'get_compression_profile');
    expect(profile).toMatchObject({ profile: 'summary', chunk_size: 300, session_id: id });
    const summary = await tool(b, key, id, 'gc_session_summary');
    expect(JSON.stringify(summary)).toContain('estimate_tokens');
    // A second initialize on the rebuilt transport is refused as on the original.
    const again = await rpc(b, key, id, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } });
    expect(again.status).toBe(400);

    if (DB_KIND === 'postgres') {
      await tool(b, key, id, 'set_compression_profile', { profile: 'detailed' });
      expect(await tool(a, key, id, 'get_compression_profile')).toMatchObject({ profile: 'detailed' });
      const closed = await fetch(`http://127.0.0.1:${b.port}/mcp`, { method: 'DELETE', headers: headers(key, id) });
      expect(closed.status).toBe(200);
      expect((await rpc(a, key, id, 'ping')).status).toBe(404);
      expect((await rpc(b, key, id, 'ping')).status).toBe(404);
    }
  }, 60_000);
});

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { createUser } from '../../src/domain/identity/users.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let owner: Client;
let otherKeyId: string;

beforeAll(async () => {
  server = await startTestServer();
  owner = await connectMcp(server.url, server.ownerKey);
  const other = await createUser(server.app.services.db, { plan: 'pro' });
  otherKeyId = (await createApiKey(server.app.services.db, { userId: other.id, plan: 'pro' })).row.key_id;
});
afterAll(async () => {
  await owner?.close();
  await server?.close();
});

describe(`MCP key tools (${DB_KIND})`, () => {
  it('mints a key once, expiring in 30 days by default, capped at 365', async () => {
    const minted = await call(owner, 'gc_mint_api_key', { name: 'agent' });
    expect(minted.isError).toBe(false);
    expect(minted.data.key).toMatch(/^gc_[0-9a-f]{32}$/);
    const days = (new Date(minted.data.expires_at).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    expect((await server.request('GET', '/v1/keys', { key: minted.data.key })).status).toBe(200);
    const listed = await server.request('GET', '/v1/keys');
    expect(JSON.stringify(listed.json)).not.toContain(minted.data.key);
    expect((await call(owner, 'gc_mint_api_key', { expires_in_days: 366 })).data.error).toBe('validation_error');
  });

  it('revokes own keys at once and refuses another user\'s key with 403', async () => {
    const minted = await call(owner, 'gc_mint_api_key', {});
    const revoked = await call(owner, 'gc_revoke_api_key', { key_id: minted.data.key_id });
    expect(revoked.data.status).toBe('revoked');
    expect((await server.request('GET', '/v1/keys', { key: minted.data.key })).status).toBe(401);
    const foreign = await call(owner, 'gc_revoke_api_key', { key_id: otherKeyId });
    expect(foreign.isError).toBe(true);
    expect(foreign.data).toMatchObject({ error: 'forbidden', status: 403 });
    expect((await call(owner, 'gc_revoke_api_key', { key_id: 'key_unknown' })).data.error).toBe('not_found');
  });

  it('rebinds own keys to own projects only', async () => {
    const projects = await server.request('GET', '/v1/projects');
    const projectId = projects.json.projects[0].project_id;
    expect(projectId).toBeTruthy();
    const minted = await call(owner, 'gc_mint_api_key', {});
    const bound = await call(owner, 'gc_rebind_api_key', { key_id: minted.data.key_id, project_id: projectId });
    expect(bound.data.project_id).toBe(projectId);
    const unbound = await call(owner, 'gc_rebind_api_key', { key_id: minted.data.key_id, project_id: null });
    expect(unbound.data.project_id).toBeNull();
    expect((await call(owner, 'gc_rebind_api_key', { key_id: otherKeyId, project_id: null })).data.error).toBe('forbidden');
  });
});

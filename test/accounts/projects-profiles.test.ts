import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { recordUsageEvent } from '../../src/domain/metering/usage.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { makeUser } from './helpers.js';

let server: TestServer;
let team: Awaited<ReturnType<typeof makeUser>>;
let free: Awaited<ReturnType<typeof makeUser>>;
let stranger: Awaited<ReturnType<typeof makeUser>>;

beforeAll(async () => {
  server = await startTestServer();
  team = await makeUser(server, 'team');
  free = await makeUser(server, 'free');
  stranger = await makeUser(server, 'enterprise');
});
afterAll(async () => {
  await server?.close();
});

const req = (method: string, path: string, key: string, body?: unknown) => server.request(method, path, { key, body });

describe(`projects (${DB_KIND})`, () => {
  it('listing auto-creates Default once when the caller has none', async () => {
    const first = await req('GET', '/v1/projects', free.key);
    expect(first.status).toBe(200);
    expect(first.json.projects).toHaveLength(1);
    expect(first.json.projects[0]).toMatchObject({ name: 'Default', is_default: true, current_period_compressions: 0 });
    expect(first.json.projects[0].project_id).toMatch(/^[0-9a-f-]{36}$/);
    const again = await Promise.all([1, 2, 3].map(() => req('GET', '/v1/projects', free.key)));
    for (const r of again) expect(r.json.projects.map((p: any) => p.project_id)).toEqual([first.json.projects[0].project_id]);
  });

  it('creation needs Team or Enterprise: 403 on Free/Pro, 201 on Team', async () => {
    const denied = await req('POST', '/v1/projects', free.key, { name: 'nope' });
    expect(denied.status).toBe(403);
    expect(denied.json.detail).toMatch(/Team/);
    const pro = await makeUser(server, 'pro');
    expect((await req('POST', '/v1/projects', pro.key, { name: 'nope' })).status).toBe(403);
    const created = await req('POST', '/v1/projects', team.key, { name: 'Alpha', description: 'first' });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ name: 'Alpha', description: 'first', is_default: false });
    expect((await req('POST', '/v1/projects', team.key, {})).status).toBe(422);
    expect((await req('POST', '/v1/projects', team.key, { name: '' })).status).toBe(422);
    expect((await req('POST', '/v1/projects', team.key, { name: 'x'.repeat(101) })).status).toBe(422);
  });

  it('lists newest first with current_period_compressions; unbound keys count toward Default', async () => {
    const db = server.app.services.db;
    const beta = await req('POST', '/v1/projects', team.key, { name: 'Beta' });
    const list0 = await req('GET', '/v1/projects', team.key);
    // Team created projects before listing: no auto Default because the caller had projects.
    expect(list0.json.projects.map((p: any) => p.name)).toEqual(['Beta', 'Alpha']);

    const bound = await createApiKey(db, { userId: team.userId, plan: 'team', projectId: beta.json.project_id });
    const principal = { userId: team.userId, plan: 'team' as const, isAdmin: false, environment: 'production', via: 'api_key' as const };
    for (let i = 0; i < 3; i++) {
      await recordUsageEvent(db, { principal: { ...principal, keyId: bound.row.key_id, projectId: beta.json.project_id }, method: 'REST', status: 'success', inputTokens: 100, outputTokens: 10, latencyMs: 4 });
    }
    await recordUsageEvent(db, { principal: { ...principal, keyId: bound.row.key_id, projectId: beta.json.project_id }, method: 'mcp_advisory', status: 'success', inputTokens: 0, outputTokens: 0, latencyMs: 1 });
    // Last month's event does not count toward the current period.
    await db.query(
      `insert into usage_events (user_id, key_id, project_id, method, status, created_at) values ($1, $2, $3, 'REST', 'success', now() - interval '40 days')`,
      [team.userId, bound.row.key_id, beta.json.project_id],
    );
    const list = await req('GET', '/v1/projects', team.key);
    const byName = Object.fromEntries(list.json.projects.map((p: any) => [p.name, p.current_period_compressions]));
    expect(byName).toEqual({ Beta: 3, Alpha: 0 });

    // The free user's unbound key usage counts toward its Default.
    await recordUsageEvent(db, { principal: { ...principal, userId: free.userId, plan: 'free' as const, keyId: free.keyId, projectId: null }, method: 'REST', status: 'success', inputTokens: 50, outputTokens: 5, latencyMs: 3 });
    const freeList = await req('GET', '/v1/projects', free.key);
    expect(freeList.json.projects[0].current_period_compressions).toBe(1);

    const detail = await req('GET', `/v1/projects/${beta.json.project_id}`, team.key);
    expect(detail.status).toBe(200);
    expect(detail.json).toMatchObject({ project_id: beta.json.project_id, name: 'Beta' });
    expect(detail.json.usage).toMatchObject({
      current_period_compressions: 3, total_compressions: 4, original_tokens: 300, tokens_saved: 270, bound_keys: 1,
    });
    expect(detail.json.usage.last_event_at).toBeTruthy();
  });

  it('lists at most 100 projects', async () => {
    const big = await makeUser(server, 'enterprise');
    await server.app.services.db.query(
      `insert into projects (owner_id, name, created_at) select $1, 'p' || g, now() - make_interval(mins => g) from generate_series(1, 105) g`,
      [big.userId],
    );
    const list = await req('GET', '/v1/projects', big.key);
    expect(list.json.projects).toHaveLength(100);
    expect(list.json.projects[0].name).toBe('p1');
    expect(list.json.projects[99].name).toBe('p100');
  });

  it('PUT is a partial update; DELETE by the owner answers a JSON object', async () => {
    const p = await req('POST', '/v1/projects', team.key, { name: 'Gamma', description: 'keep me' });
    const id = p.json.project_id;
    const renamed = await req('PUT', `/v1/projects/${id}`, team.key, { name: 'Gamma 2' });
    expect(renamed.status).toBe(200);
    expect(renamed.json).toMatchObject({ name: 'Gamma 2', description: 'keep me' });
    const described = await req('PUT', `/v1/projects/${id}`, team.key, { description: null });
    expect(described.json).toMatchObject({ name: 'Gamma 2', description: null });
    expect((await req('PUT', `/v1/projects/${id}`, team.key, { name: '' })).status).toBe(422);
    expect((await req('PUT', `/v1/projects/${id}`, team.key, { owner: 'me' })).status).toBe(422);

    const key = await createApiKey(server.app.services.db, { userId: team.userId, plan: 'team', projectId: id });
    const deleted = await req('DELETE', `/v1/projects/${id}`, team.key);
    expect(deleted.status).toBe(200);
    expect(deleted.json).toEqual({ project_id: id, deleted: true });
    expect((await req('GET', `/v1/projects/${id}`, team.key)).status).toBe(404);
    expect((await req('DELETE', `/v1/projects/${id}`, team.key)).status).toBe(404);
    // The key bound to it falls back to the Default (unbound).
    const keys = await req('GET', '/v1/keys', team.key);
    expect(keys.json.keys.find((k: any) => k.key_id === key.row.key_id).project_id).toBeNull();
  });

  it('another user\'s project id is a 404 that reveals nothing', async () => {
    const p = await req('POST', '/v1/projects', team.key, { name: 'Private' });
    const id = p.json.project_id;
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const [method, body] of [['GET', undefined], ['PUT', { name: 'hijack' }], ['DELETE', undefined]] as const) {
      const theirs = await req(method, `/v1/projects/${id}`, stranger.key, body);
      const none = await req(method, `/v1/projects/${unknown}`, stranger.key, body);
      expect(theirs.status, method).toBe(404);
      expect(none.status).toBe(404);
      expect(theirs.json.detail.replace(id, 'X')).toBe(none.json.detail.replace(unknown, 'X'));
    }
    expect((await req('GET', '/v1/projects/not-a-uuid', team.key)).status).toBe(404);
    const mine = await req('GET', `/v1/projects/${id}`, team.key);
    expect(mine.json.name).toBe('Private');
  });
});

describe(`fidelity profiles (${DB_KIND})`, () => {
  it('CRUD: 201 create with integer id, newest first, partial PUT, 204 delete', async () => {
    const a = await req('POST', '/v1/profiles', team.key, { name: 'reviews', fidelity: 'detailed', chunk_size: 512 });
    expect(a.status).toBe(201);
    expect(Number.isInteger(a.json.id)).toBe(true);
    expect(a.json).toMatchObject({ name: 'reviews', fidelity: 'detailed', chunk_size: 512, skeleton_ratio: null, description: null });
    const b = await req('POST', '/v1/profiles', team.key, { name: 'chat' });
    expect(b.json.fidelity).toBe('balanced');

    const list = await req('GET', '/v1/profiles', team.key);
    expect(list.status).toBe(200);
    expect(list.json.profiles.map((p: any) => p.id)).toEqual([b.json.id, a.json.id]);
    expect(list.json.total).toBe(2);

    const one = await req('GET', `/v1/profiles/${a.json.id}`, team.key);
    expect(one.json).toEqual(a.json);

    const put = await req('PUT', `/v1/profiles/${a.json.id}`, team.key, { skeleton_ratio: 0.3 });
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({ name: 'reviews', fidelity: 'detailed', chunk_size: 512, skeleton_ratio: expect.closeTo(0.3, 5) });
    const put2 = await req('PUT', `/v1/profiles/${a.json.id}`, team.key, { name: 'code reviews', chunk_size: null });
    expect(put2.json).toMatchObject({ name: 'code reviews', fidelity: 'detailed', chunk_size: null });

    const del = await req('DELETE', `/v1/profiles/${a.json.id}`, team.key);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await req('GET', `/v1/profiles/${a.json.id}`, team.key)).status).toBe(404);
    expect((await req('DELETE', `/v1/profiles/${a.json.id}`, team.key)).status).toBe(404);
  });

  it('validates bodies and the integer path parameter', async () => {
    expect((await req('POST', '/v1/profiles', team.key, {})).status).toBe(422);
    expect((await req('POST', '/v1/profiles', team.key, { name: 'x', chunk_size: 'big' })).status).toBe(422);
    expect((await req('POST', '/v1/profiles', team.key, { name: 'x', skeleton_ratio: 2 })).status).toBe(422);
    const badFidelity = await req('POST', '/v1/profiles', team.key, { name: 'x', fidelity: 'extreme' });
    expect(badFidelity.status).toBe(400);
    expect(badFidelity.json.detail).toContain('abstract');
    const p = await req('POST', '/v1/profiles', team.key, { name: 'v' });
    expect((await req('PUT', `/v1/profiles/${p.json.id}`, team.key, { name: 7 })).status).toBe(422);
    expect((await req('GET', '/v1/profiles/abc', team.key)).status).toBe(422);
    expect((await req('GET', '/v1/profiles/99999999999', team.key)).status).toBe(404);
  });

  it('owner only: another user\'s profile id is 404 on every method', async () => {
    const p = await req('POST', '/v1/profiles', team.key, { name: 'mine' });
    const id = p.json.id;
    expect((await req('GET', `/v1/profiles/${id}`, stranger.key)).status).toBe(404);
    expect((await req('PUT', `/v1/profiles/${id}`, stranger.key, { name: 'theirs' })).status).toBe(404);
    expect((await req('DELETE', `/v1/profiles/${id}`, stranger.key)).status).toBe(404);
    expect((await req('GET', '/v1/profiles', stranger.key)).json.profiles).toEqual([]);
    expect((await req('GET', `/v1/profiles/${id}`, team.key)).json.name).toBe('mine');
  });
});

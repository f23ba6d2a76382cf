import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { enforceQuota, quotaStatus, currentQuotaPeriod } from '../../src/domain/metering/quota.js';
import { recordUsageEvent } from '../../src/domain/metering/usage.js';
import type { Principal } from '../../src/auth/principal.js';
import { DomainError } from '../../src/domain/errors.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { makeUser, ownerId } from './helpers.js';

let server: TestServer;
let other: Awaited<ReturnType<typeof makeUser>>;

beforeAll(async () => {
  server = await startTestServer();
  other = await makeUser(server, 'pro');
});
afterAll(async () => {
  await server?.close();
});

const KEY = /^gc_[0-9a-f]{32}$/;

describe(`API keys (${DB_KIND})`, () => {
  it('creates a key (201, full key once), lists it without the secret', async () => {
    const created = await server.request('POST', '/v1/keys', {
      body: { name: 'ci', environment: 'staging', default_model: 'gpt-4o', monthly_quota: 1000, enforce_quota: true },
    });
    expect(created.status).toBe(201);
    expect(created.json.key).toMatch(KEY);
    expect(created.json).toMatchObject({
      name: 'ci', environment: 'staging', default_model: 'gpt-4o', monthly_quota: 1000, enforce_quota: true,
      plan: 'enterprise', status: 'active', quota_alert_state: 'none', project_id: null,
    });
    const list = await server.request('GET', '/v1/keys');
    expect(list.status).toBe(200);
    const item = list.json.keys.find((k: any) => k.key_id === created.json.key_id);
    expect(item).toBeTruthy();
    expect(item.key).toBeUndefined();
    expect(JSON.stringify(list.json)).not.toContain(created.json.key);
    expect(list.json.total).toBe(list.json.keys.length);
    // Another user's listing does not show it.
    const theirs = await server.request('GET', '/v1/keys', { key: other.key });
    expect(theirs.json.keys.map((k: any) => k.key_id)).toEqual([other.keyId]);
  });

  it('validates the create body with 422', async () => {
    for (const body of [{ monthly_quota: -1 }, { environment: 'x'.repeat(17) }, { expires_in_days: 366 }, { name: 5 }]) {
      const res = await server.request('POST', '/v1/keys', { body });
      expect(res.status).toBe(422);
      expect(Array.isArray(res.json.detail)).toBe(true);
    }
  });

  it('PATCHes name, default_model and monthly_quota; a quota change resets alert state and period', async () => {
    const created = await server.request('POST', '/v1/keys', { body: { name: 'p', monthly_quota: 10 } });
    const id = created.json.key_id;
    await server.app.services.db.query(
      `update api_keys set quota_alert_state = 'warning', quota_period_start = now() - interval '10 days' where key_id = $1`,
      [id],
    );
    const renamed = await server.request('PATCH', `/v1/keys/${id}`, { body: { name: 'renamed', default_model: 'claude-3' } });
    expect(renamed.status).toBe(200);
    expect(renamed.json).toMatchObject({ name: 'renamed', default_model: 'claude-3', monthly_quota: 10, quota_alert_state: 'warning' });
    const before = new Date(renamed.json.quota_period_start).getTime();

    const changed = await server.request('PATCH', `/v1/keys/${id}`, { body: { monthly_quota: 20 } });
    expect(changed.status).toBe(200);
    expect(changed.json.monthly_quota).toBe(20);
    expect(changed.json.quota_alert_state).toBe('none');
    expect(new Date(changed.json.quota_period_start).getTime()).toBeGreaterThan(before + 9 * 86_400_000);

    await server.app.services.db.query(`update api_keys set quota_alert_state = 'exceeded' where key_id = $1`, [id]);
    const cleared = await server.request('PATCH', `/v1/keys/${id}`, { body: { monthly_quota: null, default_model: null } });
    expect(cleared.json).toMatchObject({ monthly_quota: null, default_model: null, quota_alert_state: 'none', name: 'renamed' });

    const empty = await server.request('PATCH', `/v1/keys/${id}`, { body: {} });
    expect(empty.status).toBe(200);
    expect(empty.json.name).toBe('renamed');

    expect((await server.request('PATCH', `/v1/keys/${id}`, { body: { monthly_quota: 'lots' } })).status).toBe(422);
    expect((await server.request('PATCH', `/v1/keys/${id}`, { body: { secret: 1 } })).status).toBe(422);
  });

  it('answers 404 for unknown keys and for another user\'s key, revealing nothing', async () => {
    const unknown = await server.request('PATCH', '/v1/keys/key_nope', { body: { name: 'x' } });
    expect(unknown.status).toBe(404);
    const foreign = await server.request('PATCH', `/v1/keys/${other.keyId}`, { body: { name: 'x' } });
    expect(foreign.status).toBe(404);
    expect(foreign.json.detail).toBe(unknown.json.detail.replace('key_nope', other.keyId));
    expect((await server.request('DELETE', `/v1/keys/${other.keyId}`)).status).toBe(404);
    expect((await server.request('POST', `/v1/keys/${other.keyId}/rotate`, { body: {} })).status).toBe(404);
    expect((await server.request('POST', `/v1/keys/${other.keyId}/confirm-tokens`, { body: { operation: 'revoke' } })).status).toBe(404);
    // Still intact for its owner.
    const theirs = await server.request('GET', '/v1/keys', { key: other.key });
    expect(theirs.json.keys[0]).toMatchObject({ key_id: other.keyId, name: 'first', status: 'active' });
  });

  it('revokes (200), then 400 when already revoked, 404 when unknown; the key is rejected at once', async () => {
    const created = await server.request('POST', '/v1/keys', { body: { name: 'gone' } });
    const key = created.json.key;
    expect((await server.request('GET', '/v1/keys', { key })).status).toBe(200);
    const revoked = await server.request('DELETE', `/v1/keys/${created.json.key_id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.json).toMatchObject({ key_id: created.json.key_id, status: 'revoked' });
    expect(revoked.json.revoked_at).toBeTruthy();
    expect((await server.request('GET', '/v1/keys', { key })).status).toBe(401);
    expect((await server.request('DELETE', `/v1/keys/${created.json.key_id}`)).status).toBe(400);
    expect((await server.request('DELETE', '/v1/keys/key_unknown')).status).toBe(404);
  });

  it('rotates: 201, successor inherits settings, takes the current plan, pair linked, predecessor works until grace ends', async () => {
    const owner = await ownerId(server);
    // A key minted while the user was on Pro; the user is on Enterprise now.
    const { key: oldKey, row } = await createApiKey(server.app.services.db, {
      userId: owner, plan: 'pro', name: 'rot', environment: 'dev', defaultModel: 'gpt-4o-mini', monthlyQuota: 500, enforceQuota: true,
    });
    expect((await server.request('GET', '/v1/keys', { key: oldKey })).status).toBe(200);
    const rotated = await server.request('POST', `/v1/keys/${row.key_id}/rotate`, { body: { grace_period_days: 3 } });
    expect(rotated.status).toBe(201);
    const s = rotated.json;
    expect(s.key).toMatch(KEY);
    expect(s.key).not.toBe(oldKey);
    expect(s).toMatchObject({
      environment: 'dev', default_model: 'gpt-4o-mini', monthly_quota: 500, enforce_quota: true, plan: 'enterprise',
      replaces_key_id: row.key_id, name: 'rot', status: 'active',
    });
    expect(s.predecessor.replaced_by_key_id).toBe(s.key_id);
    const expires = new Date(s.predecessor.expires_at).getTime();
    expect(Math.abs(expires - (Date.now() + 3 * 86_400_000))).toBeLessThan(60_000);

    // Both work during the grace period.
    expect((await server.request('GET', '/v1/keys', { key: oldKey })).status).toBe(200);
    expect((await server.request('GET', '/v1/keys', { key: s.key })).status).toBe(200);
    const list = await server.request('GET', '/v1/keys', { key: s.key });
    expect(list.json.keys.find((k: any) => k.key_id === row.key_id).replaced_by_key_id).toBe(s.key_id);

    // Rotating again is a conflict (the pair is already linked).
    expect((await server.request('POST', `/v1/keys/${row.key_id}/rotate`, { body: {} })).status).toBe(409);

    // After the grace period the predecessor is rejected (simulate the clock by moving expires_at).
    await server.app.services.db.query(`update api_keys set expires_at = now() - interval '1 second' where key_id = $1`, [row.key_id]);
    await server.app.services.revocations.publish(row.key_id);
    expect((await server.request('GET', '/v1/keys', { key: oldKey })).status).toBe(401);
    expect((await server.request('GET', '/v1/keys', { key: s.key })).status).toBe(200);
  });

  it('rotation with grace 0 rejects the predecessor at once; revoked keys cannot be rotated; body is validated', async () => {
    const created = await server.request('POST', '/v1/keys', { body: { name: 'zero' } });
    expect((await server.request('GET', '/v1/keys', { key: created.json.key })).status).toBe(200); // cached now
    const rotated = await server.request('POST', `/v1/keys/${created.json.key_id}/rotate`, { body: { grace_period_days: 0 } });
    expect(rotated.status).toBe(201);
    expect((await server.request('GET', '/v1/keys', { key: created.json.key })).status).toBe(401);
    expect((await server.request('GET', '/v1/keys', { key: rotated.json.key })).status).toBe(200);

    const dead = await server.request('POST', '/v1/keys', { body: { name: 'dead' } });
    await server.request('DELETE', `/v1/keys/${dead.json.key_id}`);
    expect((await server.request('POST', `/v1/keys/${dead.json.key_id}/rotate`)).status).toBe(400);
    expect((await server.request('POST', `/v1/keys/${created.json.key_id}/rotate`, { body: { grace_period_days: -1 } })).status).toBe(422);
    expect((await server.request('POST', `/v1/keys/${created.json.key_id}/rotate`, { body: { grace_period_days: 91 } })).status).toBe(422);
  });

  it('issues confirm tokens (201, plaintext once, stored hashed) and validates the request', async () => {
    const created = await server.request('POST', '/v1/keys', { body: { name: 'ct' } });
    const res = await server.request('POST', `/v1/keys/${created.json.key_id}/confirm-tokens`, { body: { operation: 'revoke' } });
    expect(res.status).toBe(201);
    expect(res.json.token).toMatch(/^gcct_[0-9a-f]{64}$/);
    expect(res.json).toMatchObject({ operation: 'revoke', key_id: created.json.key_id, confirm_path: `/v1/keys/confirm/${res.json.token}` });
    const rows = await server.app.services.db.query<Record<string, unknown>>('select * from confirm_tokens');
    for (const row of rows) for (const v of Object.values(row)) expect(String(v)).not.toContain(res.json.token);
    expect((await server.request('POST', `/v1/keys/${created.json.key_id}/confirm-tokens`, { body: { operation: 'scope_grant' } })).status).toBe(422);
    expect((await server.request('POST', `/v1/keys/${created.json.key_id}/confirm-tokens`, { body: { operation: 'delete' } })).status).toBe(422);
    // An API key cannot confirm (identity-provider sessions only).
    const confirm = await server.request('POST', `/v1/keys/confirm/${res.json.token}`);
    expect(confirm.status).toBe(403);
    expect(confirm.json.detail).toMatch(/identity-provider/);
  });

  it('binds a key to one of the caller\'s projects; another user\'s project is 404', async () => {
    const projects = await server.request('GET', '/v1/projects');
    const project = await server.request('POST', '/v1/projects', { body: { name: 'bound' } });
    expect(project.status).toBe(201);
    const created = await server.request('POST', '/v1/keys', { body: { name: 'bound', project_id: project.json.project_id } });
    expect(created.status).toBe(201);
    expect(created.json.project_id).toBe(project.json.project_id);
    const unbound = await server.request('PATCH', `/v1/keys/${created.json.key_id}`, { body: { project_id: null } });
    expect(unbound.json.project_id).toBeNull();
    const theirProjects = await server.request('GET', '/v1/projects', { key: other.key });
    const theirs = theirProjects.json.projects[0].project_id;
    expect((await server.request('PATCH', `/v1/keys/${created.json.key_id}`, { body: { project_id: theirs } })).status).toBe(404);
    expect((await server.request('POST', '/v1/keys', { body: { project_id: theirs } })).status).toBe(404);
    expect(projects.status).toBe(200);
  });
});

describe(`quotas (${DB_KIND})`, () => {
  async function keyWithQuota(quota: number | null, enforce: boolean) {
    const owner = await ownerId(server);
    const { row } = await createApiKey(server.app.services.db, { userId: owner, plan: 'enterprise', monthlyQuota: quota, enforceQuota: enforce });
    const principal: Principal = {
      userId: owner, plan: 'enterprise', isAdmin: true, keyId: row.key_id, environment: 'production', projectId: null, via: 'api_key',
    };
    return { row, principal };
  }
  async function use(principal: Principal, n: number, method: 'REST' | 'mcp_advisory' = 'REST') {
    for (let i = 0; i < n; i++) {
      await recordUsageEvent(server.app.services.db, { principal, method, status: 'success', inputTokens: 100, outputTokens: 20, latencyMs: 5 });
    }
  }
  const state = async (keyId: string) =>
    (await server.app.services.db.query<{ s: string }>('select quota_alert_state as s from api_keys where key_id = $1', [keyId]))[0]!.s;

  it('refuses with 429, a clear detail and Retry-After once an enforced quota is used up; alert states follow usage', async () => {
    const { row, principal } = await keyWithQuota(5, true);
    await enforceQuota(server.app.services, principal);
    expect(await state(row.key_id)).toBe('none');
    await use(principal, 4);
    await use(principal, 3, 'mcp_advisory'); // advisory calls do not count
    await enforceQuota(server.app.services, principal);
    expect(await state(row.key_id)).toBe('warning');
    await use(principal, 1);
    const err = await enforceQuota(server.app.services, principal).then(() => null, (e) => e);
    // The domain's quota_exceeded: REST answers it as 429 with Retry-After, MCP as a quota_exceeded result.
    expect(err).toBeInstanceOf(DomainError);
    expect(err.kind).toBe('quota_exceeded');
    expect(err.detail).toMatch(/Monthly quota exhausted/);
    expect(err.detail).toContain('5 of 5');
    expect(err.retryAfter).toBeGreaterThan(0);
    expect(await state(row.key_id)).toBe('exceeded');

    // Raising the quota resets the state and the period: calls pass again.
    const patched = await server.request('PATCH', `/v1/keys/${row.key_id}`, { body: { monthly_quota: 100 } });
    expect(patched.json.quota_alert_state).toBe('none');
    await enforceQuota(server.app.services, principal);
  });

  it('does not refuse when the quota is not enforced (alerts still move) or absent, nor for JWT sessions', async () => {
    const { row, principal } = await keyWithQuota(2, false);
    await use(principal, 3);
    await enforceQuota(server.app.services, principal);
    expect(await state(row.key_id)).toBe('exceeded');
    const uncapped = await keyWithQuota(null, true);
    await use(uncapped.principal, 3);
    await enforceQuota(server.app.services, uncapped.principal);
    await enforceQuota(server.app.services, { ...principal, keyId: null, via: 'jwt' });
    const status = await quotaStatus(server.app.services.db, uncapped.row.key_id);
    expect(status?.quota).toBeNull();
  });

  it('starts a new monthly period a month after quota_period_start', () => {
    const start = new Date('2026-01-31T10:00:00Z');
    expect(currentQuotaPeriod(start, new Date('2026-02-15T00:00:00Z')).start.toISOString()).toBe('2026-01-31T10:00:00.000Z');
    expect(currentQuotaPeriod(start, new Date('2026-03-01T00:00:00Z')).start.toISOString()).toBe('2026-02-28T10:00:00.000Z');
    expect(currentQuotaPeriod(start, new Date('2026-05-31T10:00:00Z')).start.toISOString()).toBe('2026-05-31T10:00:00.000Z');
    expect(currentQuotaPeriod(start, new Date('2026-05-31T10:00:00Z')).end.toISOString()).toBe('2026-06-30T10:00:00.000Z');
  });

  it('refuses /v1/compress with 429 and Retry-After once an enforced quota is used up', async () => {
    const created = await server.request('POST', '/v1/keys', { body: { name: 'q', monthly_quota: 1, enforce_quota: true } });
    const first = await server.request('POST', '/v1/compress', { key: created.json.key, body: { text: 'one two three four five six' } });
    expect(first.status).toBe(200);
    await server.app.services.background.drain();
    const second = await server.request('POST', '/v1/compress', { key: created.json.key, body: { text: 'one two three four five six' } });
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBeTruthy();
    expect(second.json.detail).toMatch(/quota/i);
    // Another key of the same user is not affected.
    const other = await server.request('POST', '/v1/compress', { body: { text: 'one two three four five six' } });
    expect(other.status).toBe(200);
  });
});

describe(`database unavailable (${DB_KIND})`, () => {
  it('answers 503 with a detail for key listing and creation, never partial data', async () => {
    const down = await startTestServer();
    try {
      // Authenticate once so the cached principal lets the request reach the key routes.
      expect((await down.request('GET', '/v1/keys')).status).toBe(200);
      const before = await down.app.services.db.query<{ n: number }>('select count(*)::int as n from api_keys');
      expect(before[0]!.n).toBe(1);
      await down.app.services.db.close();
      const list = await down.request('GET', '/v1/keys');
      expect(list.status).toBe(503);
      expect(list.json.detail).toMatch(/unavailable/i);
      expect(list.json.keys).toBeUndefined();
      const create = await down.request('POST', '/v1/keys', { body: { name: 'never' } });
      expect(create.status).toBe(503);
      expect(create.json.detail).toMatch(/unavailable/i);
      expect(create.json.key).toBeUndefined();
      expect(create.text).not.toMatch(/gc_[0-9a-f]{32}/);
    } finally {
      await down.close().catch(() => {});
    }
  });
});

describe(`MCP key-tool helpers (${DB_KIND})`, () => {
  it('mint: default expiry 30 days, max 365, caller\'s current plan; revoke/rebind: cross-user is forbidden', async () => {
    const { mintApiKey, revokeApiKeyStrict, rebindApiKey } = await import('../../src/domain/identity/apiKeys.js');
    const db = server.app.services.db;
    const principal: Principal = { userId: other.userId, plan: 'pro', isAdmin: false, keyId: other.keyId, environment: 'production', projectId: null, via: 'api_key' };
    const minted = await mintApiKey(db, principal, {});
    expect(minted.key).toMatch(KEY);
    expect(Math.abs(minted.row.expires_at!.getTime() - (Date.now() + 30 * 86_400_000))).toBeLessThan(60_000);
    const max = await mintApiKey(db, principal, { expiresInDays: 365 });
    expect(Math.abs(max.row.expires_at!.getTime() - (Date.now() + 365 * 86_400_000))).toBeLessThan(60_000);
    await expect(mintApiKey(db, principal, { expiresInDays: 366 })).rejects.toThrow(RangeError);
    expect((await server.request('GET', '/v1/keys', { key: minted.key })).status).toBe(200);

    const owner = await ownerId(server);
    expect((await revokeApiKeyStrict(db, owner, minted.row.key_id)).kind).toBe('forbidden');
    expect((await rebindApiKey(db, owner, minted.row.key_id, null)).kind).toBe('forbidden');
    expect((await revokeApiKeyStrict(db, owner, 'key_missing')).kind).toBe('not-found');
    const ownerProjects = await server.request('GET', '/v1/projects');
    expect((await rebindApiKey(db, other.userId, minted.row.key_id, ownerProjects.json.projects[0].project_id)).kind).toBe('project-not-found');
    const theirProjects = await server.request('GET', '/v1/projects', { key: other.key });
    const rebound = await rebindApiKey(db, other.userId, minted.row.key_id, theirProjects.json.projects[0].project_id);
    expect(rebound.kind).toBe('ok');
    expect((await revokeApiKeyStrict(db, other.userId, minted.row.key_id)).kind).toBe('ok');
    expect((await revokeApiKeyStrict(db, other.userId, minted.row.key_id)).kind).toBe('already-revoked');
  });
});

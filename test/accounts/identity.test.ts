import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConfirmToken } from '../../src/domain/identity/confirmTokens.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { jwtConfig, makeUser, startIdp, type TestIdp } from './helpers.js';

let idp: TestIdp;
let server: TestServer;

beforeAll(async () => {
  idp = await startIdp();
  server = await startTestServer(jwtConfig(idp));
});
afterAll(async () => {
  await server?.close();
  await idp?.close();
});

const asJwt = (token: string) => ({ key: null, headers: { authorization: `Bearer ${token}` } });

describe(`identity-provider JWT (${DB_KIND})`, () => {
  it('creates the user on first sight with plan and billing customer id from the token; API keys keep working', async () => {
    const token = await idp.sign({ plan: 'team', billing_customer_id: 'cus_123', email: 'ada@example.com', name: 'Ada' }, { sub: 'auth0|ada' });
    const res = await server.request('GET', '/v1/keys', asJwt(token));
    expect(res.status).toBe(200);
    expect(res.json.keys).toEqual([]);
    const [user] = await server.app.services.db.query<any>('select * from users where external_id = $1', ['auth0|ada']);
    expect(user).toMatchObject({ plan: 'team', billing_customer_id: 'cus_123', email: 'ada@example.com', name: 'Ada', is_admin: false });

    // A second login is the same user; a new plan claim updates it (namespaced claim form).
    const again = await idp.sign({ 'https://gc.example/plan': 'enterprise' }, { sub: 'auth0|ada' });
    const created = await server.request('POST', '/v1/keys', { ...asJwt(again), body: { name: 'from-idp' } });
    expect(created.status).toBe(201);
    expect(created.json.plan).toBe('enterprise');
    const users = await server.app.services.db.query<any>('select * from users where external_id = $1', ['auth0|ada']);
    expect(users).toHaveLength(1);
    expect(users[0]).toMatchObject({ plan: 'enterprise', billing_customer_id: 'cus_123' });
    // The key minted in the session works as an API key of the same user.
    const viaKey = await server.request('GET', '/v1/keys', { key: created.json.key });
    expect(viaKey.json.keys.map((k: any) => k.key_id)).toEqual([created.json.key_id]);
    expect((await server.request('GET', '/v1/keys')).status).toBe(200); // owner's API key
  });

  it('gates plans from the token: a free-plan session cannot create projects', async () => {
    const free = await idp.sign({ plan: 'free' }, { sub: 'free-user' });
    expect((await server.request('POST', '/v1/projects', { ...asJwt(free), body: { name: 'x' } })).status).toBe(403);
    const team = await idp.sign({ plan: 'team' }, { sub: 'team-user' });
    expect((await server.request('POST', '/v1/projects', { ...asJwt(team), body: { name: 'x' } })).status).toBe(201);
  });

  it('rejects an expired token, a wrong issuer, a wrong audience and a wrong key with 401', async () => {
    const cases = {
      expired: await idp.sign({ plan: 'pro' }, { expiresIn: Math.floor(Date.now() / 1000) - 60 }),
      issuer: await idp.sign({ plan: 'pro' }, { issuer: 'https://evil.test/' }),
      audience: await idp.sign({ plan: 'pro' }, { audience: 'someone-else' }),
      key: await idp.sign({ plan: 'pro' }, { key: idp.strangerKey }),
      unknownKid: await idp.sign({ plan: 'pro' }, { key: idp.strangerKey, kid: 'other-kid' }),
      badPlan: await idp.sign({ plan: 'platinum' }),
      garbage: 'aaa.bbb.ccc',
    };
    for (const [name, token] of Object.entries(cases)) {
      const res = await server.request('GET', '/v1/keys', asJwt(token));
      expect(res.status, name).toBe(401);
      expect(res.json.detail, name).toBeTruthy();
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
    }
    expect((await server.request('GET', '/v1/keys', asJwt(cases.expired))).json.detail).toMatch(/expired/);
    expect((await server.request('GET', '/v1/keys', asJwt(cases.issuer))).json.detail).toMatch(/iss/);
    expect((await server.request('GET', '/v1/keys', asJwt(cases.audience))).json.detail).toMatch(/aud/);
  });

  it('verifies against a JWKS file as well', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-jwks-'));
    const file = join(dir, 'jwks.json');
    writeFileSync(file, JSON.stringify(idp.jwks));
    const local = await startTestServer({ jwksFile: file, jwtIssuer: idp.issuer, jwtAudience: idp.audience });
    try {
      const ok = await local.request('GET', '/v1/keys', asJwt(await idp.sign({ plan: 'pro' })));
      expect(ok.status).toBe(200);
      const bad = await local.request('GET', '/v1/keys', asJwt(await idp.sign({ plan: 'pro' }, { key: idp.strangerKey })));
      expect(bad.status).toBe(401);
    } finally {
      await local.close();
    }
  });
});

describe(`confirm tokens (${DB_KIND})`, () => {
  async function session(sub: string) {
    const jwt = await idp.sign({ plan: 'pro' }, { sub });
    const created = await server.request('POST', '/v1/keys', { ...asJwt(jwt), body: { name: `${sub}-key`, monthly_quota: 50, environment: 'dev' } });
    expect(created.status).toBe(201);
    const [user] = await server.app.services.db.query<{ id: string }>('select id from users where external_id = $1', [sub]);
    return { jwt, userId: user!.id, key: created.json.key as string, keyId: created.json.key_id as string };
  }
  async function issue(jwtOrKey: { jwt?: string; key?: string }, keyId: string, body: Record<string, unknown>) {
    const opts = jwtOrKey.jwt ? asJwt(jwtOrKey.jwt) : { key: jwtOrKey.key };
    const res = await server.request('POST', `/v1/keys/${keyId}/confirm-tokens`, { ...opts, body });
    expect(res.status).toBe(201);
    return res.json.token as string;
  }

  it('revoke: a session confirms once (200), the key is rejected, a second confirm is 409', async () => {
    const s = await session('confirm-revoke');
    // Issued with the key itself; confirmed in the identity-provider session.
    const token = await issue({ key: s.key }, s.keyId, { operation: 'revoke' });
    expect((await server.request('GET', '/v1/keys', { key: s.key })).status).toBe(200);
    const res = await server.request('POST', `/v1/keys/confirm/${token}`, asJwt(s.jwt));
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ operation: 'revoke', key_id: s.keyId, status: 'confirmed', result: { status: 'revoked' } });
    expect(res.json.consumed_at).toBeTruthy();
    expect((await server.request('GET', '/v1/keys', { key: s.key })).status).toBe(401);
    const again = await server.request('POST', `/v1/keys/confirm/${token}`, asJwt(s.jwt));
    expect(again.status).toBe(409);
  });

  it('rotate: the successor is returned once and inherits settings', async () => {
    const s = await session('confirm-rotate');
    const token = await issue({ jwt: s.jwt }, s.keyId, { operation: 'rotate', grace_period_days: 1 });
    const res = await server.request('POST', `/v1/keys/confirm/${token}`, asJwt(s.jwt));
    expect(res.status).toBe(200);
    expect(res.json.result.key).toMatch(/^gc_[0-9a-f]{32}$/);
    expect(res.json.result).toMatchObject({ replaces_key_id: s.keyId, monthly_quota: 50, environment: 'dev', plan: 'pro' });
    const expires = new Date(res.json.result.predecessor.expires_at).getTime();
    expect(expires).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    expect(expires).toBeLessThan(Date.now() + 25 * 3_600_000);
    expect((await server.request('GET', '/v1/keys', { key: res.json.result.key })).status).toBe(200);
  });

  it('scope_grant adds the scope to the key', async () => {
    const s = await session('confirm-scope');
    const token = await issue({ jwt: s.jwt }, s.keyId, { operation: 'scope_grant', scope: 'mcp:write' });
    const res = await server.request('POST', `/v1/keys/confirm/${token}`, asJwt(s.jwt));
    expect(res.status).toBe(200);
    expect(res.json.result.scopes).toEqual(['mcp:write']);
  });

  it('checks in order: 404 unknown, 410 expired, 409 consumed, 403 another user\'s; an API key gets 403', async () => {
    const a = await session('order-a');
    const b = await session('order-b');
    expect((await server.request('POST', `/v1/keys/confirm/gcct_${'0'.repeat(64)}`, asJwt(a.jwt))).status).toBe(404);
    expect((await server.request('POST', '/v1/keys/confirm/not-a-token', asJwt(a.jwt))).status).toBe(404);

    const db = server.app.services.db;
    const expired = await createConfirmToken(db, { userId: b.userId, keyId: b.keyId, operation: 'revoke', params: {}, ttlSeconds: 60 });
    await db.query(`update confirm_tokens set expires_at = now() - interval '1 second' where id = $1`, [expired.row.id]);
    // Expired wins over consumed and over "another user's".
    await db.query(`update confirm_tokens set consumed_at = now() where id = $1`, [expired.row.id]);
    expect((await server.request('POST', `/v1/keys/confirm/${expired.token}`, asJwt(a.jwt))).status).toBe(410);

    const consumed = await createConfirmToken(db, { userId: b.userId, keyId: b.keyId, operation: 'revoke', params: {}, ttlSeconds: 60 });
    await db.query(`update confirm_tokens set consumed_at = now() where id = $1`, [consumed.row.id]);
    // Consumed wins over "another user's".
    expect((await server.request('POST', `/v1/keys/confirm/${consumed.token}`, asJwt(a.jwt))).status).toBe(409);

    const theirs = await createConfirmToken(db, { userId: b.userId, keyId: b.keyId, operation: 'revoke', params: {}, ttlSeconds: 60 });
    const forbidden = await server.request('POST', `/v1/keys/confirm/${theirs.token}`, asJwt(a.jwt));
    expect(forbidden.status).toBe(403);
    // Nothing happened to b's key, and the token is still usable by b.
    expect((await server.request('GET', '/v1/keys', { key: b.key })).status).toBe(200);
    expect((await server.request('POST', `/v1/keys/confirm/${theirs.token}`, { key: b.key })).status).toBe(403);
    expect((await server.request('POST', `/v1/keys/confirm/${theirs.token}`, asJwt(b.jwt))).status).toBe(200);
  });

  it('two concurrent confirms of one token: exactly one succeeds, the other is 409', async () => {
    for (let round = 0; round < 3; round++) {
      const s = await session(`race-${round}`);
      const token = await issue({ jwt: s.jwt }, s.keyId, { operation: 'rotate', grace_period_days: 0 });
      const results = await Promise.all([1, 2].map(() => server.request('POST', `/v1/keys/confirm/${token}`, asJwt(s.jwt))));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 409]);
      const successors = await server.app.services.db.query('select key_id from api_keys where replaces_key_id = $1', [s.keyId]);
      expect(successors).toHaveLength(1);
    }
  });

  it('a failing operation leaves the token unconsumed', async () => {
    const s = await session('confirm-fail');
    const token = await issue({ jwt: s.jwt }, s.keyId, { operation: 'revoke' });
    await server.request('DELETE', `/v1/keys/${s.keyId}`, asJwt(s.jwt));
    const res = await server.request('POST', `/v1/keys/confirm/${token}`, asJwt(s.jwt));
    expect(res.status).toBe(400);
    const [row] = await server.app.services.db.query<{ consumed_at: Date | null }>('select consumed_at from confirm_tokens order by created_at desc limit 1');
    expect(row!.consumed_at).toBeNull();
  });

  it('another user\'s key id cannot get a confirm token (404)', async () => {
    const s = await session('confirm-cross');
    const stranger = await makeUser(server, 'pro');
    const res = await server.request('POST', `/v1/keys/${stranger.keyId}/confirm-tokens`, { ...asJwt(s.jwt), body: { operation: 'revoke' } });
    expect(res.status).toBe(404);
  });
});

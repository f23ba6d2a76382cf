import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KIND, type TestResponse, type TestServer } from '../helpers/server.js';
import { expectAudit, makeUser, startCommerceServer, type CommerceServer } from './helpers.js';

// The keys/projects routes as served: src/routes/index.ts wraps every route with withAudit().
let cs: CommerceServer;
let server: TestServer;
let base: string;

beforeAll(async () => {
  cs = await startCommerceServer();
  server = cs.server;
  base = server.url;
});
afterAll(async () => {
  await cs?.close();
});

async function call(method: string, path: string, key: string, body?: unknown): Promise<TestResponse> {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : undefined };
}

describe(`audit of keys and projects through withAudit (${DB_KIND})`, () => {
  it('appends a row for every key change, success or refusal, without the key itself', async () => {
    const u = await makeUser(server, 'team');
    const created = await call('POST', '/v1/keys', u.key, { name: 'ci', environment: 'staging' });
    expect(created.status).toBe(201);
    const row = await expectAudit(server, u.key, created, 'key.create');
    expect(row.target).toEqual({ type: 'api_key', id: created.json.key_id });
    expect(row.detail).toMatchObject({ environment: 'staging' });

    const patched = await call('PATCH', `/v1/keys/${created.json.key_id}`, u.key, { name: 'ci-2' });
    expect(patched.status).toBe(200);
    expect((await expectAudit(server, u.key, patched, 'key.update')).detail).toEqual({ fields: ['name'] });

    const rotated = await call('POST', `/v1/keys/${created.json.key_id}/rotate`, u.key, { grace_period_days: 0 });
    expect(rotated.status).toBe(201);
    expect((await expectAudit(server, u.key, rotated, 'key.rotate')).detail).toEqual({ successor_key_id: rotated.json.key_id });

    const revoked = await call('DELETE', `/v1/keys/${rotated.json.key_id}`, u.key);
    expect(revoked.status).toBe(200);
    await expectAudit(server, u.key, revoked, 'key.revoke');
    const again = await call('DELETE', `/v1/keys/${rotated.json.key_id}`, u.key);
    expect(again.status).toBe(400);
    expect((await expectAudit(server, u.key, again, 'key.revoke', 'denied')).detail).toEqual({ status: 400 });
  });

  it('appends a row for project create, update, delete and a refused delete', async () => {
    const u = await makeUser(server, 'team');
    const created = await call('POST', '/v1/projects', u.key, { name: 'Search' });
    expect(created.status).toBe(201);
    expect((await expectAudit(server, u.key, created, 'project.create')).target).toEqual({ type: 'project', id: created.json.project_id });
    const updated = await call('PUT', `/v1/projects/${created.json.project_id}`, u.key, { description: 'x' });
    expect(updated.status).toBe(200);
    await expectAudit(server, u.key, updated, 'project.update');
    const deleted = await call('DELETE', `/v1/projects/${created.json.project_id}`, u.key);
    expect(deleted.status).toBe(200);
    await expectAudit(server, u.key, deleted, 'project.delete');
    const missing = await call('DELETE', `/v1/projects/${created.json.project_id}`, u.key);
    expect(missing.status).toBe(404);
    await expectAudit(server, u.key, missing, 'project.delete', 'denied');
    // Reads are not audited.
    await call('GET', '/v1/projects', u.key);
    const all = await server.request('GET', '/v1/governance/audit?page_size=100', { key: u.key });
    expect(all.json.items.every((r: any) => !r.action.startsWith('project.') || ['project.create', 'project.update', 'project.delete'].includes(r.action))).toBe(true);
    expect(all.json.total).toBe(4);
  });
});

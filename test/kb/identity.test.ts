import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jwtConfig, startIdp, type TestIdp } from '../accounts/helpers.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { makeTenant, settle } from './helpers.js';

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

describe(`knowledge visibility for an identity-provider owner (${DB_KIND})`, () => {
  it('the owner signed in through the identity provider sees private items of every key', async () => {
    const jwt = await idp.sign({ plan: 'pro' }, { sub: 'kb-owner' });
    expect((await server.request('GET', '/v1/projects', { key: jwt })).status).toBe(200);
    const [user] = await server.app.services.db.query<{ id: string }>(`select id from users where external_id = 'kb-owner'`);
    const t = await makeTenant(server, 'pro', user!.id);
    const kb = `/v1/projects/${t.projectId}/knowledge`;
    const created = await server.request('POST', `${kb}/items`, {
      body: { name: 'Private runbook', text: 'Rotate the hangar door keypad code after every night shift.', visibility: 'private' },
      key: t.keyA,
    });
    expect(created.status).toBe(201);
    await settle(server);
    const id = created.json.item_id;
    expect((await server.request('GET', `${kb}/items/${id}`, { key: t.keyB })).status).toBe(404);
    expect((await server.request('GET', `${kb}/items/${id}`, { key: jwt })).status).toBe(200);
    const list = await server.request('GET', `${kb}/items`, { key: jwt });
    expect(list.json.items.map((i: { item_id: string }) => i.item_id)).toContain(id);
    const q = await server.request('POST', `${kb}/query`, { body: { query: 'hangar keypad code' }, key: jwt });
    expect(q.json.results[0].item_id).toBe(id);
    // Another identity is another user: 404.
    const stranger = await idp.sign({ plan: 'pro' }, { sub: 'someone-else' });
    expect((await server.request('GET', `${kb}/items/${id}`, { key: stranger })).status).toBe(404);
  });
});

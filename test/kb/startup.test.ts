import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { DOCS, makeTenant, settle } from './helpers.js';

// The hub is services.knowledge, started by startApp once HTTP listens; there is no lazy path:
// a stopped hub answers 503 instead of starting itself, and work left pending resumes on start().
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe(`knowledge hub started by startApp (${DB_KIND})`, () => {
  it('ingests and answers queries right after start, with no further wiring', async () => {
    const hub = server.app.services.knowledge;
    await hub.ready;
    expect(await hub.index.stats()).toMatchObject({ projects: expect.any(Number) });
    const t = await makeTenant(server);
    const kb = `/v1/projects/${t.projectId}/knowledge`;
    const created = await server.request('POST', `${kb}/items`, { body: { name: 'rockets', text: DOCS.rockets }, key: t.keyA });
    expect(created.status).toBe(201);
    await settle(server);
    const q = await server.request('POST', `${kb}/query`, { body: { query: 'specific impulse' }, key: t.keyA });
    expect(q.status).toBe(200);
    expect(q.json.results[0].item_id).toBe(created.json.item_id);
  });

  it('a closed hub answers 503 instead of starting lazily; an item created meanwhile is ingested on start()', async () => {
    const hub = server.app.services.knowledge;
    const t = await makeTenant(server);
    const kb = `/v1/projects/${t.projectId}/knowledge`;
    const first = await server.request('POST', `${kb}/items`, { body: { name: 'pg', text: DOCS.postgres }, key: t.keyA });
    await settle(server);
    await hub.close();
    await hub.close(); // idempotent

    const down = await server.request('POST', `${kb}/query`, { body: { query: 'autovacuum dead tuples' }, key: t.keyA });
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBeTruthy();
    const queued = await server.request('POST', `${kb}/items`, { body: { name: 'garden', text: DOCS.gardening }, key: t.keyA });
    expect(queued.status).toBe(201);
    expect(queued.json.status).toBe('pending');

    hub.start();
    await hub.ready;
    await settle(server);
    const item = await server.request('GET', `${kb}/items/${queued.json.item_id}`, { key: t.keyA });
    expect(item.json.status).toBe('ready');
    const g = await server.request('POST', `${kb}/query`, { body: { query: 'water tomatoes twice a week' }, key: t.keyA });
    expect(g.status).toBe(200);
    expect(g.json.results[0].item_id).toBe(queued.json.item_id);
    const p = await server.request('POST', `${kb}/query`, { body: { query: 'autovacuum dead tuples' }, key: t.keyA });
    expect(p.json.results[0].item_id).toBe(first.json.item_id);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { DOCS, makeTenant, settle } from './helpers.js';

// Before app.ts calls startKnowledgeHub, the hub starts lazily on first use.
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe(`knowledge hub without explicit startup wiring (${DB_KIND})`, () => {
  it('ingests and answers queries with a lazily started hub', async () => {
    const t = await makeTenant(server);
    const kb = `/v1/projects/${t.projectId}/knowledge`;
    const created = await server.request('POST', `${kb}/items`, { body: { name: 'rockets', text: DOCS.rockets }, key: t.keyA });
    expect(created.status).toBe(201);
    await settle(server);
    const q = await server.request('POST', `${kb}/query`, { body: { query: 'specific impulse' }, key: t.keyA });
    expect(q.status).toBe(200);
    expect(q.json.results[0].item_id).toBe(created.json.item_id);
  });
});

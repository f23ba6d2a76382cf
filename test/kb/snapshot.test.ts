import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { DOCS, makeTenant, settle } from './helpers.js';

let server: TestServer;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kb-data-'));
  // On PGlite this also puts the database on disk in dir; on PostgreSQL only the snapshots go there.
  server = await startTestServer({ dataDir: dir });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe(`index snapshots in DATA_DIR (${DB_KIND})`, () => {
  it('close() writes the snapshot; the next start serves from it, and catches up on changes made meanwhile', async () => {
    const hub = server.app.services.knowledge;
    const t = await makeTenant(server);
    const kb = `/v1/projects/${t.projectId}/knowledge`;
    const first = await server.request('POST', `${kb}/items`, { body: { name: 'pg', text: DOCS.postgres }, key: t.keyA });
    await settle(server);
    await hub.close();
    expect(readdirSync(join(dir, 'kb-index')).sort()).toEqual([`${t.projectId}.hnsw`, `${t.projectId}.meta`]);

    // A change the snapshot does not hold (written while no hub held the index): deleted item.
    await server.app.services.db.query('update kb_items set deleted_at = now() where id = $1', [first.json.item_id]);
    await server.app.services.db.query('update kb_index_state set generation = generation + 1 where project_id = $1', [t.projectId]);

    hub.start();
    await hub.ready;
    const loaded = await hub.index.info(t.projectId);
    expect(loaded.loaded).toBe(true);
    const second = await server.request('POST', `${kb}/items`, { body: { name: 'garden', text: DOCS.gardening }, key: t.keyA });
    await settle(server);
    const q = await server.request('POST', `${kb}/query`, { body: { query: 'autovacuum dead tuples and table bloat', limit: 50 }, key: t.keyA });
    expect(q.status).toBe(200);
    expect(q.json.results.some((r: { item_id: string }) => r.item_id === first.json.item_id)).toBe(false);
    const g = await server.request('POST', `${kb}/query`, { body: { query: 'water tomatoes twice a week' }, key: t.keyA });
    expect(g.json.results[0].item_id).toBe(second.json.item_id);
    await hub.close();
    expect(existsSync(join(dir, 'kb-index', `${t.projectId}.hnsw`))).toBe(true);
  });
});

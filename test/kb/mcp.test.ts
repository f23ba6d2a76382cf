import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { DOCS, makeTenant, settle } from './helpers.js';

let server: TestServer;
let t: Awaited<ReturnType<typeof makeTenant>>;
let a: Client;
let b: Client;
let unbound: Client;

beforeAll(async () => {
  server = await startTestServer();
  t = await makeTenant(server);
  a = await connectMcp(server.url, t.keyA);
  b = await connectMcp(server.url, t.keyB);
  unbound = await connectMcp(server.url, t.unbound);
});
afterAll(async () => {
  await Promise.allSettled([a?.close(), b?.close(), unbound?.close()]);
  await server?.close();
});

describe(`gc_kb_* tools (${DB_KIND})`, () => {
  it('an unbound key gets no_project_selected', async () => {
    for (const name of ['gc_kb_ingest', 'gc_kb_list', 'gc_kb_query', 'gc_kb_share']) {
      const r = await call(unbound, name, { name: 'x', query: 'x', item_id: '00000000-0000-4000-8000-000000000000', peer_id: 'p' });
      expect(r.isError, name).toBe(true);
      expect(r.data.error, name).toBe('no_project_selected');
    }
  });

  it('ingest, get, list, query, edit (stale_base), diff, delete', async () => {
    const ing = await call(a, 'gc_kb_ingest', { name: 'Tomatoes', content: DOCS.gardening, metadata: { topic: 'garden' } });
    expect(ing.isError, JSON.stringify(ing.data)).toBe(false);
    const id = ing.data.item_id;
    const v1 = ing.data.version_id;
    const placeholder = await call(a, 'gc_kb_ingest', { name: 'Empty one' });
    expect(placeholder.data).toMatchObject({ status: 'ready', chunk_count: 0 });
    await settle(server);

    const got = await call(a, 'gc_kb_get', { item_id: id });
    expect(got.data.error, String(got.data.error)).toBeNull();
    expect(got.data).toMatchObject({ item_id: id, status: 'ready', content: DOCS.gardening });
    const list = await call(a, 'gc_kb_list', { metadata_filter: { topic: 'garden' } });
    expect(list.data.items.map((i: { item_id: string }) => i.item_id)).toEqual([id]);

    const q = await call(a, 'gc_kb_query', { query: 'how to prune tomato suckers', limit: 3 });
    expect(q.isError).toBe(false);
    expect(q.data.results[0].item_id).toBe(id);
    expect(q.data.results[0].raw_text).toMatch(/suckers/);

    const edit = await call(a, 'gc_kb_edit', { item_id: id, content: DOCS.gardening + '\n\nHarvest when fully red.', base_version_id: v1 });
    expect(edit.isError).toBe(false);
    const v2 = edit.data.current_version_id;
    expect(v2).not.toBe(v1);
    const stale = await call(a, 'gc_kb_edit', { item_id: id, content: 'other', base_version_id: v1 });
    expect(stale.isError).toBe(true);
    expect(stale.data.error).toBe('stale_base');
    expect(stale.data.current_version_id).toBe(v2);

    const diff = await call(a, 'gc_kb_diff', { item_id: id, from_version_id: v1, to_version_id: v2 });
    expect(diff.data.unified_diff).toContain('+Harvest when fully red.');
    expect(diff.data.from_content).toBe(DOCS.gardening);

    await settle(server);
    const del = await call(a, 'gc_kb_delete', { item_id: id });
    expect(del.data).toMatchObject({ item_id: id, deleted: true });
    const after = await call(a, 'gc_kb_query', { query: 'how to prune tomato suckers', limit: 50 });
    expect(after.data.results.some((r: { item_id: string }) => r.item_id === id)).toBe(false);
    const gone = await call(a, 'gc_kb_get', { item_id: id });
    expect(gone.data.error).toBe('not_found');
  });

  it('set_visibility: private hides from other keys; org/external are not_implemented', async () => {
    const ing = await call(a, 'gc_kb_ingest', { name: 'Rockets', content: DOCS.rockets });
    const id = ing.data.item_id;
    await settle(server);
    expect((await call(b, 'gc_kb_get', { item_id: id })).isError).toBe(false);
    const priv = await call(a, 'gc_kb_set_visibility', { item_id: id, visibility: 'private' });
    expect(priv.data.visibility).toBe('private');
    expect((await call(b, 'gc_kb_get', { item_id: id })).data.error).toBe('not_found');
    const bq = await call(b, 'gc_kb_query', { query: 'specific impulse liquid hydrogen', limit: 50 });
    expect(bq.data.results.some((r: { item_id: string }) => r.item_id === id)).toBe(false);
    expect((await call(a, 'gc_kb_query', { query: 'specific impulse liquid hydrogen' })).data.results[0].item_id).toBe(id);
    for (const visibility of ['org', 'external']) {
      const r = await call(a, 'gc_kb_set_visibility', { item_id: id, visibility });
      expect(r.data.error).toBe('not_implemented');
    }
  });

  it('gc_kb_share refuses private items and is idempotent, recording one grant', async () => {
    const jwk = { kty: 'OKP', crv: 'Ed25519', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo', kid: 'kb-peer' };
    const peer1 = (await server.request('POST', '/v1/agents/a2a-peers', { key: t.keyA, body: { name: 'peer-1', base_url: 'https://peer-1.example.com', public_keys: [jwk] } })).json.peer_id;
    expect((await call(a, 'gc_kb_share', { item_id: '00000000-0000-4000-8000-000000000000', peer_id: 'peer-1' })).data.error).toBe('not_found');
    const priv = await call(a, 'gc_kb_ingest', { name: 'Private', content: 'secret plans', visibility: 'private' });
    const refused = await call(a, 'gc_kb_share', { item_id: priv.data.item_id, peer_id: peer1 });
    expect(refused.data.error).toBe('cannot_share_private');
    const pub = await call(a, 'gc_kb_ingest', { name: 'Public', content: 'public plans' });
    const s1 = await call(a, 'gc_kb_share', { item_id: pub.data.item_id, peer_id: peer1 });
    const s2 = await call(a, 'gc_kb_share', { item_id: pub.data.item_id, peer_id: peer1 });
    expect(s1.isError).toBe(false);
    expect(s1.data.created).toBe(true);
    expect(s2.data.created).toBe(false);
    expect(s2.data.share_id).toBe(s1.data.share_id);
    const rows = await server.app.services.db.query('select * from kb_shares where item_id = $1', [pub.data.item_id]);
    expect(rows).toHaveLength(1);
    const missing = await call(a, 'gc_kb_share', { item_id: '00000000-0000-4000-8000-000000000000', peer_id: peer1 });
    expect(missing.data.error).toBe('not_found');
    await settle(server);
  });

  it('search_semantic returns ranked node ids with optional insufficiency detection', async () => {
    await call(a, 'gc_kb_ingest', { name: 'Postgres', content: DOCS.postgres });
    await settle(server);
    const r = await call(a, 'search_semantic', { query: 'autovacuum dead tuples bloat', top_k: 3, evidence_aware: true });
    expect(r.isError, JSON.stringify(r.data)).toBe(false);
    expect(r.data.node_ids.length).toBeGreaterThan(0);
    expect(r.data.node_ids[0]).toMatch(/^[0-9a-f-]{36}#\d+$/);
    expect(r.data.results[0].item_name).toBe('Postgres');
    expect(r.data.evidence.insufficient, JSON.stringify(r.data.evidence)).toBe(false);
    const off = await call(a, 'search_semantic', { query: 'zeppelin helium mooring mast', evidence_aware: true });
    expect(off.data.evidence.insufficient).toBe(true);
    expect(off.data.evidence.missing_terms.length).toBeGreaterThan(0);
    // Unbound key: the caller's Default project (none yet here: empty, not an error).
    const u = await call(unbound, 'search_semantic', { query: 'autovacuum' });
    expect(u.isError).toBe(false);
    expect(u.data.node_ids).toEqual([]);
  });
});

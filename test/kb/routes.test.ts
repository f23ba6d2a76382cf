import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { DOCS, makeTenant, settle } from './helpers.js';

let server: TestServer;
let t: Awaited<ReturnType<typeof makeTenant>>;
let other: Awaited<ReturnType<typeof makeTenant>>;

const kb = (project: string) => `/v1/projects/${project}/knowledge`;

beforeAll(async () => {
  server = await startTestServer();
  t = await makeTenant(server);
  other = await makeTenant(server);
});
afterAll(async () => {
  await server?.close();
});

async function ingest(body: Record<string, unknown>, key = t.keyA, project = t.projectId) {
  const res = await server.request('POST', `${kb(project)}/items`, { body, key });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

async function query(q: string, extra: Record<string, unknown> = {}, key = t.keyA, project = t.projectId) {
  const res = await server.request('POST', `${kb(project)}/query`, { body: { query: q, ...extra }, key });
  expect(res.status, res.text).toBe(200);
  return res.json as { results: { item_id: string; raw_text: string; text: string; score: number; chunk_id: string }[] };
}

describe(`knowledge items (${DB_KIND})`, () => {
  it('ingests text (201, pending) and indexes it asynchronously to ready with chunks', async () => {
    const created = await ingest({ name: 'Postgres notes', text: DOCS.postgres, metadata: { team: 'db', tier: 1 } });
    expect(created.item_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.version_id).toBe(created.current_version_id);
    expect(['pending', 'indexing', 'ready']).toContain(created.status);
    expect(created.visibility).toBe('project');
    await settle(server);
    const got = await server.request('GET', `${kb(t.projectId)}/items/${created.item_id}`, { key: t.keyA });
    expect(got.status).toBe(200);
    expect(got.json.status).toBe('ready');
    expect(got.json.chunk_count).toBeGreaterThan(0);
    expect(got.json.content).toBe(DOCS.postgres);
    expect(got.json.metadata).toEqual({ team: 'db', tier: 1 });
  });

  it('a name alone creates an empty placeholder with a current version', async () => {
    const created = await ingest({ name: 'Placeholder' });
    expect(created.status).toBe('ready');
    expect(created.chunk_count).toBe(0);
    expect(created.current_version_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.source).toBe('empty');
  });

  it('rejects bad ingest bodies with 422', async () => {
    const none = await server.request('POST', `${kb(t.projectId)}/items`, { body: {}, key: t.keyA });
    expect(none.status).toBe(422);
    const both = await server.request('POST', `${kb(t.projectId)}/items`, { body: { text: 'a', url: 'https://example.com/' }, key: t.keyA });
    expect(both.status).toBe(422);
    const unknown = await server.request('POST', `${kb(t.projectId)}/items`, { body: { name: 'x', colour: 'red' }, key: t.keyA });
    expect(unknown.status).toBe(422);
  });

  it('lists newest first with limit, opaque cursor and metadata containment filter', async () => {
    const nt = await makeTenant(server);
    const p = nt.projectId;
    const key = nt.keyA;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await ingest({ name: `item ${i}`, metadata: { n: i, even: i % 2 === 0 } }, key, p)).item_id);
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5 && (page === 0 || cursor); page++) {
      const qs: string = `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await server.request('GET', `${kb(p)}/items${qs}`, { key });
      expect(res.status).toBe(200);
      expect(res.json.items.length).toBeLessThanOrEqual(2);
      expect(res.json.total).toBe(5);
      seen.push(...res.json.items.map((i: { item_id: string }) => i.item_id));
      cursor = res.json.next_cursor;
    }
    expect(seen).toEqual([...ids].reverse());
    const filtered = await server.request('GET', `${kb(p)}/items?metadata_filter=${encodeURIComponent(JSON.stringify({ even: true }))}`, { key });
    expect(filtered.status).toBe(200);
    expect(filtered.json.items.map((i: { name: string }) => i.name).sort()).toEqual(['item 0', 'item 2', 'item 4']);
    const def = await server.request('GET', `${kb(p)}/items`, { key });
    expect(def.json.limit).toBe(50);
    for (const bad of ['?limit=0', '?limit=201', '?limit=abc', '?metadata_filter=%7Bnot-json', '?metadata_filter=%5B1%5D', '?cursor=garbage']) {
      expect((await server.request('GET', `${kb(p)}/items${bad}`, { key })).status, bad).toBe(422);
    }
    expect((await server.request('GET', `${kb(p)}/items?limit=200`, { key })).status).toBe(200);
  });

  it('returns 404 for unknown or malformed item ids', async () => {
    expect((await server.request('GET', `${kb(t.projectId)}/items/00000000-0000-4000-8000-000000000000`, { key: t.keyA })).status).toBe(404);
    expect((await server.request('GET', `${kb(t.projectId)}/items/nope`, { key: t.keyA })).status).toBe(404);
  });
});

describe(`knowledge query (${DB_KIND})`, () => {
  let garden: string;
  let rockets: string;
  beforeAll(async () => {
    garden = (await ingest({ name: 'Tomatoes', text: DOCS.gardening, metadata: { topic: 'garden' } })).item_id;
    rockets = (await ingest({ name: 'Rockets', text: DOCS.rockets, metadata: { topic: 'space' } })).item_id;
    await settle(server);
  });

  it('returns chunks with raw_text, skeleton text with anchors, item_id and score, best first', async () => {
    const out = await query('how often should I water tomato plants', { limit: 3 });
    expect(out.results.length).toBeGreaterThan(0);
    const top = out.results[0]!;
    expect(top.item_id).toBe(garden);
    expect(top.raw_text).toMatch(/Water deeply/);
    expect(top.text).toMatch(/^\[ANCHOR [0-9a-f-]{36}#\d+/);
    expect(typeof top.score).toBe('number');
    expect(top.chunk_id).toMatch(/#\d+$/);
  });

  it('filters by metadata containment', async () => {
    const out = await query('water tomatoes', { metadata_filter: { topic: 'space' } });
    expect(out.results.length).toBeGreaterThan(0);
    expect(out.results.every((r) => r.item_id === rockets)).toBe(true);
    const [row] = await server.app.services.db.query<{ t: string }>('select jsonb_typeof(metadata) as t from kb_items where id = $1', [rockets]);
    expect(row!.t).toBe('object');
  });

  // A page used to be chunked as Markdown: 56 chunks of tags (one over the 400-token bound), no
  // headings, a search finding attribute soup. It is chunked as it reads; the item keeps the page.
  it('an HTML page is found by its text: chunks without tags, headed by the page\'s headings', async () => {
    const page = readFileSync(resolve(process.cwd(), 'node_modules/uWebSockets.js/docs/generated/interfaces/HttpResponse.html'), 'utf8');
    const item = (await ingest({ name: 'HttpResponse page', text: page })).item_id;
    await settle(server);
    const got = await server.request('GET', `${kb(t.projectId)}/items/${item}`, { key: t.keyA });
    expect(got.json.content).toBe(page);
    expect(got.json.chunk_count).toBeLessThan(20);
    const out = await query('force close the connection immediately', { limit: 3 });
    const top = out.results[0]! as (typeof out.results)[number] & { heading: string | null };
    expect(top.item_id).toBe(item);
    expect(top.raw_text).toContain('Immediately force closes the connection.');
    expect(top.raw_text).not.toMatch(/<\/?[a-z]+[\s>]/);
    expect(top.heading).toMatch(/Interface HttpResponse › Methods/);
  });

  it('validates the query body', async () => {
    expect((await server.request('POST', `${kb(t.projectId)}/query`, { body: {}, key: t.keyA })).status).toBe(422);
    expect((await server.request('POST', `${kb(t.projectId)}/query`, { body: { query: 'x', limit: 0 }, key: t.keyA })).status).toBe(422);
  });

  it('a soft-deleted item never appears in a query, listing or get, and is kept for audit', async () => {
    const doomed = (await ingest({ name: 'Doomed', text: 'Zanzibar quokka telemetry: the quokka beacon transmits every nine minutes.' })).item_id;
    await settle(server);
    expect((await query('quokka beacon telemetry')).results.some((r) => r.item_id === doomed)).toBe(true);
    const del = await server.request('DELETE', `${kb(t.projectId)}/items/${doomed}`, { key: t.keyA });
    expect(del.status).toBe(200);
    expect(del.json).toMatchObject({ item_id: doomed, deleted: true });
    expect((await query('quokka beacon telemetry', { limit: 50 })).results.some((r) => r.item_id === doomed)).toBe(false);
    expect((await server.request('GET', `${kb(t.projectId)}/items/${doomed}`, { key: t.keyA })).status).toBe(404);
    const list = await server.request('GET', `${kb(t.projectId)}/items?limit=200`, { key: t.keyA });
    expect(list.json.items.some((i: { item_id: string }) => i.item_id === doomed)).toBe(false);
    expect((await server.request('DELETE', `${kb(t.projectId)}/items/${doomed}`, { key: t.keyA })).status).toBe(404);
    const [row] = await server.app.services.db.query<{ deleted_at: Date | null }>('select deleted_at from kb_items where id = $1', [doomed]);
    expect(row!.deleted_at).not.toBeNull();
  });

  it('keeps answering after the index thread restarts (rebuilt from persisted embeddings)', async () => {
    await server.app.services.knowledge.restart();
    const out = await query('specific impulse of liquid hydrogen engines', { limit: 2 });
    expect(out.results[0]!.item_id).toBe(rockets);
  });
});

describe(`knowledge edits and versions (${DB_KIND})`, () => {
  it('PATCH name or mcp_exposed alone keeps the version; content makes a new one reflected in the next query', async () => {
    const item = await ingest({ name: 'Edit me', text: 'The walrus colony sleeps on the northern ice shelf during winter.' });
    await settle(server);
    const v1 = item.current_version_id;
    const renamed = await server.request('PATCH', `${kb(t.projectId)}/items/${item.item_id}`, { body: { name: 'Renamed' }, key: t.keyA });
    expect(renamed.status).toBe(200);
    expect(renamed.json.name).toBe('Renamed');
    expect(renamed.json.current_version_id).toBe(v1);
    const hidden = await server.request('PATCH', `${kb(t.projectId)}/items/${item.item_id}`, { body: { mcp_exposed: false }, key: t.keyA });
    expect(hidden.json.mcp_exposed).toBe(false);
    expect(hidden.json.current_version_id).toBe(v1);
    const edited = await server.request('PATCH', `${kb(t.projectId)}/items/${item.item_id}`, {
      body: { content: 'The penguin rookery nests on the southern basalt cliffs in spring.', base_version_id: v1 },
      key: t.keyA,
    });
    expect(edited.status).toBe(200);
    expect(edited.json.current_version_id).not.toBe(v1);
    expect(edited.json.version_number).toBe(2);
    await settle(server);
    const walrus = await query('walrus colony northern ice shelf', { limit: 50 });
    expect(walrus.results.some((r) => r.raw_text.includes('walrus'))).toBe(false);
    const penguin = await query('penguin rookery basalt cliffs');
    expect(penguin.results[0]!.item_id).toBe(item.item_id);

    const noBase = await server.request('PATCH', `${kb(t.projectId)}/items/${item.item_id}`, { body: { content: 'x' }, key: t.keyA });
    expect(noBase.status).toBe(422);
  });

  it('two PATCHes on one base: one wins, the other gets 409 naming the current version', async () => {
    const item = await ingest({ name: 'Race', text: 'Original text of the race document.' });
    const base = item.current_version_id;
    const [a, b] = await Promise.all(
      ['First writer content.', 'Second writer content.'].map((content) =>
        server.request('PATCH', `${kb(t.projectId)}/items/${item.item_id}`, { body: { content, base_version_id: base }, key: t.keyA }),
      ),
    );
    const statuses = [a!.status, b!.status].sort();
    expect(statuses).toEqual([200, 409]);
    const winner = a!.status === 200 ? a! : b!;
    const loser = a!.status === 409 ? a! : b!;
    expect(loser.json.detail).toContain(winner.json.current_version_id);
    expect(loser.headers.get('x-current-version-id')).toBe(winner.json.current_version_id);
    await settle(server);
  });

  it('diff returns both contents and a unified diff; validates its parameters', async () => {
    const item = await ingest({ name: 'Diffed', text: 'line one\nline two\nline three\n' });
    const v1 = item.current_version_id;
    const edit = await server.request('PATCH', `${kb(t.projectId)}/items/${item.item_id}`, {
      body: { content: 'line one\nline 2\nline three\nline four\n', base_version_id: v1 },
      key: t.keyA,
    });
    const v2 = edit.json.current_version_id;
    const diff = await server.request('GET', `${kb(t.projectId)}/items/${item.item_id}/diff?from_version_id=${v1}&to_version_id=${v2}`, { key: t.keyA });
    expect(diff.status).toBe(200);
    expect(diff.json.from_content).toBe('line one\nline two\nline three\n');
    expect(diff.json.to_content).toBe('line one\nline 2\nline three\nline four\n');
    expect(diff.json.unified_diff).toContain('-line two\n+line 2\n');
    expect(diff.json.unified_diff).toContain('+line four');
    expect(diff.json.unified_diff).toMatch(/^--- .*\n\+\+\+ .*\n@@ -1,3 \+1,4 @@/);
    expect((await server.request('GET', `${kb(t.projectId)}/items/${item.item_id}/diff?from_version_id=${v1}`, { key: t.keyA })).status).toBe(422);
    expect((await server.request('GET', `${kb(t.projectId)}/items/${item.item_id}/diff?from_version_id=${v1}&to_version_id=x`, { key: t.keyA })).status).toBe(422);
    const stranger = '00000000-0000-4000-8000-000000000000';
    expect((await server.request('GET', `${kb(t.projectId)}/items/${item.item_id}/diff?from_version_id=${v1}&to_version_id=${stranger}`, { key: t.keyA })).status).toBe(404);
    await settle(server);
  });

  it('reindex answers 202 with a new version_id and is the path out of FAILED', async () => {
    const item = await ingest({ name: 'Fails', text: 'The lighthouse keeper logs the fog horn schedule.' });
    await settle(server);
    // Simulate a failed ingest (the embedding model missing at the time, for instance).
    await server.app.services.db.query(`update kb_items set status = 'FAILED', chunk_count = 0, error = 'simulated' where id = $1`, [item.item_id]);
    const failed = await server.request('GET', `${kb(t.projectId)}/items/${item.item_id}`, { key: t.keyA });
    expect(failed.json).toMatchObject({ status: 'FAILED', chunk_count: 0 });
    expect(failed.json.current_version_id).toBeTruthy();
    const re = await server.request('POST', `${kb(t.projectId)}/items/${item.item_id}/reindex`, { key: t.keyA });
    expect(re.status).toBe(202);
    expect(re.json.version_id).not.toBe(item.current_version_id);
    await settle(server);
    const after = await server.request('GET', `${kb(t.projectId)}/items/${item.item_id}`, { key: t.keyA });
    expect(after.json).toMatchObject({ status: 'ready', current_version_id: re.json.version_id, error: null });
    expect(after.json.chunk_count).toBeGreaterThan(0);
    expect((await query('lighthouse fog horn schedule')).results[0]!.item_id).toBe(item.item_id);
  });
});

describe(`knowledge uploads (${DB_KIND})`, () => {
  it('issues a signed upload idempotently, enforces signature, expiry and size, and ingests on complete', async () => {
    const issue = () =>
      server.request('POST', `${kb(t.projectId)}/uploads`, { body: { idempotency_key: 'upload-1', name: 'Uploaded notes', size_bytes: 2000, metadata: { via: 'upload' } }, key: t.keyA });
    const first = await issue();
    expect(first.status).toBe(201);
    expect(first.json.upload_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.json.max_bytes).toBe(2000);
    const again = await issue();
    expect(again.status).toBe(201);
    expect(again.json.upload_id).toBe(first.json.upload_id);
    const url = new URL(first.json.upload_url);
    const path = url.pathname + url.search;

    const early = await server.request('POST', `${kb(t.projectId)}/uploads/${first.json.upload_id}/complete`, { key: t.keyA });
    expect(early.status).toBe(409);

    const tampered = path.replace(/signature=[^&]+/, 'signature=AAAA');
    expect((await server.request('PUT', tampered, { body: { content: 'x' }, key: null })).status).toBe(403);
    const expired = path.replace(/expires=\d+/, 'expires=1000');
    expect((await server.request('PUT', expired, { body: { content: 'x' }, key: null })).status).toBe(403);
    const big = await server.request('PUT', path, { body: { content: 'y'.repeat(2001) }, key: null });
    expect(big.status).toBe(413);

    const put = await server.request('PUT', path, { body: { content: 'The glacier survey measured ice retreat of forty metres per year.' }, key: null });
    expect(put.status).toBe(200);
    expect(put.json.status).toBe('uploaded');

    const done = await server.request('POST', `${kb(t.projectId)}/uploads/${first.json.upload_id}/complete`, { key: t.keyA });
    expect(done.status).toBe(200);
    expect(done.json.item.name).toBe('Uploaded notes');
    expect(done.json.item.source).toBe('upload');
    const doneAgain = await server.request('POST', `${kb(t.projectId)}/uploads/${first.json.upload_id}/complete`, { key: t.keyA });
    expect(doneAgain.status).toBe(200);
    expect(doneAgain.json.item.item_id).toBe(done.json.item.item_id);
    await settle(server);
    expect((await query('glacier ice retreat survey')).results[0]!.item_id).toBe(done.json.item.item_id);

    expect((await server.request('POST', `${kb(t.projectId)}/uploads/00000000-0000-4000-8000-000000000000/complete`, { key: t.keyA })).status).toBe(404);
    expect((await server.request('POST', `${kb(t.projectId)}/uploads`, { body: { name: 'no key' }, key: t.keyA })).status).toBe(422);
  });
});

describe(`knowledge visibility and scoping (${DB_KIND})`, () => {
  it('private items are visible only to the creating key; project items to every key of the project', async () => {
    const priv = await ingest({ name: 'Secret', text: 'The vault combination rotates every full moon at the observatory.', visibility: 'private' });
    const shared = await ingest({ name: 'Shared', text: 'The observatory opens its dome at dusk for visitors.' });
    await settle(server);
    expect((await server.request('GET', `${kb(t.projectId)}/items/${priv.item_id}`, { key: t.keyA })).status).toBe(200);
    expect((await server.request('GET', `${kb(t.projectId)}/items/${priv.item_id}`, { key: t.keyB })).status).toBe(404);
    expect((await server.request('GET', `${kb(t.projectId)}/items/${shared.item_id}`, { key: t.keyB })).status).toBe(200);
    const listB = await server.request('GET', `${kb(t.projectId)}/items?limit=200`, { key: t.keyB });
    expect(listB.json.items.some((i: { item_id: string }) => i.item_id === priv.item_id)).toBe(false);
    const qa = await query('vault combination full moon', {}, t.keyA);
    expect(qa.results[0]!.item_id).toBe(priv.item_id);
    const qb = await query('vault combination full moon', { limit: 50 }, t.keyB);
    expect(qb.results.some((r) => r.item_id === priv.item_id)).toBe(false);
    expect((await server.request('PATCH', `${kb(t.projectId)}/items/${priv.item_id}`, { body: { name: 'mine now' }, key: t.keyB })).status).toBe(404);
    expect((await server.request('DELETE', `${kb(t.projectId)}/items/${priv.item_id}`, { key: t.keyB })).status).toBe(404);
  });

  it('org and external visibility are not implemented', async () => {
    for (const visibility of ['org', 'external']) {
      const res = await server.request('POST', `${kb(t.projectId)}/items`, { body: { name: 'x', visibility }, key: t.keyA });
      expect(res.status).toBe(501);
      expect(res.json.detail).toMatch(/^not_implemented/);
    }
  });

  it("another user's project is 404 on every route; a key bound to another project is 404 too", async () => {
    const mine = await ingest({ name: 'Mine', text: 'hello' });
    const p = kb(t.projectId);
    const item = `${p}/items/${mine.item_id}`;
    const v = mine.current_version_id;
    const calls: [string, string, unknown?][] = [
      ['POST', `${p}/items`, { name: 'x' }],
      ['GET', `${p}/items`],
      ['GET', item],
      ['PATCH', item, { name: 'y' }],
      ['DELETE', item],
      ['POST', `${p}/query`, { query: 'hello' }],
      ['GET', `${item}/diff?from_version_id=${v}&to_version_id=${v}`],
      ['POST', `${p}/uploads`, { idempotency_key: 'k', name: 'n' }],
      ['POST', `${p}/uploads/00000000-0000-4000-8000-000000000000/complete`],
      ['POST', `${item}/reindex`],
    ];
    const otherBound = (await makeTenant(server, 'pro', t.userId)).keyA; // same owner, bound to a different project
    for (const [method, path, body] of calls) {
      for (const key of [other.keyA, other.unbound, otherBound]) {
        const res = await server.request(method, path, { body, key });
        expect(res.status, `${method} ${path}`).toBe(404);
      }
    }
    expect((await server.request('GET', `${p}/items`, { key: t.unbound })).status).toBe(200);
    expect((await server.request('GET', `${p}/items`, { key: null })).status).toBe(401);
    expect((await server.request('GET', `/v1/projects/not-a-uuid/knowledge/items`, { key: t.keyA })).status).toBe(404);
    await settle(server);
  });
});

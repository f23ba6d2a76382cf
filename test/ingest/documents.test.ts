import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedFetcher, refreshDocument } from '../../src/domain/ingest/documents.js';
import { Call } from '../../src/domain/call.js';
import { connectMcp } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { DOCS, makeTenant, settle } from '../kb/helpers.js';
import { fails, ok } from './helpers.js';

let server: TestServer;
let t: Awaited<ReturnType<typeof makeTenant>>;
let a: Client;
let other: Client;
let free: Client;
let unbound: Client;

beforeAll(async () => {
  server = await startTestServer();
  t = await makeTenant(server);
  a = await connectMcp(server.url, t.keyA);
  other = await connectMcp(server.url, (await makeTenant(server)).keyA);
  free = await connectMcp(server.url, (await makeTenant(server, 'free')).keyA);
  unbound = await connectMcp(server.url, t.unbound);
});
afterAll(async () => {
  await Promise.allSettled([a, other, free, unbound].map((c) => c?.close()));
  await server?.close();
});

const RETRY = 'Retries use exponential back-off with full jitter. After five failed attempts the client gives up and reports the last status code to the caller, together with the request id for support.';

describe(`batch ingest, refresh, version history, duplicates (${DB_KIND})`, () => {
  it('batch_ingest_documents: per-document results, failures reported, the rest ingested', async () => {
    const r = await ok(a, 'batch_ingest_documents', {
      documents: [
        { name: 'Postgres', content: DOCS.postgres, metadata: { topic: 'db' } },
        { name: 'Both', content: 'x', url: 'https://example.com/x' },
        { name: 'Local', url: 'https://127.0.0.1/secret' },
        { name: 'Garden', content: DOCS.gardening },
        { name: 'Bad visibility', content: 'y', visibility: 'org' },
      ],
    });
    expect(r.summary).toEqual({ total: 5, created: 2, failed: 3 });
    expect(r.results.map((x: any) => [x.index, x.ok])).toEqual([[0, true], [1, false], [2, false], [3, true], [4, false]]);
    expect(r.results[0]).toMatchObject({ name: 'Postgres', version_number: 1, status: 'pending' });
    expect(r.results[0].content_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(r.results[0].tokens).toBeGreaterThan(50);
    expect(r.results[1]).toMatchObject({ error: 'invalid_request', detail: expect.stringMatching(/content or url, not both/) });
    expect(r.results[2]).toMatchObject({ error: 'invalid_request', detail: expect.stringMatching(/fetch_refused \(address\)/) });
    expect(r.results[4]).toMatchObject({ error: 'not_implemented' });
    await settle(server);
    const q = await ok(a, 'gc_kb_query', { query: 'autovacuum dead tuples', limit: 1 });
    expect(q.results[0].item_id).toBe(r.results[0].item_id);

    // Bounds: 1-50 documents per call.
    expect((await fails(a, 'batch_ingest_documents', { documents: [] })).error).toBe('validation_error');
    const many = Array.from({ length: 51 }, (_, i) => ({ content: `doc ${i}` }));
    expect((await fails(a, 'batch_ingest_documents', { documents: many })).error).toBe('validation_error');
  });

  it('refresh_document: new version only when the hash changes; history with hashes, times, tokens', async () => {
    const item = (await ok(a, 'gc_kb_ingest', { name: 'Retry policy', content: RETRY })).item_id;
    const same = await ok(a, 'refresh_document', { item_id: item, content: RETRY });
    expect(same).toMatchObject({ item_id: item, changed: false, version_number: 1, source: 'content' });
    const changed = await ok(a, 'refresh_document', { item_id: item, content: `${RETRY} Timeouts count as failures.` });
    expect(changed).toMatchObject({ changed: true, version_number: 2, status: 'pending' });
    expect(changed.content_hash).not.toBe(same.content_hash);
    expect(changed.previous_content_hash).toBe(same.content_hash);
    await settle(server);
    const got = await ok(a, 'gc_kb_get', { item_id: item });
    expect(got).toMatchObject({ current_version_id: changed.version_id, status: 'ready' });
    expect(got.content).toMatch(/Timeouts count as failures/);

    const h = await ok(a, 'get_version_history', { item_id: item });
    expect(h.total_versions).toBe(2);
    expect(h.versions.map((v: any) => [v.version_number, v.current, v.origin])).toEqual([[2, true, 'refresh:content'], [1, false, 'ingest']]);
    expect(h.versions[1].content_hash).toBe(same.content_hash);
    // Tokens of a version written by gc_kb_ingest are counted on first read (in the pool).
    expect(h.versions[1].tokens).toBeGreaterThan(20);
    expect(h.versions[0].tokens).toBeGreaterThan(h.versions[1].tokens);
    expect(Date.parse(h.versions[0].created_at)).toBeGreaterThanOrEqual(Date.parse(h.versions[1].created_at));

    // Only the last 10 versions are kept.
    for (let i = 0; i < 11; i++) await ok(a, 'refresh_document', { item_id: item, content: `${RETRY} revision ${i}` });
    const after = await ok(a, 'get_version_history', { item_id: item, limit: 50 });
    expect(after.total_versions).toBe(10);
    expect(after.versions[0]).toMatchObject({ version_number: 13, current: true });
    expect(after.versions.at(-1).version_number).toBe(4);
    await settle(server);
  });

  it('refresh_document re-reads a stored source URL through the SSRF guard', async () => {
    const item = (await ok(a, 'gc_kb_ingest', { name: 'From a URL', content: 'old text' })).item_id;
    await server.app.services.db.query(`update kb_items set source = 'url', source_url = 'https://127.0.0.1:9/doc.md' where id = $1`, [item]);
    const refused = await fails(a, 'refresh_document', { item_id: item });
    expect(refused.error).toBe('fetch_refused');
    expect(refused.detail).toMatch(/fetch_refused \(address\)/);
    const noSource = (await ok(a, 'gc_kb_ingest', { name: 'Inline', content: 'inline' })).item_id;
    expect((await fails(a, 'refresh_document', { item_id: noSource })).detail).toMatch(/no stored source URL/);

    // The URL path end to end, with a fetcher standing in for the network (same guard options, test hooks only).
    const principal = { userId: t.userId, plan: 'pro' as const, isAdmin: false, keyId: t.keyAId, environment: null, projectId: t.projectId, via: 'api_key' as const };
    const call = new Call({ services: server.app.services, principal, surface: 'MCP' });
    let served = 'fresh text from the web';
    const fetcher = async (url: string) => {
      expect(url).toBe('https://127.0.0.1:9/doc.md');
      return served;
    };
    const first = await refreshDocument(call, t.projectId, item, {}, fetcher);
    expect(first).toMatchObject({ changed: true, source: 'url', version_number: 2 });
    expect((await refreshDocument(call, t.projectId, item, {}, fetcher)).changed).toBe(false);
    served = 'newer text';
    expect((await refreshDocument(call, t.projectId, item, {}, fetcher)).version_number).toBe(3);
    expect(typeof guardedFetcher()).toBe('function');
    await settle(server);
  });

  it('refresh_document to empty content: a ready, empty version that no query finds', async () => {
    const item = (await ok(a, 'gc_kb_ingest', { name: 'Soon empty', content: 'Marmalade recipes with bitter Seville oranges.' })).item_id;
    await settle(server);
    expect((await ok(a, 'gc_kb_query', { query: 'Seville orange marmalade' })).results.some((r: any) => r.item_id === item)).toBe(true);
    const r = await ok(a, 'refresh_document', { item_id: item, content: '' });
    expect(r).toMatchObject({ changed: true, status: 'ready', version_number: 2, tokens: 0 });
    expect((await ok(a, 'gc_kb_query', { query: 'Seville orange marmalade' })).results.some((x: any) => x.item_id === item)).toBe(false);
    expect((await server.app.services.db.query('select 1 from kb_chunks where item_id = $1', [item])).length).toBe(0);
  });

  it('find_duplicates: clusters near-duplicates with their similarity', async () => {
    const near = RETRY.replace('five failed attempts', 'six failed attempts');
    const ids = (await ok(a, 'batch_ingest_documents', {
      documents: [
        { name: 'dup-1', content: RETRY },
        { name: 'dup-2', content: near },
        { name: 'dup-3', content: RETRY },
        { name: 'unrelated', content: DOCS.rockets },
      ],
    })).results.map((r: any) => r.item_id);
    const r = await ok(a, 'find_duplicates', { item_ids: ids });
    expect(r).toMatchObject({ method: 'minhash', threshold: 0.7, compared_documents: 4, total_clusters: 1 });
    const cluster = r.clusters[0];
    expect(new Set(cluster.items.map((i: any) => i.item_id))).toEqual(new Set(ids.slice(0, 3)));
    expect(cluster.max_similarity).toBe(1);
    expect(cluster.min_similarity).toBeGreaterThan(0.7);
    expect(cluster.min_similarity).toBeLessThan(1);
    const identical = cluster.pairs.find((p: any) => p.identical);
    expect([identical.item_a, identical.item_b].sort()).toEqual([ids[0], ids[2]].sort());
    // Higher threshold: only the identical pair is left.
    const strict = await ok(a, 'find_duplicates', { item_ids: ids, threshold: 0.99 });
    expect(strict.clusters[0].size).toBe(2);
    // The whole project: the retry copies are found among everything else.
    const all = await ok(a, 'find_duplicates', {});
    expect(all.clusters.some((c: any) => ids.slice(0, 3).every((id: string) => c.items.some((i: any) => i.item_id === id)))).toBe(true);
    expect((await fails(a, 'find_duplicates', { threshold: 0.1 })).error).toBe('validation_error');
    await settle(server);
  });

  it('unknown ids, other users, plan and project gates', async () => {
    const mine = (await ok(a, 'gc_kb_ingest', { name: 'Mine', content: RETRY })).item_id;
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const [tool, args] of [['refresh_document', { content: 'x' }], ['get_version_history', {}]] as const) {
      expect((await fails(a, tool, { item_id: unknown, ...args })).error, tool).toBe('not_found');
      expect((await fails(other, tool, { item_id: mine, ...args })).error, tool).toBe('not_found');
      expect((await fails(a, tool, { item_id: 'nope', ...args })).error, tool).toBe('validation_error');
    }
    // Another user's documents never appear among duplicates.
    await ok(other, 'gc_kb_ingest', { name: 'Their copy', content: RETRY });
    const theirs = await ok(other, 'find_duplicates', {});
    expect(theirs.compared_documents).toBe(1);
    expect(theirs.clusters).toEqual([]);
    for (const tool of ['batch_ingest_documents', 'refresh_document', 'get_version_history', 'find_duplicates']) {
      expect((await fails(free, tool, {})).error, tool).toBe('plan_required');
    }
    expect((await fails(unbound, 'find_duplicates', {})).error).toBe('no_project_selected');
    await settle(server);
  });
});

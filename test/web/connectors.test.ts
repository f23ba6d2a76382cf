// Connector feeds through the SDK client: RSS/Atom, sitemaps and a local folder ingested into the
// project's Knowledge Hub (searchable with gc_kb_query), idempotent syncs, scheduled syncs, the SSRF
// guard on every fetch, folder confinement, owner scoping and the errors.
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { claimFeed, finishFeed } from '../../src/domain/connectors/feeds.js';
import { makeTenant, settle } from '../kb/helpers.js';
import { call, connectMcp, ok } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { connectAs } from '../helpers/users.js';
import { articlePage, atom, closedPort, GARDEN, LocalSite, rss, sitemapIndex, urlset } from './site.js';
import { waitFor } from '../helpers/waitFor.js';

let server: TestServer;
let site: LocalSite;
let root: string;
let outside: string;
let a: Client;
let other: Client;
let unbound: Client;
let free: Client;
let deadPort: number;

const ITEMS = [
  { guid: 'post-1', title: 'Vacuum tuning', body: '<p>Autovacuum removes <b>dead tuples</b> left by updates. Lower autovacuum_vacuum_scale_factor on busy tables.</p>' },
  { guid: 'post-2', title: 'Connection pooling', body: '<p>Use PgBouncer in transaction mode when hundreds of clients connect to PostgreSQL.</p>' },
  { guid: 'post-3', title: 'Partial indexes', body: '<p>Partial indexes keep small indexes for hot subsets of rows.</p>' },
];

beforeAll(async () => {
  site = await new LocalSite().start();
  deadPort = await closedPort();
  root = await mkdtemp(join(tmpdir(), 'gc-connector-root-'));
  outside = await mkdtemp(join(tmpdir(), 'gc-connector-outside-'));
  const base = loadConfig({});
  server = await startTestServer({
    web: { ...base.web, allowedHosts: [site.hostPort, `127.0.0.1:${deadPort}`], maxBytes: 100_000, timeoutMs: 1500, folderRoot: root, pollMs: 100, minIntervalSeconds: 1 },
  });
  const t = await makeTenant(server, 'pro');
  a = await connectMcp(server.url, t.keyA);
  unbound = await connectMcp(server.url, t.unbound);
  other = await connectMcp(server.url, (await makeTenant(server, 'pro')).keyA);
  free = await connectMcp(server.url, (await makeTenant(server, 'free')).keyA);

  let etagVersion = 1;
  site.set('/feed.xml', (req) => {
    const etag = `"v${etagVersion}"`;
    if (req.headers['if-none-match'] === etag) return { status: 304, type: 'application/rss+xml' };
    return { type: 'application/rss+xml; charset=utf-8', headers: { etag }, body: rss(ITEMS) };
  });
  (site as unknown as { bumpEtag: () => void }).bumpEtag = () => etagVersion++;
  site.set('/atom.xml', { type: 'application/atom+xml', body: atom([{ id: 'urn:e:1', title: 'Atom entry about WAL archiving', body: '<p>Archive WAL segments with archive_command to object storage.</p>' }]) });
  site.set('/broken.xml', { type: 'application/rss+xml', body: '<rss version="2.0"><channel><title>broken<item><title>x</title></channel>' });
  site.set('/notafeed.xml', { type: 'application/xml', body: '<?xml version="1.0"?><catalog><book>x</book></catalog>' });
  site.set('/feed.html', { type: 'text/html', body: '<html><body>not a feed</body></html>' });
  site.set('/huge.xml', { type: 'application/rss+xml', body: rss([{ guid: 'h', title: 'huge', body: 'z'.repeat(150_000) }]) });
  site.set('/sitemap_index.xml', { type: 'application/xml', body: sitemapIndex([`${site.url}/sitemap-pages.xml`]) });
  site.set('/sitemap-pages.xml', {
    type: 'application/xml',
    body: urlset([
      { loc: `${site.url}/garden`, lastmod: '2026-11-01' },
      { loc: `${site.url}/roses`, lastmod: '2026-11-02' },
      { loc: `${site.url}/to-private` },
    ]),
  });
  site.set('/garden', { body: articlePage('Growing tomatoes', GARDEN) });
  site.set('/roses', { body: articlePage('Pruning roses', [['Timing', 'Prune roses in late winter when the forsythia blooms. Cut above an outward-facing bud at a forty-five degree angle.'], ['Tools', 'Use sharp bypass secateurs and wipe them with alcohol between plants to avoid spreading black spot.']]) });
  site.set('/to-private', { status: 302, headers: { location: 'https://10.9.8.7/page' } });

  await mkdir(join(root, 'handbook', 'ops'), { recursive: true });
  await writeFile(join(root, 'handbook', 'oncall.md'), '# On-call\n\nThe on-call engineer acknowledges pages within fifteen minutes and writes a timeline in the incident channel.');
  await writeFile(join(root, 'handbook', 'ops', 'backups.txt'), 'Backups run nightly at 02:00 UTC and are restored into a scratch database every Sunday to prove they work.');
  await writeFile(join(root, 'handbook', 'ops', 'page.html'), articlePage('Deploy checklist', [['Before', 'Freeze merges thirty minutes before a deploy and announce it in the release channel.'], ['After', 'Watch the error budget dashboard for an hour after the deploy finishes.']]));
  await writeFile(join(root, 'handbook', 'image.png'), 'not text');
  await writeFile(join(outside, 'secret.md'), '# Secret\n\nThe outside file must never be read.');
  await symlink(join(outside, 'secret.md'), join(root, 'handbook', 'leak.md'));
  await symlink(outside, join(root, 'escape'));
});

afterAll(async () => {
  await Promise.allSettled([a?.close(), other?.close(), unbound?.close(), free?.close()]);
  await server?.close();
  await site?.stop();
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

describe(`connector feeds (${DB_KIND})`, () => {
  it('list_connector_types names the three types with their limits', async () => {
    const r = await ok(a, 'list_connector_types', {});
    expect(r.types.map((t: { type: string }) => t.type)).toEqual(['rss', 'sitemap', 'folder']);
    expect(r.types.every((t: { available: boolean }) => t.available)).toBe(true);
    expect(r.interval_seconds.min).toBe(1);
    expect(r.limits.max_bytes).toBe(100_000);
  });

  it('an RSS feed is ingested into the Knowledge Hub and searchable; a second sync ingests nothing; a changed item gets a new version', async () => {
    const feed = await ok(a, 'create_connector_feed', { type: 'rss', source: `${site.url}/feed.xml`, name: 'DB blog' });
    expect(feed).toMatchObject({ type: 'rss', name: 'DB blog', status: 'idle', interval_seconds: null, sync_count: 0 });
    const first = await ok(a, 'sync_connector_feed', { feed_id: feed.feed_id });
    expect(first).toMatchObject({ items_seen: 3, ingested: 3, updated: 0, unchanged: 0, failed: 0, not_modified: false });
    await settle(server);
    const q = await ok(a, 'gc_kb_query', { query: 'how to remove dead tuples with autovacuum', limit: 3 });
    expect(q.results[0].raw_text).toMatch(/dead tuples/);
    expect(first.kb_item_ids).toContain(q.results[0].item_id);
    const item = await ok(a, 'gc_kb_get', { item_id: q.results[0].item_id });
    expect(item.metadata).toMatchObject({ connector_feed_id: feed.feed_id, connector_type: 'rss', item_key: 'post-1' });
    expect(item.content).toMatch(/^# Vacuum tuning/);
    expect(item.content).toMatch(/\*\*dead tuples\*\*/);

    // Same ETag: the server answers 304 and nothing is read.
    const second = await ok(a, 'sync_connector_feed', { feed_id: feed.feed_id });
    expect(second).toMatchObject({ ingested: 0, updated: 0, not_modified: true });
    // New ETag, same items: read again, but every content hash matches.
    (site as unknown as { bumpEtag: () => void }).bumpEtag();
    const third = await ok(a, 'sync_connector_feed', { feed_id: feed.feed_id });
    expect(third).toMatchObject({ items_seen: 3, ingested: 0, updated: 0, unchanged: 3, not_modified: false });
    // One item changes: one new version of the same Knowledge Hub item, no new item.
    ITEMS[1]!.body = '<p>Use PgBouncer in transaction mode; session mode breaks prepared statements less often.</p>';
    (site as unknown as { bumpEtag: () => void }).bumpEtag();
    const fourth = await ok(a, 'sync_connector_feed', { feed_id: feed.feed_id });
    expect(fourth).toMatchObject({ ingested: 0, updated: 1, unchanged: 2 });
    const got = await ok(a, 'get_connector_feed', { feed_id: feed.feed_id });
    expect(got).toMatchObject({ sync_count: 4, item_count: 3, status: 'idle', last_error: null });
    expect(got.items.map((i: { item_key: string }) => i.item_key).sort()).toEqual(['post-1', 'post-2', 'post-3']);
    expect(got.last_result).toMatchObject({ updated: 1 });
    // The user deleted an ingested item: its next change is ingested as a new item.
    const post3 = got.items.find((i: { item_key: string }) => i.item_key === 'post-3').kb_item_id;
    await ok(a, 'gc_kb_delete', { item_id: post3 });
    ITEMS[2]!.body = '<p>Partial indexes keep small indexes for hot subsets of rows, such as unprocessed jobs.</p>';
    (site as unknown as { bumpEtag: () => void }).bumpEtag();
    const fifth = await ok(a, 'sync_connector_feed', { feed_id: feed.feed_id });
    expect(fifth).toMatchObject({ ingested: 1, updated: 0, unchanged: 2 });
    expect(fifth.kb_item_ids[0]).not.toBe(post3);
  });

  it('Atom feeds work too', async () => {
    const feed = await ok(a, 'create_connector_feed', { type: 'rss', source: `${site.url}/atom.xml` });
    const s = await ok(a, 'sync_connector_feed', { feed_id: feed.feed_id });
    expect(s).toMatchObject({ items_seen: 1, ingested: 1 });
    const again = await ok(a, 'sync_connector_feed', { feed_id: feed.feed_id });
    expect(again).toMatchObject({ ingested: 0, unchanged: 1 });
  });

  it('a sitemap index: pages extracted and ingested, a redirect to a private address refused per page, the second sync fetches nothing', async () => {
    const feed = await ok(a, 'create_connector_feed', { type: 'sitemap', source: `${site.url}/sitemap_index.xml` });
    const first = await ok(a, 'sync_connector_feed', { feed_id: feed.feed_id });
    expect(first).toMatchObject({ items_seen: 3, ingested: 2, failed: 1 });
    expect(first.errors[0].key).toBe(`${site.url}/to-private`);
    expect(first.errors[0].error).toMatch(/fetch_refused \(address\)/);
    await settle(server);
    const q = await ok(a, 'gc_kb_query', { query: 'when to prune roses forsythia', limit: 2 });
    expect(q.results[0].raw_text).toMatch(/forsythia/);
    const hitsBefore = site.hits.filter((h) => h === '/garden' || h === '/roses').length;
    const second = await ok(a, 'sync_connector_feed', { feed_id: feed.feed_id });
    expect(second).toMatchObject({ ingested: 0, updated: 0, unchanged: 2 });
    // lastmod unchanged: the pages were not fetched again.
    expect(site.hits.filter((h) => h === '/garden' || h === '/roses').length).toBe(hitsBefore);
  });

  it('a local folder under the configured root: text, markdown and html ingested, links out of the root refused, idempotent', async () => {
    const feed = await ok(a, 'create_connector_feed', { type: 'folder', source: 'handbook' });
    const first = await ok(a, 'sync_connector_feed', { feed_id: feed.feed_id });
    expect(first).toMatchObject({ items_seen: 4, ingested: 3, failed: 1 });
    expect(first.errors).toEqual([{ key: 'leak.md', error: expect.stringMatching(/outside the connector folder root/) }]);
    await settle(server);
    const q = await ok(a, 'gc_kb_query', { query: 'when do backups run and get restored', limit: 2 });
    expect(q.results[0].raw_text).toMatch(/02:00 UTC/);
    const html = await ok(a, 'gc_kb_query', { query: 'freeze merges before deploy', limit: 1 });
    expect(html.results[0].raw_text).toMatch(/Freeze merges/);
    const second = await ok(a, 'sync_connector_feed', { feed_id: feed.feed_id });
    expect(second).toMatchObject({ ingested: 0, updated: 0, unchanged: 3 });
    const whole = await ok(a, 'create_connector_feed', { type: 'folder', source: '.', max_items: 10 });
    const w = await ok(a, 'sync_connector_feed', { feed_id: whole.feed_id });
    // The `escape` link to a directory outside is not followed into.
    expect(JSON.stringify(w)).not.toMatch(/secret/i);
  });

  it('folder paths cannot leave the root', async () => {
    for (const source of ['../', '../../etc', '/etc', outside, 'handbook/../../', 'escape', 'missing-dir']) {
      const r = await call(a, 'create_connector_feed', { type: 'folder', source });
      expect(r.isError, source).toBe(true);
      expect(['path_refused', 'folder_not_found'], `${source}: ${r.data.error}`).toContain(r.data.error);
    }
    const esc = await call(a, 'create_connector_feed', { type: 'folder', source: 'escape' });
    expect(esc.data.error).toBe('path_refused');
  });

  it('bad input: unknown types, refused or unreachable URLs, malformed feeds, wrong types, oversize feeds', async () => {
    const unknown = await call(a, 'create_connector_feed', { type: 'gopher', source: `${site.url}/feed.xml` });
    expect(unknown.data.error).toBe('unknown_connector_type');
    expect(unknown.data.detail).toMatch(/rss, sitemap, folder/);
    for (const source of ['https://10.0.0.1/feed.xml', 'https://169.254.169.254/latest', 'http://example.com/feed', 'https://127.0.0.1:9/feed', 'not a url']) {
      const r = await call(a, 'create_connector_feed', { type: 'rss', source });
      expect(r.isError, source).toBe(true);
      expect(r.data.error, source).toBe('fetch_refused');
    }
    const interval = await call(a, 'create_connector_feed', { type: 'rss', source: `${site.url}/feed.xml`, interval_seconds: 10_000_000 });
    expect(interval.isError).toBe(true);

    const syncError = async (path: string, code: string, detail?: RegExp) => {
      const feed = await ok(a, 'create_connector_feed', { type: path.includes('sitemap') ? 'sitemap' : 'rss', source: path.startsWith('http') ? path : `${site.url}${path}` });
      const r = await call(a, 'sync_connector_feed', { feed_id: feed.feed_id });
      expect(r.isError, path).toBe(true);
      expect(r.data.error, `${path}: ${JSON.stringify(r.data)}`).toBe(code);
      if (detail) expect(r.data.detail).toMatch(detail);
      const after = await ok(a, 'get_connector_feed', { feed_id: feed.feed_id });
      expect(after.status).toBe('error');
      expect(after.last_error).toMatch(code === 'fetch_refused' ? /fetch_refused/ : new RegExp(code));
    };
    await syncError('/broken.xml', 'malformed_feed');
    await syncError('/notafeed.xml', 'malformed_feed');
    await syncError('/feed.html', 'unsupported_content_type', /text\/html/);
    await syncError('/huge.xml', 'fetch_refused', /size/);
    await syncError(`http://127.0.0.1:${deadPort}/feed.xml`, 'fetch_refused', /network/);
    await syncError('/feed.xml-missing', 'fetch_refused', /404/);
    await syncError('/sitemap-broken.xml', 'fetch_refused');
    site.set('/sitemap-bad.xml', { type: 'application/xml', body: '<?xml version="1.0"?><rss></rss>' });
    await syncError('/sitemap-bad.xml', 'malformed_sitemap', /urlset/);
    const missing = await call(a, 'sync_connector_feed', { feed_id: '00000000-0000-4000-8000-000000000000' });
    expect(missing.data.error).toBe('not_found');
    const garbage = await call(a, 'get_connector_feed', { feed_id: 'nope' });
    expect(garbage.data.error).toBe('not_found');
    const badType = await call(a, 'list_connector_feeds', { type: 'gopher' });
    expect(badType.data.error).toBe('unknown_connector_type');
  });

  it('one sync at a time per feed; a feed redirecting to a private address is refused at sync', async () => {
    const feed = await ok(a, 'create_connector_feed', { type: 'rss', source: `${site.url}/atom.xml` });
    // Another process holds the feed's lease.
    expect(await claimFeed(server.app.services.db, feed.feed_id, 60_000)).not.toBeNull();
    const busy = await call(a, 'sync_connector_feed', { feed_id: feed.feed_id });
    expect(busy.isError).toBe(true);
    expect(busy.data.error).toBe('sync_in_progress');
    await finishFeed(server.app.services.db, feed.feed_id, { error: null, result: null });
    await ok(a, 'sync_connector_feed', { feed_id: feed.feed_id });

    site.set('/feed-moved.xml', { status: 302, headers: { location: 'https://192.168.0.10/feed.xml' } });
    const moved = await ok(a, 'create_connector_feed', { type: 'rss', source: `${site.url}/feed-moved.xml` });
    const r = await call(a, 'sync_connector_feed', { feed_id: moved.feed_id });
    expect(r.data.error).toBe('fetch_refused');
    expect(r.data.reason).toBe('address');
  });

  it("another user's feeds are not found; unbound keys and the free plan are refused", async () => {
    const mine = await ok(a, 'create_connector_feed', { type: 'rss', source: `${site.url}/atom.xml`, name: 'mine' });
    for (const tool of ['get_connector_feed', 'sync_connector_feed']) {
      const r = await call(other, tool, { feed_id: mine.feed_id });
      expect(r.isError, tool).toBe(true);
      expect(r.data.error, tool).toBe('not_found');
    }
    const theirs = await ok(other, 'list_connector_feeds', {});
    expect(theirs).toMatchObject({ feeds: [], total: 0 });
    const own = await ok(a, 'list_connector_feeds', { type: 'rss', limit: 200 });
    expect(own.feeds.map((f: { feed_id: string }) => f.feed_id)).toContain(mine.feed_id);
    expect(own.feeds.every((f: { type: string }) => f.type === 'rss')).toBe(true);
    for (const tool of ['create_connector_feed', 'get_connector_feed', 'list_connector_feeds', 'sync_connector_feed']) {
      const r = await call(unbound, tool, { type: 'rss', source: `${site.url}/feed.xml`, feed_id: mine.feed_id });
      expect(r.data.error, tool).toBe('no_project_selected');
    }
    for (const tool of ['list_connector_types', 'create_connector_feed', 'list_connector_feeds', 'get_connector_feed', 'sync_connector_feed']) {
      const args = tool === 'create_connector_feed' ? { type: 'rss', source: `${site.url}/feed.xml` } : tool.endsWith('_feed') ? { feed_id: mine.feed_id } : {};
      const r = await call(free, tool, args);
      expect(r.data.error, tool).toBe('plan_required');
    }
    const freeUnbound = await connectAs(server, 'free');
    expect((await call(freeUnbound, 'list_connector_types', {})).data.error).toBe('plan_required');
    await freeUnbound.close();
  });

  it('a scheduled feed syncs by itself every interval, ingesting its items once', async () => {
    site.set('/scheduled.xml', { type: 'application/rss+xml', body: rss([{ guid: 's-1', title: 'Scheduled item', body: '<p>Replication slots retain WAL until the subscriber confirms it.</p>' }]) });
    const feed = await ok(a, 'create_connector_feed', { type: 'rss', source: `${site.url}/scheduled.xml`, interval_seconds: 1 });
    expect(feed.interval_seconds).toBe(1);
    expect(feed.next_sync_at).not.toBeNull();
    let got: any;
    await waitFor(() => `a second scheduled sync (${JSON.stringify(got)})`, async () => (got = await ok(a, 'get_connector_feed', { feed_id: feed.feed_id })).sync_count >= 2, { timeoutMs: 30_000, everyMs: 100 });
    expect(got.sync_count).toBeGreaterThanOrEqual(2);
    expect(got.item_count).toBe(1);
    expect(got.last_result).toMatchObject({ ingested: 0, unchanged: 1 });
    expect(new Date(got.next_sync_at).getTime()).toBeGreaterThan(new Date(got.last_synced_at).getTime());
    await settle(server);
    const q = await ok(a, 'gc_kb_query', { query: 'replication slots retain WAL', limit: 5 });
    expect(q.results.filter((r: { raw_text: string }) => /Replication slots/.test(r.raw_text)).length).toBe(1);
  });
});

// gc_web_lookup and gc_web_search through the SDK client, against local HTTP servers the server is
// explicitly allowed to reach (WEB_ALLOWED_HOSTS); everything else on loopback or a private range is refused.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { createUser } from '../../src/domain/identity/users.js';
import type { Plan } from '../../src/auth/plans.js';
import { LocalSearchServer } from '../../src/providers/search/localServer.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND } from '../helpers/server.js';
import { startCapturingServer, type CapturingServer } from '../workflows/helpers.js';
import { articlePage, closedPort, GARDEN, LocalSite } from './site.js';

const SEARCH_KEY = 'BSAlocal-3f9c2e71d8a64b0f9e5d7c1a2b3c4d5e';
const WRONG_KEY = 'BSAwrong-0a1b2c3d4e5f60718293a4b5c6d7e8f9';

let server: CapturingServer;
let site: LocalSite;
let outsider: LocalSite;
let search: LocalSearchServer;
let pro: Client;
let free: Client;
let deadPort: number;

async function clientFor(plan: Plan): Promise<Client> {
  const db = server.app.services.db;
  const key = (await createApiKey(db, { userId: (await createUser(db, { plan })).id, plan })).key;
  return connectMcp(server.url, key);
}

beforeAll(async () => {
  site = await new LocalSite().start();
  // Loopback, but not in the allow-list: must be refused like any private address.
  outsider = await new LocalSite().start();
  outsider.set('/page', { body: articlePage('Secret', GARDEN) });
  deadPort = await closedPort();
  search = new LocalSearchServer(
    [
      { title: 'Pruning tomato suckers', url: 'https://garden.example/pruning', text: 'Remove suckers between the main stem and branches. Pruning tomato suckers improves airflow. Indeterminate tomato varieties need regular pruning.' },
      { title: 'Watering schedule', url: 'https://garden.example/water', text: 'Water deeply twice a week. Tomato plants dislike irregular watering.' },
      { title: 'Bread baking', url: 'https://bake.example/bread', text: 'Knead the dough for ten minutes. Bake bread at 230 degrees.' },
      { title: 'Compost basics', url: 'https://garden.example/compost', text: 'Compost needs greens and browns. Turn the compost pile every week.' },
    ],
    { requiredKey: SEARCH_KEY, recordKeys: true },
  );
  await search.start();
  const base = loadConfig({});
  server = await startCapturingServer({
    web: { ...base.web, allowedHosts: [site.hostPort, search.hostPort, `127.0.0.1:${deadPort}`], maxBytes: 200_000, timeoutMs: 1500, searchBaseUrl: search.url },
  });
  pro = await clientFor('pro');
  free = await clientFor('free');

  site.set('/article', { body: articlePage('Growing tomatoes', GARDEN) });
  site.set('/notes.txt', { type: 'text/plain; charset=utf-8', body: 'Plain notes.\n\nThe greenhouse door sticks in damp weather; oil the hinges every spring.' });
  site.set('/moved', { status: 301, headers: { location: '/article' } });
  site.set('/to-private', { status: 302, headers: { location: 'https://10.20.30.40/admin' } });
  site.set('/to-metadata', { status: 302, headers: { location: 'http://169.254.169.254/latest/meta-data/' } });
  site.set('/to-outsider', { status: 302, headers: { location: `https://127.0.0.1:${outsider.port}/page` } });
  site.set('/big', { body: `<html><body><p>${'x'.repeat(300_000)}</p></body></html>` });
  site.set('/big-chunked', { chunked: true, body: `<html><body><p>${'y'.repeat(300_000)}</p></body></html>` });
  site.set('/image.png', { type: 'image/png', body: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]) });
  site.set('/slow', { hang: true });
  site.set('/empty', { body: '<html><head><title></title></head><body></body></html>' });
  site.set('/gone', { status: 404, body: 'nope' });
});

afterAll(async () => {
  await Promise.allSettled([pro?.close(), free?.close()]);
  await server?.close();
  await Promise.allSettled([site?.stop(), outsider?.stop(), search?.stop()]);
});

describe(`gc_web_lookup (${DB_KIND})`, () => {
  it('extracts the main content, drops the page chrome, and returns a query-guided skeleton', async () => {
    const r = await call(pro, 'gc_web_lookup', { url: `${site.url}/article`, query: 'how do I prune suckers', include_markdown: true });
    expect(r.isError, JSON.stringify(r.data)).toBe(false);
    expect(r.data).toMatchObject({ final_url: `${site.url}/article`, title: 'Growing tomatoes', content_type: 'text/html', extraction: 'readability', selection_mode: 'query_guided' });
    expect(r.data.markdown).toMatch(/^# Growing tomatoes/);
    expect(r.data.markdown).toMatch(/## Pruning/);
    expect(r.data.markdown).not.toMatch(/navigation menu|newsletter/);
    expect(r.data.skeleton).toMatch(/suckers/);
    expect(r.data.compressed_tokens).toBeLessThan(r.data.original_tokens);
    // The query steers what is kept: a different query keeps different passages.
    const other = await call(pro, 'gc_web_lookup', { url: `${site.url}/article`, query: 'green tomatoes ripen on a windowsill', fidelity: 'outline' });
    expect(other.data.skeleton).toMatch(/## Harvest/);
    expect(other.data.skeleton).not.toBe(r.data.skeleton);
    const plain = await call(pro, 'gc_web_lookup', { url: `${site.url}/article` });
    expect(plain.data.selection_mode).toBe('baseline');
    expect(plain.data.markdown).toBeUndefined();
  });

  it('follows a redirect to an allowed page and reads text/plain as it is', async () => {
    const moved = await call(pro, 'gc_web_lookup', { url: `${site.url}/moved` });
    expect(moved.data.final_url).toBe(`${site.url}/article`);
    const txt = await call(pro, 'gc_web_lookup', { url: `${site.url}/notes.txt`, fidelity: 'raw', include_markdown: true });
    expect(txt.isError, JSON.stringify(txt.data)).toBe(false);
    expect(txt.data).toMatchObject({ content_type: 'text/plain', extraction: 'none' });
    expect(txt.data.markdown).toMatch(/oil the hinges/);
  });

  const refused = async (url: string, reason: string) => {
    const r = await call(pro, 'gc_web_lookup', { url });
    expect(r.isError, `${url}: ${JSON.stringify(r.data)}`).toBe(true);
    expect(r.data.error, url).toBe('fetch_refused');
    expect(r.data.reason, url).toBe(reason);
    expect(r.data.detail, url).toMatch(/fetch_refused/);
    return r.data.detail as string;
  };

  it('refuses loopback without the allowance, and private, link-local and metadata addresses', async () => {
    expect(await refused(`https://127.0.0.1:${outsider.port}/page`, 'address')).toMatch(/not a public address/);
    await refused(`http://127.0.0.1:${outsider.port}/page`, 'scheme');
    await refused('https://localhost/', 'address');
    for (const url of ['https://10.0.0.5/', 'https://192.168.1.1/', 'https://172.16.5.4/', 'https://169.254.169.254/latest/meta-data/', 'https://[::1]/', 'https://[fd00::1]/', 'https://[::ffff:127.0.0.1]/', 'https://100.64.0.1/']) {
      await refused(url, 'address');
    }
    await refused('ftp://example.com/file', 'scheme');
    await refused('file:///etc/passwd', 'scheme');
    await refused('https://user:pw@example.com/', 'invalid_url');
    await refused('not a url', 'invalid_url');
    expect(outsider.hits).toEqual([]);
  });

  it('re-checks every redirect: to a private address, the metadata service, or a loopback port not allowed', async () => {
    expect(await refused(`${site.url}/to-private`, 'address')).toMatch(/redirect target|10\.20\.30\.40/);
    await refused(`${site.url}/to-metadata`, 'scheme');
    await refused(`${site.url}/to-outsider`, 'address');
    expect(outsider.hits).toEqual([]);
  });

  it('refuses oversize pages (declared or streamed), wrong content types, timeouts, unreachable hosts and error statuses', async () => {
    expect(await refused(`${site.url}/big`, 'size')).toMatch(/200000 bytes/);
    await refused(`${site.url}/big-chunked`, 'size');
    const png = await call(pro, 'gc_web_lookup', { url: `${site.url}/image.png` });
    expect(png.isError).toBe(true);
    expect(png.data.error).toBe('unsupported_content_type');
    expect(png.data.detail).toMatch(/image\/png/);
    const started = Date.now();
    await refused(`${site.url}/slow`, 'timeout');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await refused(`http://127.0.0.1:${deadPort}/`, 'network')).toMatch(/unreachable/);
    await refused('https://no-such-host.invalid/', 'network');
    expect(await refused(`${site.url}/gone`, 'status')).toMatch(/404/);
    const empty = await call(pro, 'gc_web_lookup', { url: `${site.url}/empty` });
    expect(empty.data.error).toBe('empty_page');
  });

  it('a big page is extracted in the pool: the event loop keeps answering meanwhile', async () => {
    const sections = Array.from({ length: 600 }, (_, i): [string, string] => [`Bed ${i}`, `Bed ${i} grows tomatoes in loose, well-drained soil rich in compost; water it deeply at the base twice a week.`]);
    site.set('/big-article', { body: articlePage('A big garden', sections) });
    const web = server.app.services.config.web;
    const saved = web.maxBytes;
    web.maxBytes = 2_000_000;
    try {
      const started = performance.now();
      const lookup = call(pro, 'gc_web_lookup', { url: `${site.url}/big-article`, query: 'bed 517 compost', fidelity: 'abstract' });
      // /health is answered on the event loop; it must not wait for the extraction.
      const health: number[] = [];
      let done = false;
      void lookup.finally(() => (done = true));
      while (!done) {
        const t = performance.now();
        expect((await fetch(`${server.url}/health`)).status).toBe(200);
        health.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 20));
      }
      const r = await lookup;
      const total = performance.now() - started;
      expect(r.isError, JSON.stringify(r.data).slice(0, 300)).toBe(false);
      expect(r.data.fetched_bytes).toBeGreaterThan(120_000);
      expect(r.data.extraction).toBe('readability');
      expect(r.data.compressed_tokens).toBeLessThan(r.data.original_tokens / 5);
      expect(health.length).toBeGreaterThan(0);
      expect(Math.max(...health)).toBeLessThan(total / 2);
      console.log(`big page: ${r.data.fetched_bytes} bytes, ${r.data.original_tokens} -> ${r.data.compressed_tokens} tokens, lookup ${Math.round(total)} ms, /health max ${Math.round(Math.max(...health))} ms over ${health.length} probes`);
    } finally {
      web.maxBytes = saved;
    }
  });

  it('bad input and the plan gate', async () => {
    const bad = await call(pro, 'gc_web_lookup', { url: `${site.url}/article`, fidelity: 'extreme' });
    expect(bad.isError).toBe(true);
    const extra = await call(pro, 'gc_web_lookup', { url: `${site.url}/article`, depth: 3 });
    expect(extra.isError).toBe(true);
    const gated = await call(free, 'gc_web_lookup', { url: `${site.url}/article` });
    expect(gated.isError).toBe(true);
    expect(gated.data.error).toBe('plan_required');
  });
});

describe(`gc_web_search (${DB_KIND})`, () => {
  it("passes the caller's key to the provider, re-ranks the results for the query and compresses them", async () => {
    const r = await call(pro, 'gc_web_search', { query: 'pruning tomato suckers', api_key: SEARCH_KEY, count: 5 });
    expect(r.isError, JSON.stringify(r.data)).toBe(false);
    expect(search.keysSeen.has(SEARCH_KEY)).toBe(true);
    expect(r.data.provider).toBe('brave');
    expect(r.data.result_count).toBeGreaterThanOrEqual(2);
    expect(r.data.results[0]).toMatchObject({ rank: 1, title: 'Pruning tomato suckers', url: 'https://garden.example/pruning' });
    for (const res of r.data.results) {
      expect(res.snippet).not.toMatch(/<strong>/);
      expect(res.score).toBeGreaterThan(0);
    }
    expect(r.data.results.map((x: { url: string }) => x.url)).not.toContain('https://bake.example/bread');
    expect(r.data.context).toMatch(/suckers/);
    expect(JSON.stringify(r.data)).not.toContain(SEARCH_KEY);
    const none = await call(pro, 'gc_web_search', { query: 'quantum chromodynamics', api_key: SEARCH_KEY });
    expect(none.data).toMatchObject({ result_count: 0, results: [], context: '' });
  });

  it('a rejected key, a rate limit and a provider failure are clear errors that never echo the key', async () => {
    const wrong = await call(pro, 'gc_web_search', { query: 'tomato', api_key: WRONG_KEY });
    expect(wrong.isError).toBe(true);
    expect(wrong.data.error).toBe('search_key_rejected');
    expect(JSON.stringify(wrong.data)).not.toContain(WRONG_KEY);
    search.failNext(429);
    const limited = await call(pro, 'gc_web_search', { query: 'tomato', api_key: SEARCH_KEY });
    expect(limited.data.error).toBe('search_rate_limited');
    search.failNext(500);
    const down = await call(pro, 'gc_web_search', { query: 'tomato', api_key: SEARCH_KEY });
    expect(down.data.error).toBe('search_provider_error');
    const blank = await call(pro, 'gc_web_search', { query: '   ', api_key: SEARCH_KEY });
    expect(blank.isError).toBe(true);
    const gated = await call(free, 'gc_web_search', { query: 'tomato', api_key: SEARCH_KEY });
    expect(gated.data.error).toBe('plan_required');
    const missing = await call(pro, 'gc_web_search', { query: 'tomato' });
    expect(missing.isError).toBe(true);
  });

  it('the search key is in no log line and in no table', async () => {
    await server.app.services.background.drain();
    const logs = server.logs.join('\n');
    const tables = await server.app.services.db.query<{ table_name: string }>("select table_name from information_schema.tables where table_schema = 'public'");
    let dump = '';
    for (const { table_name } of tables) {
      const rows = await server.app.services.db.query<{ row: string }>(`select row_to_json(t)::text as row from "${table_name}" t`);
      dump += rows.map((r) => r.row).join('\n');
    }
    // The calls were recorded (the dump is not empty by accident).
    expect(dump).toContain('gc_web_search');
    for (const secret of [SEARCH_KEY, WRONG_KEY]) {
      expect(logs).not.toContain(secret);
      expect(dump).not.toContain(secret);
      expect(dump).not.toContain(secret.slice(8, 32));
    }
  });
});

// The web engine's pure parts (they run in the pool): extraction, feeds, sitemaps, ranking, and the
// Brave client's snippet cleaning.
import { describe, expect, it } from 'vitest';
import { extractPage, fragmentToMarkdown } from '../../workers/web/extract.js';
import { parseFeed } from '../../workers/web/feed.js';
import { rankHits } from '../../workers/web/rank.js';
import { parseSitemap } from '../../workers/web/sitemap.js';
import { webTasks } from '../../workers/web/tasks.js';
import { braveWebSearch, plainSnippet, SearchProviderError } from '../../src/providers/search/brave.js';
import { articlePage, atom, GARDEN, rss, sitemapIndex, urlset } from './site.js';

describe('extraction', () => {
  it('keeps the article, drops nav, footer and scripts, keeps code blocks and lists', () => {
    const html = articlePage('Growing tomatoes', GARDEN).replace('</article>', '<pre><code>npm install tomato</code></pre><ul><li>stake</li><li>prune</li></ul><script>alert(1)</script></article>');
    const page = extractPage(html);
    expect(page.readable).toBe(true);
    expect(page.title).toBe('Growing tomatoes');
    expect(page.lang).toBe('en');
    expect(page.markdown).toMatch(/^# Growing tomatoes\n\n## Soil/);
    expect(page.markdown).toMatch(/```\nnpm install tomato\n```/);
    expect(page.markdown).toMatch(/^-\s+stake$/m);
    expect(page.markdown).not.toMatch(/alert|newsletter|navigation menu/);
  });

  it('falls back to the whole body when there is no article', () => {
    const page = extractPage('<html><head><title>Tiny</title></head><body><p>Just one line.</p></body></html>');
    expect(page.markdown).toMatch(/Just one line\./);
    expect(page.title).toBe('Tiny');
  });

  it('hashes are stable and content-sensitive', () => {
    const [a] = webTasks.webPrepareDocuments({ docs: [{ key: 'a', kind: 'markdown', body: '# A\n\ntext' }] });
    const [b] = webTasks.webPrepareDocuments({ docs: [{ key: 'a', kind: 'markdown', body: '# A\n\ntext' }] });
    const [c] = webTasks.webPrepareDocuments({ docs: [{ key: 'a', kind: 'markdown', body: '# A\n\ntext!' }] });
    expect(a!.hash).toBe(b!.hash);
    expect(a!.hash).not.toBe(c!.hash);
    expect(a!.title).toBe('A');
    expect(fragmentToMarkdown('plain & simple')).toBe('plain & simple');
  });
});

describe('feeds and sitemaps', () => {
  it('parses RSS 2.0 and Atom items into markdown documents keyed by guid / id', async () => {
    const r = await parseFeed(rss([{ guid: 'g1', title: 'One', body: '<p>Hello <em>world</em></p>' }]));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.items[0]).toMatchObject({ key: 'g1', title: 'One', url: 'http://example.test/g1' });
    expect(r.items[0]!.text).toMatch(/^# One\n\nSource: http:\/\/example.test\/g1/);
    expect(r.items[0]!.text).toMatch(/Hello _world_/);
    const a = await parseFeed(atom([{ id: 'urn:x:1', title: 'Atom one', body: '<p>atom body</p>' }]));
    expect(a.ok && a.items[0]!.key).toBe('urn:x:1');
    expect(a.ok && a.items[0]!.text).toMatch(/atom body/);
  });

  it('reports malformed and non-feed XML instead of throwing', async () => {
    for (const xml of ['', 'hello', '<rss><channel><title>x<item></channel>', '<?xml version="1.0"?><catalog/>']) {
      const r = await parseFeed(xml);
      expect(r.ok, xml).toBe(false);
    }
  });

  it('parses urlset and sitemapindex, and refuses other roots', () => {
    const u = parseSitemap(urlset([{ loc: 'https://a.example/1', lastmod: '2026-01-01' }, { loc: 'https://a.example/2' }]));
    expect(u).toEqual({ ok: true, kind: 'urlset', entries: [{ loc: 'https://a.example/1', lastmod: '2026-01-01' }, { loc: 'https://a.example/2', lastmod: null }] });
    const i = parseSitemap(sitemapIndex(['https://a.example/s1.xml']));
    expect(i).toEqual({ ok: true, kind: 'sitemapindex', entries: [{ loc: 'https://a.example/s1.xml', lastmod: null }] });
    expect(parseSitemap('<html><body/></html>').ok).toBe(false);
    expect(parseSitemap('not xml').ok).toBe(false);
  });
});

describe('search', () => {
  it('ranks results carrying the query terms above the provider order alone', () => {
    const ranked = rankHits('compost pile', [
      { title: 'Bread', url: 'u1', snippet: 'Bake at 230 degrees.' },
      { title: 'Garden', url: 'u2', snippet: 'Turn the compost pile weekly; a compost pile needs air.' },
    ]);
    expect(ranked.map((r) => r.url)).toEqual(['u2', 'u1']);
    expect(ranked[0]!.provider_rank).toBe(2);
    expect(ranked[1]!.lexical_score).toBe(0);
  });

  it('cleans Brave snippets and maps provider statuses without the key', async () => {
    expect(plainSnippet('Turn the <strong>compost</strong> &amp; water &#39;often&#39;')).toBe("Turn the compost & water 'often'");
    const key = 'secret-key-123';
    let seen: Record<string, string> = {};
    const ok = await braveWebSearch(async (_url, headers) => {
      seen = headers;
      return { status: 200, body: JSON.stringify({ web: { results: [{ title: 'T', url: 'https://x.example', description: '<strong>d</strong>', extra_snippets: ['e'] }, { bogus: true }] } }) };
    }, 'https://api.example', key, 'q', 50);
    expect(seen['x-subscription-token']).toBe(key);
    expect(ok).toEqual([{ title: 'T', url: 'https://x.example', snippet: 'd … e', age: null }]);
    for (const [status, code] of [[401, 'search_key_rejected'], [429, 'search_rate_limited'], [502, 'search_provider_error']] as const) {
      const err = await braveWebSearch(async () => ({ status, body: key }), 'https://api.example', key, 'q', 5).catch((e) => e);
      expect(err).toBeInstanceOf(SearchProviderError);
      expect(err.code).toBe(code);
      expect(err.message).not.toContain(key);
    }
    const bad = await braveWebSearch(async () => ({ status: 200, body: 'not json' }), 'https://api.example', key, 'q', 5).catch((e) => e);
    expect(bad.code).toBe('search_bad_response');
  });
});

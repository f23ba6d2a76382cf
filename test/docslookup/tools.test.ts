// gc_lookup, gc_search_docs, gc_read_doc and gc_docs_coverage through the official SDK client.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/lib/root.js';
import { connectMcp, ok, fails } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { newKey } from '../helpers/users.js';

let server: TestServer;
let freeKey: string;
let free: Client;
let freeAgain: Client;
let other: Client;
let pro: Client;

const pinned = (JSON.parse(readFileSync(join(packageRoot(), 'scripts', 'docslookup', 'frameworks.json'), 'utf8')) as {
  frameworks: { id: string; package: string; version: string; url: string }[];
}).frameworks;

beforeAll(async () => {
  server = await startTestServer({ rateLimits: { free: 1e9, pro: 1e9, team: 1e9, enterprise: 1e9 } });
  freeKey = await newKey(server, 'free');
  free = await connectMcp(server.url, freeKey);
  freeAgain = await connectMcp(server.url, freeKey);
  other = await connectMcp(server.url, await newKey(server, 'free'));
  pro = await connectMcp(server.url, await newKey(server, 'pro'));
});
afterAll(async () => {
  await Promise.allSettled([free, freeAgain, other, pro].map((c) => c?.close()));
  await server?.close();
});

describe(`documentation lookup (${DB_KIND})`, () => {
  it('gc_lookup ranks chunks of the named framework, with official URLs at the pinned tag', async () => {
    const data = await ok(free, 'gc_lookup', { query: 'How do I set a default value for an option in commander?', dedup: false });
    expect(data.count).toBe(5);
    expect(data.dedup).toBe(false);
    const commander = pinned.find((f) => f.id === 'commander')!;
    for (const r of data.results) {
      expect(r).toMatchObject({ framework: 'commander', version: commander.version });
      expect(r.url.startsWith(commander.url)).toBe(true);
      expect(r.content.length).toBeGreaterThan(20);
      expect(r.tokens).toBeGreaterThan(0);
    }
    const scores = data.results.map((r: { score: number }) => r.score);
    expect(scores).toEqual([...scores].sort((x, y) => y - x));
    const top3 = data.results.slice(0, 3).map((r: { title: string }) => r.title);
    expect(top3.some((t: string) => t.includes('Default option value'))).toBe(true);
    const hit = data.results.find((r: { title: string }) => r.title.includes('Default option value'));
    expect(hit.url).toBe(`${commander.url}Readme.md#default-option-value`);
  });

  it('gc_lookup keeps to the frameworks asked for', async () => {
    const data = await ok(free, 'gc_lookup', { query: 'connection pool size and timeouts', frameworks: ['postgres', 'undici'], limit: 8, dedup: false });
    expect(data.count).toBe(8);
    for (const r of data.results) expect(['postgres', 'undici']).toContain(r.framework);
    const one = await ok(free, 'gc_lookup', { query: 'connection pool size and timeouts', frameworks: ['ioredis'], dedup: false });
    expect(new Set(one.results.map((r: { framework: string }) => r.framework))).toEqual(new Set(['ioredis']));
  });

  it('gc_lookup deduplicates chunks within an MCP session by default, not across sessions or users', async () => {
    const q = { query: 'How do I redact sensitive fields like passwords from pino logs?', limit: 4 };
    const first = await ok(free, 'gc_lookup', q);
    expect(first.dedup).toBe(true);
    expect(first.count).toBe(4);
    const ids1 = first.results.map((r: { chunk_id: string }) => r.chunk_id);
    const second = await ok(free, 'gc_lookup', q);
    const ids2 = second.results.map((r: { chunk_id: string }) => r.chunk_id);
    expect(second.count).toBe(4);
    expect(ids2.filter((id: string) => ids1.includes(id))).toEqual([]);
    expect(second.withheld).toBe(4);
    // dedup=false repeats what the session has seen, in the same order as a fresh session gets it.
    const again = await ok(free, 'gc_lookup', { ...q, dedup: false });
    expect(again.results.map((r: { chunk_id: string }) => r.chunk_id)).toEqual(ids1);
    // Another session of the same key, and another user, start with nothing seen.
    for (const client of [freeAgain, other]) {
      const fresh = await ok(client, 'gc_lookup', q);
      expect(fresh.results.map((r: { chunk_id: string }) => r.chunk_id)).toEqual(ids1);
      expect(fresh.withheld).toBe(0);
    }
  });

  it('gc_search_docs returns title, snippet, url and score; gc_read_doc opens a result', async () => {
    const data = await ok(free, 'gc_search_docs', { query: 'fastify preHandler hook', limit: 6 });
    expect(data.count).toBe(6);
    for (const r of data.results) {
      expect(typeof r.title).toBe('string');
      expect(r.snippet.length).toBeGreaterThan(0);
      expect(r.snippet.length).toBeLessThanOrEqual(240);
      expect(r.url).toMatch(/^https:\/\/github\.com\/fastify\/fastify\/blob\/v5\.6\.2\//);
      expect(r.score).toBeGreaterThan(0);
      expect(r.score).toBeLessThanOrEqual(1);
    }
    const top = data.results[0];
    expect(top.doc_id).toBe('fastify/docs/Reference/Hooks');
    const page = await ok(free, 'gc_read_doc', { doc_id: top.doc_id });
    expect(page.source_url).toBe(top.url.replace(/#.*$/, ''));
    expect(page.markdown).toContain('preHandler');
    expect(page.length_tokens).toBeGreaterThan(1000);
    const byUrl = await ok(free, 'gc_read_doc', { url: top.url });
    expect(byUrl.doc_id).toBe(top.doc_id);
    expect(byUrl.markdown).toBe(page.markdown);
  });

  it('bad input gets clear errors', async () => {
    expect(JSON.stringify(await fails(free, 'gc_lookup', { query: '' }))).toMatch(/query/);
    const blank = await fails(free, 'gc_lookup', { query: '   \n ' });
    expect(blank.detail).toMatch(/query is empty/);
    const unknown = await fails(free, 'gc_lookup', { query: 'routing', frameworks: ['django'] });
    expect(unknown.detail).toMatch(/Unknown framework 'django'.*fastify/);
    expect((await fails(free, 'gc_search_docs', { query: 'routing', frameworks: ['fastify', 'rails'] })).detail).toMatch(/'rails'/);
    expect((await fails(free, 'gc_search_docs', { query: ' ' })).detail).toMatch(/query is empty/);
    const missing = await fails(free, 'gc_read_doc', { doc_id: 'fastify/docs/Reference/Nope' });
    expect(missing.error).toBe('not_found');
    expect(missing.detail).toMatch(/Unknown doc_id 'fastify\/docs\/Reference\/Nope'/);
    expect((await fails(free, 'gc_read_doc', { url: 'https://example.com/x.md' })).error).toBe('not_found');
    expect((await fails(free, 'gc_read_doc', {})).detail).toMatch(/exactly one of doc_id or url/);
    expect((await fails(free, 'gc_read_doc', { doc_id: 'pino/README', url: 'https://github.com/pinojs/pino/blob/v10.1.0/README.md' })).detail).toMatch(/exactly one/);
    await fails(free, 'gc_lookup', { query: 'x', limit: 0 });
    await fails(free, 'gc_lookup', { query: 'x', extra: true });
  });

  it('gc_docs_coverage (pro) lists the nine frameworks at their pinned versions; free is refused', async () => {
    expect((await fails(free, 'gc_docs_coverage', {})).error).toBe('plan_required');
    const cov = await ok(pro, 'gc_docs_coverage', {});
    expect(cov.frameworks.map((f: { id: string; version: string }) => `${f.id}@${f.version}`)).toEqual(pinned.map((f) => `${f.id}@${f.version}`));
    expect(cov.totals.frameworks).toBe(9);
    expect(cov.totals.pages).toBe(cov.frameworks.reduce((s: number, f: { pages: number }) => s + f.pages, 0));
    expect(cov.totals.chunks).toBe(cov.frameworks.reduce((s: number, f: { chunks: number }) => s + f.chunks, 0));
    for (const f of cov.frameworks) {
      expect(f.pages).toBe(f.docs.length);
      expect(f.chunks).toBeGreaterThanOrEqual(f.pages);
    }
    expect(cov.embedding_model).toMatch(/glove-sif-100d/);
  });

  it('calls are recorded with method mcp_advisory', async () => {
    await server.app.services.background.drain();
    const res = await server.request('GET', '/v1/usage/events?page_size=100', { key: freeKey });
    expect(res.status).toBe(200);
    const events = res.json.items as { tool_name: string | null; method: string }[];
    const mine = events.filter((e) => ['gc_lookup', 'gc_search_docs', 'gc_read_doc'].includes(e.tool_name ?? ''));
    expect(new Set(mine.map((e) => e.tool_name))).toEqual(new Set(['gc_lookup', 'gc_search_docs', 'gc_read_doc']));
    expect(new Set(mine.map((e) => e.method))).toEqual(new Set(['mcp_advisory']));
  });
});

// list_tee_entries and tee_store_stats: the store of originals that get_original_output reads
// (kept when a compression removes more than 80% of the tokens), owner-scoped, over the MCP SDK client.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connectMcp } from '../helpers/mcp.js';
import { connectAs, newKey } from '../helpers/users.js';
import { DB_KIND, sampleDocument, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let key: string;
let owner: Client;
let other: Client;
let free: Client;
const originals: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
  key = await newKey(server, 'pro');
  owner = await connectMcp(server.url, key);
  other = await connectAs(server, 'pro');
  free = await connectAs(server, 'free');
  for (let i = 0; i < 3; i++) {
    const res = await server.request('POST', '/v1/compress', { key, body: { text: `${sampleDocument()} Copy ${i}.`, fidelity: 'abstract' } });
    expect(res.json.savings_percent).toBeGreaterThan(80);
    originals.push(res.json.original_id);
  }
  // A light compression keeps no original.
  await server.request('POST', '/v1/compress', { key, body: { text: sampleDocument(), fidelity: 'detailed' } });
});
afterAll(async () => {
  for (const c of [owner, other, free]) await c?.close();
  await server?.close();
});

describe(`store of originals (${DB_KIND})`, () => {
  it('lists the preserved originals newest first with previews, paged; each opens with get_original_output', async () => {
    const first = (await call(owner, 'list_tee_entries', { page_size: 2, preview_chars: 40 })).data;
    expect(first.total).toBe(3);
    expect(first.entries.map((e: any) => e.original_id)).toEqual([originals[2], originals[1]]);
    expect(first.entries[0].preview).toBe(sampleDocument().slice(0, 40));
    const second = (await call(owner, 'list_tee_entries', { page: 2, page_size: 2 })).data;
    expect(second.entries.map((e: any) => e.original_id)).toEqual([originals[0]]);
    expect((await call(owner, 'list_tee_entries', { page: 9 })).data).toMatchObject({ entries: [], total: 3 });
    const opened = (await call(owner, 'get_original_output', { original_id: first.entries[0].original_id })).data;
    expect(opened.content_tokens).toBe(first.entries[0].content_tokens);
    expect(opened.content.length).toBe(first.entries[0].chars);
  });

  it('stats count what the list holds; another user sees an empty store', async () => {
    const stats = (await call(owner, 'tee_store_stats', {})).data;
    const listed = (await call(owner, 'list_tee_entries', { page_size: 100 })).data.entries;
    expect(stats.entries).toBe(3);
    expect(stats.content_tokens).toBe(listed.reduce((s: number, e: any) => s + e.content_tokens, 0));
    expect(stats.bytes).toBeGreaterThanOrEqual(listed.reduce((s: number, e: any) => s + e.chars, 0));
    expect(stats.preserve_above_savings_percent).toBe(80);
    expect(Date.parse(stats.newest)).toBeGreaterThanOrEqual(Date.parse(stats.oldest));
    expect((await call(other, 'tee_store_stats', {})).data).toMatchObject({ entries: 0, content_tokens: 0, bytes: 0, oldest: null, newest: null });
    expect((await call(other, 'list_tee_entries', {})).data).toMatchObject({ entries: [], total: 0 });
  });

  it('bad arguments are validation errors; a Free key gets plan_required', async () => {
    expect((await call(owner, 'list_tee_entries', { page: 0 })).data.error).toBe('validation_error');
    expect((await call(owner, 'list_tee_entries', { page_size: 1000 })).data.error).toBe('validation_error');
    expect((await call(owner, 'tee_store_stats', { extra: 1 })).data.error).toBe('validation_error');
    expect((await call(free, 'tee_store_stats', {})).data.error).toBe('plan_required');
  });
});

// Issue 45's smaller defects, each through the surface a user meets it on (the MCP SDK client, or the
// REST route beside it): a meta-token round trip, gc_pre_flight's reason, what monthly_compressions
// counts, stemming in search_memory, the savings report's per-model percentages, and the preferences
// summarize_user_memory lists.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connectMcp, ok } from '../helpers/mcp.js';
import { DB_KIND, sampleDocument, startTestServer, type TestServer } from '../helpers/server.js';
import { newKey } from '../helpers/users.js';
import { makeTenant } from '../kb/helpers.js';

const FIDELITIES = ['abstract', 'outline', 'balanced', 'detailed', 'raw'];

let server: TestServer;
let pro: Client;
let proKey: string;
let memory: Client;

beforeAll(async () => {
  server = await startTestServer({ rateLimits: { free: 1e9, pro: 1e9, team: 1e9, enterprise: 1e9 } });
  proKey = await newKey(server, 'pro');
  pro = await connectMcp(server.url, proKey);
  memory = await connectMcp(server.url, (await makeTenant(server, 'pro')).keyA);
});

afterAll(async () => {
  await Promise.allSettled([pro?.close(), memory?.close()]);
  await server?.close();
});

describe(`issue 45: smaller defects (${DB_KIND})`, () => {
  it('compress_meta_tokens: what compress returns (format and escape included) decompresses back to the input', async () => {
    const text = `${'The quick brown fox jumps over the lazy dog. '.repeat(20)}Private-use \uE000 and \uE123 stay literal.`;
    const packed = await ok(pro, 'compress_meta_tokens', { text });
    expect(packed.escape).toBe('\uE000');
    const { format, escape, encoded, dictionary } = packed;
    const back = await ok(pro, 'compress_meta_tokens', { mode: 'decompress', format, escape, encoded, dictionary });
    expect(back.text).toBe(text);
    // A different escape or format is not this codec's output: refused with the field named.
    const wrong = await call(pro, 'compress_meta_tokens', { mode: 'decompress', format, escape: '\\', encoded, dictionary });
    expect(wrong.isError).toBe(true);
    expect(JSON.stringify(wrong.data)).toMatch(/escape/);
  });

  it('gc_pre_flight: the reason names the fidelity it recommends, for a short and a long text', async () => {
    const short = await ok(pro, 'gc_pre_flight', { text: 'Fix the typo in the README heading.' });
    expect(short.verdict).toBe('send_as_is');
    expect(short.recommended_fidelity).toBe('raw');
    expect(short.reason).toMatch(/\braw\b/);
    for (const other of FIDELITIES.filter((f) => f !== 'raw')) expect(short.reason, other).not.toMatch(new RegExp(`\\b${other}\\b`));

    const long = await ok(pro, 'gc_pre_flight', { tokens: 5000 });
    expect(long.verdict).not.toBe('send_as_is');
    expect(long.reason).toContain(long.recommended_fidelity);
  });

  it('monthly_compressions counts successful compressions only, not failed calls', async () => {
    const key = await newKey(server, 'pro');
    const client = await connectMcp(server.url, key);
    try {
      const doc = sampleDocument();
      for (let i = 0; i < 2; i++) expect((await server.request('POST', '/v1/compress', { key, body: { text: `${doc} ${i}`, fidelity: 'balanced' } })).status).toBe(200);
      // Failed calls: a bad fidelity over REST, and a tool error over MCP (decompressing garbage).
      expect((await server.request('POST', '/v1/compress', { key, body: { text: doc, fidelity: 'tiny' } })).status).toBe(400);
      const bad = await call(client, 'compress_meta_tokens', { mode: 'decompress', encoded: '\uE000', dictionary: {} });
      expect(bad.isError).toBe(true);
      await server.app.services.background.drain();
      const events = (await server.request('GET', '/v1/usage/events?page_size=100', { key })).json;
      const failed = (events.events ?? events.items ?? events.data ?? []).filter((e: { status: string }) => e.status !== 'success');
      expect(failed.length, JSON.stringify(events).slice(0, 400)).toBeGreaterThanOrEqual(1);
      const usage = (await server.request('GET', '/v1/usage', { key })).json;
      expect(usage.monthly_compressions).toBe(2);
      const today = (await server.request('GET', '/v1/usage/history?days=1', { key })).json.data;
      expect(today.at(-1).compressions).toBe(2);
    } finally {
      await client.close();
    }
  });

  it('search_memory stems index and query alike: "preference" finds "prefers", "preferred" finds "preferences"', async () => {
    const m = await ok(memory, 'add_memory', { content: 'Dana prefers dark mode in every editor.' });
    const train = await ok(memory, 'add_memory', { content: 'The release train leaves every second Thursday.' });
    const n = await ok(memory, 'add_memory', { content: 'Notification preferences: email digests only, never push.' });
    const a = await ok(memory, 'search_memory', { query: 'preference', mode: 'bm25', limit: 5 });
    expect(a.results.map((r: { memory_id: string }) => r.memory_id)).toContain(m.memory_id);
    const b = await ok(memory, 'search_memory', { query: 'preferred', mode: 'bm25', limit: 5 });
    expect(b.results.map((r: { memory_id: string }) => r.memory_id)).toEqual(expect.arrayContaining([m.memory_id, n.memory_id]));
    // A memory without the word's stem is not a lexical match.
    expect(a.results.map((r: { memory_id: string }) => r.memory_id)).not.toContain(train.memory_id);
  });

  it('get_savings_report: a model\'s savings percent is tokens saved over tokens sent, like the totals', async () => {
    const key = await newKey(server, 'pro');
    const client = await connectMcp(server.url, key);
    try {
      const doc = sampleDocument();
      expect((await server.request('POST', '/v1/compress', { key, body: { text: doc, fidelity: 'abstract', model: 'gpt-4o' } })).status).toBe(200);
      // Many short calls that save nothing: they must weigh by their tokens, not one vote each.
      for (let i = 0; i < 6; i++) expect((await server.request('POST', '/v1/compress', { key, body: { text: `Ship it ${i}.`, fidelity: 'detailed', model: 'gpt-4o' } })).status).toBe(200);
      await server.app.services.background.drain();
      const r = await ok(client, 'get_savings_report', { days: 7 });
      expect(r.totals.calls).toBe(7);
      expect(r.totals.savings_percent).toBeGreaterThan(20);
      const gpt = r.by_model.find((m: { model: string }) => m.model === 'gpt-4o');
      expect(gpt.compressions).toBe(7);
      expect(gpt.avg_savings_percent).toBeCloseTo(r.totals.savings_percent, 0);
      expect(gpt.avg_savings_percent).toBeCloseTo((100 * gpt.tokens_saved) / gpt.original_tokens, 0);
      for (const f of r.by_fidelity) expect(f.avg_savings_percent, f.fidelity).toBeCloseTo(f.original_tokens ? (100 * f.tokens_saved) / f.original_tokens : 0, 0);
    } finally {
      await client.close();
    }
  });

  it('summarize_user_memory lists every current preference by_kind counts, keyed or not', async () => {
    const t = await makeTenant(server, 'pro');
    const client = await connectMcp(server.url, t.keyA);
    try {
      const plain = await ok(client, 'add_memory', { kind: 'preference', content: 'Prefers answers in British English.' });
      await ok(client, 'add_memory', { kind: 'preference', key: 'editor', content: 'vim' });
      await ok(client, 'add_memory', { kind: 'preference', key: 'editor', content: 'helix' }); // supersedes vim
      await ok(client, 'add_memory', { kind: 'fact', content: 'The office is in Leeds.' });
      const s = await ok(client, 'summarize_user_memory', {});
      expect(s.by_kind.preference).toBe(3);
      const values = s.preferences.map((p: { value: string }) => p.value);
      expect(values).toEqual(expect.arrayContaining(['Prefers answers in British English.', 'helix']));
      expect(values).not.toContain('vim');
      expect(s.preferences.find((p: { memory_id: string }) => p.memory_id === plain.memory_id)).toMatchObject({ key: null, kind: 'preference', current: true });
      expect(s.facts.map((f: { value: string }) => f.value)).toContain('The office is in Leeds.');
      expect(s.summary).toMatch(/British English/);
      expect(s.summary).toMatch(/editor = helix/);
    } finally {
      await client.close();
    }
  });
});

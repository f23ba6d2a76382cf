import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connectMcp, ok } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { makeTenant } from '../kb/helpers.js';

let server: TestServer;
let t: Awaited<ReturnType<typeof makeTenant>>;
let other: Awaited<ReturnType<typeof makeTenant>>;
let a: Client;
let a2: Client;
let unbound: Client;
let stranger: Client;

beforeAll(async () => {
  server = await startTestServer({ rateLimits: { free: 1e9, pro: 1e9, team: 1e9, enterprise: 1e9 } });
  t = await makeTenant(server);
  other = await makeTenant(server);
  a = await connectMcp(server.url, t.keyA);
  a2 = await connectMcp(server.url, t.keyB);
  unbound = await connectMcp(server.url, t.unbound);
  stranger = await connectMcp(server.url, other.keyA);
});
afterAll(async () => {
  await Promise.allSettled([a?.close(), a2?.close(), unbound?.close(), stranger?.close()]);
  await server?.close();
});

describe(`memory tools (${DB_KIND})`, () => {
  it('add, list, search (hybrid, bm25, dense), index, delete', async () => {
    const m1 = await ok(a, 'add_memory', { content: 'The staging database runs PostgreSQL 16 behind PgBouncer in transaction mode.', tags: ['infra'] });
    expect(m1).toMatchObject({ kind: 'note', tags: ['infra'], fact_id: null });
    expect(m1.tokens).toBeGreaterThan(5);
    expect(m1.session_id).toBeTruthy(); // this MCP session
    const m2 = await ok(a, 'add_memory', { content: 'Deploys happen on Tuesdays after the change advisory board meets.', kind: 'event', title: 'Deploy day' });
    await ok(a, 'add_memory', { content: 'The mobile app is written in Kotlin and Swift, with a shared GraphQL client.' });

    const list = await ok(a, 'list_memories', { limit: 2 });
    expect(list.total).toBe(3);
    expect(list.memories).toHaveLength(2);
    expect(list.next_cursor).toBeTruthy();
    const rest = await ok(a, 'list_memories', { limit: 2, cursor: list.next_cursor });
    expect(rest.memories).toHaveLength(1);
    expect(rest.next_cursor).toBeNull();
    // The second key bound to the same project sees the same scope.
    expect((await ok(a2, 'list_memories')).total).toBe(3);

    for (const mode of ['hybrid', 'bm25', 'dense']) {
      const s = await ok(a, 'search_memory', { query: 'which connection pooler does the database use', mode, limit: 3 });
      expect(s.results[0].memory_id, mode).toBe(m1.memory_id);
    }
    const filtered = await ok(a, 'search_memory', { query: 'deploy', kind: 'event' });
    expect(filtered.results.map((r: { memory_id: string }) => r.memory_id)).toEqual([m2.memory_id]);

    const idx = await ok(a, 'search_memory_index', { query: 'Tuesday deploys' });
    expect(idx.entries[0]).toMatchObject({ memory_id: m2.memory_id, title: 'Deploy day' });
    expect(idx.entries[0].content).toBeUndefined();
    const recent = await ok(a, 'search_memory_index', {});
    expect(recent.entries).toHaveLength(3);

    const del = await ok(a, 'delete_memory', { memory_id: m2.memory_id });
    expect(del).toEqual({ memory_id: m2.memory_id, deleted: true });
    const again = await call(a, 'delete_memory', { memory_id: m2.memory_id });
    expect(again.data.error).toBe('not_found');
    const after = await ok(a, 'search_memory', { query: 'Tuesday deploys change advisory board' });
    expect(after.results.some((r: { memory_id: string }) => r.memory_id === m2.memory_id)).toBe(false);
  });

  it('facts: a new value supersedes, invalidate keeps history, profile shows what holds now', async () => {
    const e1 = await ok(a, 'add_memory', { content: 'I use Vim for editing', kind: 'preference', key: 'Editor', value: 'vim' });
    expect(e1.fact_id).toBeTruthy();
    const e2 = await ok(a, 'add_memory', { content: 'Switched to Helix as my editor', kind: 'preference', key: 'editor', value: 'helix' });
    expect(e2.superseded_fact_id).toBe(e1.fact_id);
    const tz = await ok(a, 'add_memory', { content: 'The team works in Europe/Berlin time', kind: 'fact', key: 'timezone', value: 'Europe/Berlin' });

    const hist = await ok(a, 'list_fact_history', { key: 'editor' });
    expect(hist.facts.map((f: { value: string }) => f.value)).toEqual(['vim', 'helix']);
    expect(hist.facts[0]).toMatchObject({ superseded_by: e2.fact_id, current: false });
    expect(hist.facts[0].valid_to).toBeTruthy();
    expect(hist.facts[1]).toMatchObject({ valid_to: null, current: true });

    const profile = await ok(a, 'get_user_profile');
    expect(profile.preferences.map((p: { key: string; value: string }) => [p.key, p.value])).toEqual([['editor', 'helix']]);
    expect(profile.facts.map((p: { value: string }) => p.value)).toEqual(['Europe/Berlin']);

    const inv = await ok(a, 'invalidate_fact', { fact_id: tz.fact_id, reason: 'moved to Lisbon' });
    expect(inv).toMatchObject({ fact_id: tz.fact_id, invalidation_reason: 'moved to Lisbon', current: false });
    expect(inv.invalidated_at).toBeTruthy();
    expect(inv.valid_to).toBeTruthy();
    const twice = await call(a, 'invalidate_fact', { fact_id: tz.fact_id });
    expect(twice.data.error).toBe('already_invalidated');
    // Never deleted: still in the history, by fact_id too.
    const byId = await ok(a, 'list_fact_history', { fact_id: tz.fact_id });
    expect(byId.facts).toHaveLength(1);
    expect(byId.facts[0].invalidated_at).toBeTruthy();
    expect((await ok(a, 'get_user_profile')).facts).toEqual([]);

    const sum = await ok(a, 'summarize_user_memory');
    expect(sum.summary).toMatch(/editor = helix/);
    expect(sum.tokens).toBeGreaterThan(0);
    expect(sum.by_kind.preference).toBe(2);
  });

  it('get_context_block stays within the budget, facts first, with Knowledge Hub chunks', async () => {
    await ok(a, 'gc_kb_ingest', { name: 'Runbook', content: '# Runbook\n\n## Rollback\n\nTo roll back a deploy, redeploy the previous image tag and run the down migration.' });
    await server.app.services.knowledge.idle();
    await ok(a, 'add_memory', { content: 'Rollbacks last failed because the down migration was missing.', tags: ['deploy'] });
    const block = await ok(a, 'get_context_block', { query: 'how do I roll back a deploy', budget_tokens: 400 });
    expect(block.tokens).toBeLessThanOrEqual(400);
    expect(block.block).toMatch(/^## Known facts\n- editor: helix/);
    expect(block.block).toMatch(/## Memories[\s\S]*down migration was missing/);
    expect(block.block).toMatch(/## Knowledge[\s\S]*previous image tag/);
    expect(block.items.map((i: { source: string }) => i.source)).toEqual(expect.arrayContaining(['fact', 'memory', 'knowledge']));
    for (const budget of [1, 10, 30, 60]) {
      const small = await ok(a, 'get_context_block', { query: 'roll back', budget_tokens: budget });
      expect(small.tokens, String(budget)).toBeLessThanOrEqual(budget);
    }
    const bad = await call(a, 'get_context_block', { budget_tokens: 0 });
    expect(bad.data.error).toBe('validation_error');
    const neg = await call(a, 'get_context_block', { budget_tokens: -5 });
    expect(neg.data.error).toBe('validation_error');
  });

  it('recover_session restores a session from a new MCP session', async () => {
    const first = await connectMcp(server.url, t.keyA);
    const m = await ok(first, 'add_memory', { content: 'Working on the billing export; next step is the CSV header order.' });
    await ok(first, 'add_memory', { content: 'Billing exports go to the finance bucket', kind: 'fact', key: 'billing.export.target', value: 'finance bucket' });
    await first.close();
    const second = await connectMcp(server.url, t.keyA);
    try {
      const r = await ok(second, 'recover_session', { session_id: m.session_id });
      expect(r.memory_count).toBe(2);
      expect(r.context).toMatch(/CSV header order/);
      expect(r.context).toMatch(/billing\.export\.target: finance bucket/);
      expect(r.facts).toHaveLength(1);
      const unknown = await call(second, 'recover_session', { session_id: 'no-such-session' });
      expect(unknown.data.error).toBe('not_found');
    } finally {
      await second.close();
    }
  });

  it("another user's and another scope's memories and facts are invisible", async () => {
    const mine = await ok(a, 'add_memory', { content: 'Secret plan: the launch codename is Bluebird.', kind: 'fact', key: 'codename', value: 'Bluebird' });
    const s = await ok(stranger, 'search_memory', { query: 'launch codename Bluebird' });
    expect(s.results).toEqual([]);
    expect((await ok(stranger, 'list_memories')).total).toBe(0);
    expect((await ok(stranger, 'get_user_profile')).facts).toEqual([]);
    expect((await ok(stranger, 'get_context_block', { query: 'codename', budget_tokens: 500 })).block).not.toMatch(/Bluebird/);
    for (const [tool, args] of [
      ['delete_memory', { memory_id: mine.memory_id }],
      ['invalidate_fact', { fact_id: mine.fact_id }],
      ['list_fact_history', { fact_id: mine.fact_id }],
      ['recover_session', { session_id: mine.session_id }],
    ] as const) {
      const r = await call(stranger, tool, args);
      expect(r.data.error, tool).toBe('not_found');
    }
    // The same user's unbound key is another scope (the user's own).
    expect((await ok(unbound, 'search_memory', { query: 'launch codename Bluebird' })).results).toEqual([]);
    expect((await call(unbound, 'delete_memory', { memory_id: mine.memory_id })).data.error).toBe('not_found');
    const still = await ok(a, 'search_memory', { query: 'launch codename Bluebird' });
    expect(still.results[0].memory_id).toBe(mine.memory_id);
  });

  it('bad input answers clear errors', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['add_memory', { content: 'x'.repeat(20_001) }, 'validation_error'],
      ['add_memory', { content: '' }, 'validation_error'],
      ['add_memory', { content: 'a', key: 'k' }, 'validation_error'],
      ['delete_memory', { memory_id: 'not-a-uuid' }, 'validation_error'],
      ['delete_memory', { memory_id: '00000000-0000-4000-8000-000000000000' }, 'not_found'],
      ['invalidate_fact', { fact_id: '00000000-0000-4000-8000-000000000000' }, 'not_found'],
      ['list_memories', { cursor: '!!!' }, 'validation_error'],
      ['search_memory', { query: '' }, 'validation_error'],
      ['search_memory', { query: 'x', limit: 0 }, 'validation_error'],
    ];
    for (const [tool, args, error] of cases) {
      const r = await call(a, tool, args);
      expect(r.isError, tool).toBe(true);
      expect(r.data.error, `${tool} ${JSON.stringify(args).slice(0, 60)}`).toBe(error);
    }
  });
});

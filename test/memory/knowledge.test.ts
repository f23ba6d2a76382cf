import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connectMcp, ok } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { DOCS, makeTenant, settle } from '../kb/helpers.js';

let server: TestServer;
let a: Client;
let unbound: Client;
let stranger: Client;

beforeAll(async () => {
  server = await startTestServer({ rateLimits: { free: 1e9, pro: 1e9, team: 1e9, enterprise: 1e9 } });
  const t = await makeTenant(server);
  a = await connectMcp(server.url, t.keyA);
  unbound = await connectMcp(server.url, t.unbound);
  stranger = await connectMcp(server.url, (await makeTenant(server)).keyA);
});
afterAll(async () => {
  await Promise.allSettled([a?.close(), unbound?.close(), stranger?.close()]);
  await server?.close();
});

describe(`compiled knowledge (${DB_KIND})`, () => {
  it('compile, read the index, see it go stale, lint', async () => {
    expect((await call(a, 'get_knowledge_index')).data.error).toBe('not_found');
    const pg = await ok(a, 'gc_kb_ingest', { name: 'PostgreSQL tuning', content: DOCS.postgres });
    const garden = await ok(a, 'gc_kb_ingest', { name: 'Tomatoes', content: DOCS.gardening });
    const copy = await ok(a, 'gc_kb_ingest', { name: 'Tuning notes (copy)', content: DOCS.postgres });
    await ok(a, 'gc_kb_ingest', { name: 'Empty one' });
    await settle(server);

    const compiled = await ok(a, 'compile_knowledge');
    expect(compiled.item_count).toBe(4);
    const byId = new Map(compiled.items.map((i: { item_id: string }) => [i.item_id, i]));
    const pgItem = byId.get(pg.item_id) as { outline: string[]; key_terms: string[]; summary: string; related: { item_id: string }[] };
    expect(pgItem.outline).toEqual(expect.arrayContaining(['Connection pooling', 'Vacuum', 'Indexes']));
    expect(pgItem.key_terms.length).toBeGreaterThan(3);
    expect(pgItem.summary.length).toBeGreaterThan(10);
    expect(pgItem.related.map((r) => r.item_id)).toContain(copy.item_id);
    expect(compiled.markdown).toMatch(/## Tomatoes/);

    const idx = await ok(a, 'get_knowledge_index');
    expect(idx).toMatchObject({ index_item_id: compiled.index_item_id, stale: false, item_count: 4 });
    expect(idx.markdown).toBe(compiled.markdown);
    // The index is itself a Knowledge Hub item, and is not compiled into itself.
    await settle(server);
    const again = await ok(a, 'compile_knowledge');
    expect(again.index_item_id).toBe(compiled.index_item_id);
    expect(again.item_count).toBe(4);

    await ok(a, 'gc_kb_delete', { item_id: garden.item_id });
    const stale = await ok(a, 'get_knowledge_index');
    expect(stale.stale).toBe(true);
    expect(stale.removed_item_ids).toEqual([garden.item_id]);

    const lint = await ok(a, 'lint_knowledge');
    const rules = lint.findings.map((f: { rule: string }) => f.rule);
    expect(rules).toContain('empty_item');
    expect(rules).toContain('stale_index');
    expect(rules.some((r: string) => r === 'duplicate_passage' || r === 'near_duplicate_passage')).toBe(true);
    const dup = lint.findings.find((f: { rule: string }) => f.rule === 'duplicate_passage' || f.rule === 'near_duplicate_passage');
    expect([dup.item_id, dup.other_item_id].sort()).toEqual([pg.item_id, copy.item_id].sort());
  });

  it('needs a project-bound key; another user sees no index', async () => {
    for (const tool of ['compile_knowledge', 'get_knowledge_index', 'lint_knowledge']) {
      expect((await call(unbound, tool)).data.error, tool).toBe('no_project_selected');
    }
    expect((await call(stranger, 'get_knowledge_index')).data.error).toBe('not_found');
    expect((await ok(stranger, 'lint_knowledge')).items_checked).toBe(0);
    expect((await call(a, 'compile_knowledge', { max_items: 0 })).data.error).toBe('validation_error');
  });
});

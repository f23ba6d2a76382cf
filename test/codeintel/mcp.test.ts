// The code-intelligence tools through the official MCP SDK client: ingest (many files, incremental,
// deleted, bad input), every registered query tool, errors, owner scoping, plan gate.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { createProject } from '../../src/domain/identity/projects.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { makeTenant } from '../kb/helpers.js';
import { REPO } from './fixtures.js';

let server: TestServer;
let t: Awaited<ReturnType<typeof makeTenant>>;
let a: Client;
let unbound: Client;

const files = (repo: Record<string, string>) => Object.entries(repo).map(([path, content]) => ({ path, content }));

beforeAll(async () => {
  server = await startTestServer();
  t = await makeTenant(server);
  a = await connectMcp(server.url, t.keyA);
  unbound = await connectMcp(server.url, t.unbound);
  const ing = await call(a, 'gc_orient', { files: files(REPO) });
  expect(ing.isError, JSON.stringify(ing.data)).toBe(false);
});
afterAll(async () => {
  await Promise.allSettled([a?.close(), unbound?.close()]);
  await server?.close();
});

const TOOLS = ['gc_orient', 'gc_defs', 'gc_refs', 'gc_callers', 'gc_source', 'gc_impact', 'gc_blast_radius', 'gc_repo_map', 'search_code', 'detect_dead_code', 'export_graph_json', 'generate_structural_summary'];

describe(`code intelligence tools over MCP (${DB_KIND})`, () => {
  it('every tool is listed with its category, plan and help', async () => {
    const help = await call(a, 'tool_help', { tool_name: 'gc_blast_radius', verbose: true });
    expect(help.isError, JSON.stringify(help.data)).toBe(false);
    expect(JSON.stringify(help.data)).toContain('BlastRadiusInputError');
    const listed = await a.listTools();
    void listed;
    for (const name of TOOLS) {
      const h = await call(a, 'tool_help', { tool_name: name });
      expect(h.isError, name).toBe(false);
    }
  });

  it('an unbound key gets no_project_selected', async () => {
    for (const name of TOOLS) {
      const r = await call(unbound, name, { symbol: 'x', query: 'x', focus_symbol: 'x' });
      expect(r.isError, name).toBe(true);
      expect(r.data.error, name).toBe('no_project_selected');
    }
  });

  it('ingest reports what it indexed and skips bad files with reasons, never failing the call', async () => {
    const r = await call(a, 'gc_orient', {
      files: [
        { path: '../../etc/passwd', content: 'root:x:0:0' },
        { path: '/abs/file.py', content: 'def f(): pass' },
        { path: 'C:\\win\\x.py', content: 'def f(): pass' },
        { path: 'bin/blob.dat', content: 'PK\u0003\u0004\u0000\u0000binary' },
        { path: 'big/huge.py', content: 'x = 1\n'.repeat(200_000) },
        { path: 'lib/tool.rb', content: 'class Tool\n  def run\n    42\n  end\nend\n' },
        { path: './docs/../../x.py', content: 'x' },
      ],
    });
    expect(r.isError, JSON.stringify(r.data)).toBe(false);
    const reasons = Object.fromEntries(r.data.index.skipped.map((s: { path: string; reason: string }) => [s.path, s.reason]));
    expect(reasons).toEqual({
      '../../etc/passwd': 'invalid_path',
      '/abs/file.py': 'invalid_path',
      'C:\\win\\x.py': 'invalid_path',
      'bin/blob.dat': 'not_text',
      'big/huge.py': 'too_large',
      './docs/../../x.py': 'invalid_path',
    });
    expect(r.data.index.indexed).toEqual([expect.objectContaining({ path: 'lib/tool.rb', parser: 'line-fallback' })]);
    expect(r.data.index.files).toBe(Object.keys(REPO).length + 1);
    expect(r.data.orientation).toMatchObject({ files: Object.keys(REPO).length + 1, languages: { python: 3, typescript: 2, ruby: 1 } });
    // Unchanged content is not parsed again.
    const again = await call(a, 'gc_orient', { files: files(REPO) });
    expect(again.data.index).toMatchObject({ unchanged: Object.keys(REPO).length, indexed: [], update: { mode: 'none' } });
    // Traversal in deleted is refused outright.
    const del = await call(a, 'gc_orient', { deleted: ['../outside.py'] });
    expect(del.isError).toBe(true);
    expect(del.data.error).toBe('validation_error');
  });

  it('gc_defs, gc_refs, gc_callers, gc_source answer from the index', async () => {
    const defs = await call(a, 'gc_defs', { symbol: 'Store.save' });
    expect(defs.data).toMatchObject({ not_found: false, ambiguous: false, total: 1 });
    expect(defs.data.definitions[0]).toMatchObject({ path: 'pkg/store.py', start_line: 7, end_line: 9, kind: 'method' });
    const scoped = await call(a, 'gc_defs', { symbol: 'formatName', from_path: 'src/main.ts' });
    expect(scoped.data.definitions).toEqual([expect.objectContaining({ path: 'src/util.ts', start_line: 1 })]);
    const unknown = await call(a, 'gc_defs', { symbol: 'DoesNotExist' });
    expect(unknown.isError).toBe(false);
    expect(unknown.data).toMatchObject({ not_found: true, definitions: [] });

    const refs = await call(a, 'gc_refs', { symbol: 'formatName' });
    expect(refs.data.references.map((r: { qualified: string }) => r.qualified).sort()).toEqual(['Greeter.greet', 'run']);
    const greet = refs.data.references.find((r: { qualified: string }) => r.qualified === 'Greeter.greet');
    expect(greet).toMatchObject({ path: 'src/util.ts', lines: [7], via: 'call', ambiguous: false });

    const callers = await call(a, 'gc_callers', { symbol: 'handle' });
    expect(callers.data.references).toEqual([expect.objectContaining({ qualified: 'endpoint', path: 'pkg/api.py', lines: [5] })]);
    const callees = await call(a, 'gc_callers', { symbol: 'handle', direction: 'callees' });
    expect(callees.data.callees.map((c: { qualified: string }) => c.qualified).sort()).toEqual(['Store', 'Store.save', 'helper']);

    const src = await call(a, 'gc_source', { symbol: 'pkg/store.py:helper' });
    expect(src.data.sources).toEqual([expect.objectContaining({ text: 'def helper():\n    return 1', start_line: 15, end_line: 16 })]);
  });

  it('gc_impact and gc_blast_radius (BlastRadiusInputError, not_found, result_incomplete)', async () => {
    const none = await call(a, 'gc_blast_radius', {});
    expect(none.isError).toBe(true);
    expect(none.data.error).toBe('BlastRadiusInputError');
    const blank = await call(a, 'gc_blast_radius', { focus_symbol: [] });
    expect(blank.data.error).toBe('BlastRadiusInputError');
    const br = await call(a, 'gc_blast_radius', { focus_symbol: 'Store.save' });
    expect(br.isError).toBe(false);
    expect(br.data.dependents.map((d: { name: string }) => d.name)).toEqual(['handle', 'endpoint']);
    expect(br.data).toMatchObject({ result_incomplete: false, not_found: [], affected_files: ['pkg/api.py', 'pkg/service.py', 'pkg/store.py'] });
    const partial = await call(a, 'gc_blast_radius', { focus_symbol: ['Store.save', 'Nope.never'] });
    expect(partial.data).toMatchObject({ result_incomplete: true, not_found: ['Nope.never'] });
    const gone = await call(a, 'gc_blast_radius', { focus_symbol: 'Nope.never' });
    expect(gone.data).toMatchObject({ result_incomplete: true, not_found: ['Nope.never'], dependents: [] });

    const impact = await call(a, 'gc_impact', { symbols: ['helper'] });
    expect(impact.data.files.map((f: { path: string }) => f.path)).toEqual(['pkg/service.py', 'pkg/api.py']);
    expect(impact.data.direct_dependents).toBe(1);
    expect((await call(a, 'gc_impact', {})).data.error).toBe('BlastRadiusInputError');
  });

  it('gc_repo_map, search_code, detect_dead_code, export_graph_json, generate_structural_summary', async () => {
    const map = await call(a, 'gc_repo_map', { focus_files: ['src/main.ts'], token_budget: 128 });
    expect(map.isError, JSON.stringify(map.data)).toBe(false);
    expect(map.data.personalised).toBe(true);
    expect(map.data.map_tokens).toBeLessThanOrEqual(128);
    expect(map.data.ranking[0].path).toMatch(/^src\//);
    const missing = await call(a, 'gc_repo_map', { focus_files: ['nope.ts'] });
    expect(missing.data).toMatchObject({ result_incomplete: true, not_found: ['nope.ts'] });

    const search = await call(a, 'search_code', { query: 'save value in the store' });
    expect(search.data.results[0].qualified).toBe('Store.save');
    const dead = await call(a, 'detect_dead_code', {});
    expect(dead.data.candidates.map((d: { name: string }) => d.name)).toContain('_unused_internal');

    const graph = await call(a, 'export_graph_json', { path_prefix: 'pkg/' });
    expect(graph.data.nodes.every((n: { path: string }) => n.path.startsWith('pkg/'))).toBe(true);
    expect(graph.data.edges).toContainEqual(expect.objectContaining({ kind: 'call', source: expect.stringContaining('pkg/api.py#endpoint'), target: expect.stringContaining('pkg/service.py#handle') }));
    expect(graph.data.file_edges).toContainEqual({ source: 'pkg/api.py', target: 'pkg/service.py', kind: 'import' });

    const summary = await call(a, 'generate_structural_summary', {});
    expect(summary.data).toMatchObject({ languages: { python: 3, typescript: 2, ruby: 1 }, parsers: { 'tree-sitter': 5, 'line-fallback': 1 } });
    expect(summary.data.most_imported_files.length).toBeGreaterThan(0);
  });

  it('incremental update: a changed file and a deleted file change the answers', async () => {
    const changed = REPO['pkg/api.py']!.replace('return handle(request.key, request.value)', 'return helper()').replace('import handle', 'import handle\nfrom pkg.store import helper');
    const up = await call(a, 'gc_orient', { files: [{ path: 'pkg/api.py', content: changed }] });
    expect(up.data.index).toMatchObject({ indexed: [expect.objectContaining({ path: 'pkg/api.py' })], update: { mode: 'incremental' } });
    expect((await call(a, 'gc_callers', { symbol: 'handle' })).data.references).toEqual([]);
    const helperCallers = await call(a, 'gc_callers', { symbol: 'helper' });
    expect(helperCallers.data.references.map((r: { qualified: string }) => r.qualified).sort()).toEqual(['endpoint', 'handle']);

    const del = await call(a, 'gc_orient', { deleted: ['pkg/api.py', 'never/was.py'] });
    expect(del.data.index).toMatchObject({ deleted: ['pkg/api.py'], not_found_deleted: ['never/was.py'], update: { mode: 'incremental' } });
    expect((await call(a, 'gc_callers', { symbol: 'helper' })).data.references.map((r: { qualified: string }) => r.qualified)).toEqual(['handle']);
    expect((await call(a, 'gc_defs', { symbol: 'endpoint' })).data.not_found).toBe(true);
    // Put it back for the other tests.
    await call(a, 'gc_orient', { files: [{ path: 'pkg/api.py', content: REPO['pkg/api.py']! }] });
  });

  it("another user's index is invisible; a key of another project sees only its own", async () => {
    const other = await makeTenant(server);
    const b = await connectMcp(server.url, other.keyA);
    try {
      const r = await call(b, 'gc_defs', { symbol: 'Store.save' });
      expect(r.isError).toBe(true);
      expect(r.data.error).toBe('not_found');
      expect((await call(b, 'gc_orient', {})).data.error).toBe('not_found');
      await call(b, 'gc_orient', { files: [{ path: 'own.py', content: 'def mine():\n    return 1\n' }] });
      expect((await call(b, 'gc_defs', { symbol: 'Store.save' })).data.not_found).toBe(true);
      expect((await call(a, 'gc_defs', { symbol: 'mine' })).data.not_found).toBe(true);
      // Same owner, second project: its key does not see the first project's index either.
      const second = await createProject(server.app.services.db, t.userId, { name: 'second' });
      const k = await createApiKey(server.app.services.db, { userId: t.userId, plan: 'pro', name: 'p2', projectId: second.id });
      const c = await connectMcp(server.url, k.key);
      try {
        expect((await call(c, 'gc_refs', { symbol: 'formatName' })).data.error).toBe('not_found');
      } finally {
        await c.close();
      }
    } finally {
      await b.close();
    }
  });

  it('a Free key gets plan_required', async () => {
    const free = await makeTenant(server, 'free');
    const c = await connectMcp(server.url, free.keyA);
    try {
      const r = await call(c, 'gc_defs', { symbol: 'x' });
      expect(r.data.error).toBe('plan_required');
    } finally {
      await c.close();
    }
  });

  it('restarting the index thread rebuilds from the database without parsing', async () => {
    const hub = server.app.services.codeIntel;
    const parsed = hub.counters.filesParsed;
    const reloads = hub.counters.reloads;
    await hub.restart();
    const r = await call(a, 'gc_callers', { symbol: 'formatName' });
    expect(r.data.references.map((x: { qualified: string }) => x.qualified).sort()).toEqual(['Greeter.greet', 'run']);
    expect(hub.counters.filesParsed).toBe(parsed);
    expect(hub.counters.reloads).toBe(reloads + 1);
  });
});

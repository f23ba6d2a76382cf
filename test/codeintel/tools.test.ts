// The later code-intelligence tools through the official MCP SDK client: gc_scan, export_graph_graphml
// (read back with graphology-graphml), gc_context_render, gc_agent_capsule, gc_edit_plan,
// visualize_graph_html (opened in headless Chromium: /usr/bin/chromium, which .ci/run installs).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { MultiDirectedGraph } from 'graphology';
import { parse as parseGraphml } from 'graphology-graphml';
import puppeteer from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { makeTenant } from '../kb/helpers.js';
import { REPO } from './fixtures.js';
import { BENIGN, POSITIVE } from './scanFixtures.js';

let server: TestServer;
let a: Client;
let s: Client;
let unbound: Client;

const files = (repo: Record<string, string>) => Object.entries(repo).map(([path, content]) => ({ path, content }));
const SCAN_FILES = [...Object.values(POSITIVE), ...Object.values(BENIGN)].map((f) => ({ path: f.path, content: f.content }));

beforeAll(async () => {
  server = await startTestServer();
  const t = await makeTenant(server);
  const ts = await makeTenant(server);
  a = await connectMcp(server.url, t.keyA);
  s = await connectMcp(server.url, ts.keyA);
  unbound = await connectMcp(server.url, t.unbound);
  const ing = await call(a, 'gc_orient', { files: files(REPO) });
  expect(ing.isError, JSON.stringify(ing.data)).toBe(false);
  const ing2 = await call(s, 'gc_orient', { files: SCAN_FILES });
  expect(ing2.isError, JSON.stringify(ing2.data)).toBe(false);
  expect(ing2.data.index.skipped).toEqual([]);
});
afterAll(async () => {
  await Promise.allSettled([a?.close(), s?.close(), unbound?.close()]);
  await server?.close();
});

const TOOLS = ['gc_scan', 'export_graph_graphml', 'gc_context_render', 'gc_agent_capsule', 'gc_edit_plan', 'visualize_graph_html'];
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

interface Finding {
  rule_id: string;
  severity: string;
  message: string;
  fingerprint: string;
  path: string;
  matches: Array<{ line: number; column: number }>;
  files: string[];
  evidence: string;
  status: string;
}

describe(`code intelligence tools, continued (${DB_KIND})`, () => {
  it('each tool is listed with its category and plan, has help, and needs a project-bound key', async () => {
    const listed = await a.listTools();
    void listed;
    for (const name of TOOLS) {
      const h = await call(a, 'tool_help', { tool_name: name, verbose: true });
      expect(h.isError, name).toBe(false);
      expect(JSON.stringify(h.data), name).toContain(name);
      const r = await call(unbound, name, { request: 'x', symbols: ['x'] });
      expect(r.isError, name).toBe(true);
      expect(r.data.error, name).toBe('no_project_selected');
    }
    const card = await fetch(`${server.url}/.well-known/agent-card.json`).then((r) => r.json() as Promise<{ skills: Array<{ id: string; tags: string[] }> }>);
    const tags = Object.fromEntries(card.skills.filter((k) => TOOLS.includes(k.id)).map((k) => [k.id, k.tags]));
    expect(tags.gc_scan).toEqual(expect.arrayContaining(['plan:pro', 'category:platform']));
    expect(tags.export_graph_graphml).toEqual(expect.arrayContaining(['plan:pro', 'category:general']));
    expect(tags.visualize_graph_html).toEqual(expect.arrayContaining(['plan:pro', 'category:general']));
    for (const name of ['gc_context_render', 'gc_agent_capsule', 'gc_edit_plan']) expect(tags[name]).toEqual(expect.arrayContaining(['plan:pro', 'category:platform']));
  });

  it('gc_scan: every pack finds its positive fixture, benign look-alikes stay silent, the fields are there', async () => {
    const r = await call(s, 'gc_scan', {});
    expect(r.isError, JSON.stringify(r.data)).toBe(false);
    expect(r.data.files_scanned).toBe(SCAN_FILES.length);
    expect(r.data.rescanned_files).toBe(0); // found in the pool when gc_orient parsed them
    const findings = r.data.findings as Finding[];
    for (const fx of Object.values(POSITIVE)) {
      const rules = new Set(findings.filter((f) => f.path === fx.path).map((f) => f.rule_id));
      for (const rule of fx.rules) expect(rules, `${fx.path}: ${rule}`).toContain(rule);
    }
    const benign = new Set(Object.values(BENIGN).map((f) => f.path));
    expect(findings.filter((f) => benign.has(f.path))).toEqual([]);
    for (const f of findings) {
      expect(Object.keys(f)).toEqual(expect.arrayContaining(['rule_id', 'severity', 'message', 'fingerprint', 'matches', 'files', 'evidence', 'status']));
      expect(f.status).toBe('open');
    }
    // The catalogue names the packs; unknown ones are validation errors.
    expect(r.data.packs).toEqual(['secrets', 'injection', 'deserialization', 'path-traversal', 'weak-crypto']);
    const bad = await call(s, 'gc_scan', { packs: ['nonsense'] });
    expect(bad.data.error).toBe('validation_error');
    const only = await call(s, 'gc_scan', { packs: ['weak-crypto'], min_severity: 'high' });
    expect((only.data.findings as Finding[]).map((f) => f.rule_id).sort()).toEqual(['weak-crypto.des', 'weak-crypto.weak-password-hash']);
  });

  it('gc_scan fingerprints: equal across two runs and after an unrelated line is inserted above; suppressed ones are said', async () => {
    const first = ((await call(s, 'gc_scan', {})).data.findings as Finding[]).map((f) => [f.fingerprint, f.matches[0]!.line, f.path] as const);
    const second = ((await call(s, 'gc_scan', {})).data.findings as Finding[]).map((f) => [f.fingerprint, f.matches[0]!.line, f.path] as const);
    expect(second).toEqual(first);
    const fx = POSITIVE.injection!;
    const up = await call(s, 'gc_orient', { files: [{ path: fx.path, content: `"""Queries for the user table."""\n# unrelated comment\n${fx.content}` }] });
    expect(up.data.index.indexed).toHaveLength(1);
    const after = (await call(s, 'gc_scan', {})).data.findings as Finding[];
    const before = first.filter(([, , p]) => p === fx.path);
    const moved = after.filter((f) => f.path === fx.path);
    expect(moved.map((f) => f.fingerprint).sort()).toEqual(before.map(([fp]) => fp).sort());
    for (const [fp, line] of before) expect(moved.find((f) => f.fingerprint === fp)!.matches[0]!.line).toBe(line + 2);
    // Other files' findings are untouched.
    expect(after.filter((f) => f.path !== fx.path).map((f) => f.fingerprint).sort()).toEqual(first.filter(([, , p]) => p !== fx.path).map(([fp]) => fp).sort());

    const sup = await call(s, 'gc_scan', { suppressed_fingerprints: [before[0]![0]] });
    expect((sup.data.findings as Finding[]).find((f) => f.fingerprint === before[0]![0])!.status).toBe('suppressed');
    expect(sup.data.open).toBe(sup.data.total - 1);
  });

  it('export_graph_graphml is valid GraphML that graphology-graphml reads back with the same graph', async () => {
    const json = await call(a, 'export_graph_json', {});
    const r = await call(a, 'export_graph_graphml', {});
    expect(r.isError, JSON.stringify(r.data)).toBe(false);
    const g = parseGraphml(MultiDirectedGraph, r.data.graphml as string);
    const symbols = g.filterNodes((_: string, attrs: Record<string, unknown>) => attrs.type === 'symbol');
    const fileNodes = g.filterNodes((_: string, attrs: Record<string, unknown>) => attrs.type === 'file');
    expect(symbols.length).toBe(json.data.nodes.length);
    expect(fileNodes.length).toBe(json.data.files.length);
    expect(g.order).toBe(r.data.nodes);
    expect(g.size).toBe(r.data.edges);
    const endpoint = json.data.nodes.find((n: { name: string }) => n.name === 'endpoint').id as string;
    const handle = json.data.nodes.find((n: { name: string }) => n.name === 'handle').id as string;
    expect(g.edges(endpoint, handle).map((e: string) => g.getEdgeAttribute(e, 'kind'))).toContain('call');
    expect(g.getNodeAttributes(handle)).toMatchObject({ kind: 'function', path: 'pkg/service.py', start_line: 4, exported: true, language: 'python' });
    expect(typeof g.getNodeAttribute(handle, 'pagerank')).toBe('number');
    expect(g.hasEdge('file:pkg/api.py', 'file:pkg/service.py')).toBe(true);
    // Symbols only, narrowed to a prefix.
    const narrow = await call(a, 'export_graph_graphml', { path_prefix: 'src/', include_files: false });
    const n = parseGraphml(MultiDirectedGraph, narrow.data.graphml as string);
    expect(n.order).toBeGreaterThan(0);
    n.forEachNode((_: string, attrs: Record<string, unknown>) => expect(attrs.path).toMatch(/^src\//));
  });

  it('gc_context_render renders the chosen symbols and files within the budget', async () => {
    const r = await call(a, 'gc_context_render', { symbols: ['Store.save'], files: ['src/util.ts'], token_budget: 400 });
    expect(r.isError, JSON.stringify(r.data)).toBe(false);
    expect(r.data.tokens).toBeLessThanOrEqual(400);
    expect(r.data.rendered).toContain('def save(self, key, value):\n        self.items[key] = value');
    expect(r.data.rendered).toContain("return 'hi ' + formatName(name, '');");
    expect(r.data.items.map((i: { ref: string; tier: string }) => [i.ref, i.tier])).toEqual([
      ['Store.save', 'full'],
      ['src/util.ts', 'full'],
    ]);
    // A small budget falls back to signatures and skeletons, never past the budget.
    const small = await call(a, 'gc_context_render', { symbols: ['Store.save', 'handle'], files: ['pkg/store.py'], token_budget: 64, include_dependencies: true });
    expect(small.data.tokens).toBeLessThanOrEqual(64);
    expect(small.data.items.length).toBeGreaterThan(0);
    const deps = await call(a, 'gc_context_render', { symbols: ['handle'], token_budget: 2000, include_dependencies: true });
    expect(deps.data.items.filter((i: { kind: string }) => i.kind === 'dependency').map((i: { ref: string }) => i.ref).join(' ')).toContain('pkg/store.py#Store.save');
    const missing = await call(a, 'gc_context_render', { symbols: ['Nope.never'], files: ['no/such.py'] });
    expect(missing.data).toMatchObject({ not_found: ['Nope.never', 'no/such.py'], result_incomplete: true, rendered: '' });
    const empty = await call(a, 'gc_context_render', {});
    expect(empty.data.error).toBe('validation_error');
  });

  it('gc_agent_capsule is a budgeted brief: shape, central files, key symbols; sections drop to fit', async () => {
    const r = await call(a, 'gc_agent_capsule', { token_budget: 600 });
    expect(r.isError, JSON.stringify(r.data)).toBe(false);
    expect(r.data.tokens).toBeLessThanOrEqual(600);
    expect(r.data.capsule).toContain('# Repository capsule');
    expect(r.data.capsule).toMatch(/5 files \(python 3, typescript 2\)/);
    expect(r.data.capsule).toContain('## Key symbols');
    expect(r.data.capsule).toContain('pkg/store.py');
    expect(r.data.sections).toEqual(expect.arrayContaining(['shape', 'central files', 'key symbols']));
    const q = await call(a, 'gc_agent_capsule', { token_budget: 600, query: 'format a name' });
    expect(q.data.capsule).toMatch(/## Matching "format a name"\n- src\/util\.ts:1 function formatName/);
    const tiny = await call(a, 'gc_agent_capsule', { token_budget: 64 });
    expect(tiny.data.tokens).toBeLessThanOrEqual(64);
    expect(tiny.data.dropped_sections.length).toBeGreaterThan(0);
  });

  it('gc_edit_plan ranks the files and symbols a change request touches, then what uses them', async () => {
    const r = await call(a, 'gc_edit_plan', { request: 'Store.save should log the value as well as the key' });
    expect(r.isError, JSON.stringify(r.data)).toBe(false);
    expect(r.data.not_found).toBe(false);
    expect(r.data.files[0]).toMatchObject({ path: 'pkg/store.py', role: 'edit' });
    expect(r.data.symbols[0]).toMatchObject({ qualified: 'Store.save', role: 'edit' });
    // handle names key and value (an edit candidate of its own) and calls Store.save; endpoint only uses handle.
    const by = (q: string) => r.data.symbols.find((x: { qualified: string }) => x.qualified === q);
    expect(by('handle').reason).toMatch(/; uses Store(\.save)?$/);
    expect(by('endpoint')).toMatchObject({ role: 'check', reason: 'uses handle' });
    expect(r.data.files.map((f: { path: string }) => f.path)).toEqual(expect.arrayContaining(['pkg/store.py', 'pkg/service.py']));
    const none = await call(a, 'gc_edit_plan', { request: 'zzzz qqqq' });
    expect(none.data).toMatchObject({ not_found: true, files: [], symbols: [] });
  });

  it('visualize_graph_html is one self-contained page that draws the graph in headless Chromium', async () => {
    const r = await call(a, 'visualize_graph_html', { title: 'Fixture </script> graph' });
    expect(r.isError, JSON.stringify(r.data)).toBe(false);
    const html = r.data.html as string;
    expect(r.data.nodes).toBe(r.data.total_nodes);
    expect(r.data.edges).toBeGreaterThan(0);
    // Nothing to fetch: no external script, style, image or frame, and no URL but the SVG namespace.
    expect(html).not.toMatch(/<(?:script|link|img|iframe)[^>]+(?:src|href)=/i);
    expect(html.match(/https?:\/\/[^\s"'<)]+/g)!.every((u) => u === 'http://www.w3.org/2000/svg')).toBe(true);
    expect(html.match(/<\/script>/g)).toHaveLength(2); // the title cannot close the data script

    const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    try {
      const page = await browser.newPage();
      const requests: string[] = [];
      const errors: string[] = [];
      page.on('request', (req) => requests.push(req.url()));
      page.on('pageerror', (err) => errors.push(String(err)));
      await page.setContent(html, { waitUntil: 'load' });
      await page.waitForSelector('body[data-rendered]', { timeout: 10_000 });
      const drawn = await page.evaluate(() => {
        const circles = Array.from(document.querySelectorAll('svg#graph circle.node'));
        return {
          circles: circles.length,
          lines: document.querySelectorAll('svg#graph line.edge').length,
          points: circles.map((c) => [Number(c.getAttribute('cx')), Number(c.getAttribute('cy'))]),
          box: (document.querySelector('svg#graph') as SVGSVGElement).getBoundingClientRect().width,
        };
      });
      expect(errors).toEqual([]);
      expect(requests.filter((u) => !u.startsWith('about:') && !u.startsWith('data:'))).toEqual([]);
      expect(drawn.circles).toBe(r.data.nodes);
      expect(drawn.circles).toBeGreaterThan(0);
      expect(drawn.lines).toBe(r.data.edges);
      expect(drawn.box).toBeGreaterThan(0);
      expect(drawn.points.every(([x, y]) => Number.isFinite(x) && Number.isFinite(y))).toBe(true);
      expect(new Set(drawn.points.map(([x, y]) => `${Math.round(x!)},${Math.round(y!)}`)).size).toBe(drawn.points.length);
      // A click on a node names its neighbours.
      const handleId = (await call(a, 'gc_defs', { symbol: 'handle' })).data.definitions[0].id as string;
      await page.click(`circle.node[data-id="${handleId}"]`);
      const info = await page.$eval('#info', (el) => el.textContent ?? '');
      expect(info).toContain('handle');
      expect(info).toMatch(/used by: endpoint/);
    } finally {
      await browser.close();
    }
  });
});

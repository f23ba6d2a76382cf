import { readFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { decode as toonDecode, encode as toonEncode } from '@toon-format/toon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { shortenDescription } from '../../src/domain/compression/manifest.js';
import { decodeMetaTokens, encodeMetaTokens } from '../../workers/tools/metaTokens.js';
import { preserveOriginal } from '../../src/domain/compression/originals.js';
import { compressToolOutput, extractIdentifiers } from '../../workers/tools/toolOutput.js';
import { createUser } from '../../src/domain/identity/users.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let pro: Client;
let pro2: Client;
let free: Client;
let proUserId: string;

beforeAll(async () => {
  server = await startTestServer();
  const db = server.app.services.db;
  const a = await createUser(db, { plan: 'pro' });
  const b = await createUser(db, { plan: 'pro' });
  const c = await createUser(db, { plan: 'free' });
  proUserId = a.id;
  pro = await connectMcp(server.url, (await createApiKey(db, { userId: a.id, plan: 'pro' })).key);
  pro2 = await connectMcp(server.url, (await createApiKey(db, { userId: b.id, plan: 'pro' })).key);
  free = await connectMcp(server.url, (await createApiKey(db, { userId: c.id, plan: 'free' })).key);
});
afterAll(async () => {
  for (const c of [pro, pro2, free]) await c?.close();
  await server?.close();
});

/** A realistic noisy build/test log with identifiers that must survive. */
function buildLog(): string {
  const lines: string[] = [];
  lines.push('> service@0.1.0 test', '> vitest run', '');
  for (let i = 0; i < 120; i++) lines.push(`  Compiling module ${i} of 120 from src/generated/part_${i}.ts`);
  for (let i = 0; i <= 100; i += 5) lines.push(`Downloading https://registry.npmjs.org/pkg-${i}/-/pkg-${i}.tgz ${i}%`);
  for (let i = 0; i < 40; i++) lines.push('npm WARN deprecated inflight@1.0.6: This module is not supported, and leaks memory.');
  lines.push('src/mcp/call.ts:42:7 - error TS2345: Argument of type \'string\' is not assignable to parameter of type \'number\'.');
  lines.push('Error: ENOENT: no such file or directory, open \'/var/lib/service/data/3f2b8c1e-9a4d-4e2f-8b1c-0d9e8f7a6b5c.json\'');
  lines.push('    at Object.openSync (node:fs:573:18)');
  lines.push('    at readConfig (/srv/app/dist/src/config.js:88:22)');
  lines.push('    at main (/srv/app/dist/src/main.js:12:3)');
  for (let i = 0; i < 150; i++) lines.push(`[info] request ${1000 + i} GET /v1/keys 200 ${3 + (i % 7)}ms`);
  lines.push('See https://docs.example.com/errors/ERR_MODULE_NOT_FOUND for details.');
  for (let i = 0; i < 60; i++) lines.push(`   ✓ test/unit/case-${i}.test.ts (${i + 2} tests) ${10 + i}ms`);
  lines.push(' FAIL  test/mcp/transport.test.ts > rejects a missing key');
  lines.push('AssertionError: expected 500 to be 401');
  lines.push('Test Files  1 failed | 60 passed (61)');
  return lines.join('\n');
}

describe('compress_tool_output', () => {
  it('pure: collapses repeats, keeps errors, frames and every identifier, never grows', () => {
    const log = buildLog();
    const r = compressToolOutput(log);
    expect(r.text.length).toBeLessThan(log.length * 0.5);
    for (const id of new Set(log.split('\n').flatMap(extractIdentifiers))) expect(r.text, id).toContain(id);
    for (const line of log.split('\n').filter((l) => /error|ENOENT|^\s+at |FAIL|AssertionError/.test(l))) expect(r.text).toContain(line);
    expect(r.text).toMatch(/\[×40\]/);
    expect(r.text).toMatch(/similar lines/);
    const tiny = 'ok';
    expect(compressToolOutput(tiny)).toMatchObject({ text: tiny, unchanged: true });
    expect(compressToolOutput('')).toMatchObject({ text: '', unchanged: true });
  });

  it('over MCP returns token stats and records a compression', async () => {
    const log = buildLog();
    const r = await call(pro, 'compress_tool_output', { output: log, tool_name: 'npm test' });
    expect(r.isError).toBe(false);
    expect(r.data.compressed_tokens).toBeLessThan(r.data.original_tokens);
    expect(r.data.savings_percent).toBeGreaterThan(40);
    expect(r.data.compressed_output).toContain('3f2b8c1e-9a4d-4e2f-8b1c-0d9e8f7a6b5c');
    expect(r.data.compressed_output).toContain('TS2345');
    expect(r.data.compressed_output).toContain('/srv/app/dist/src/config.js:88:22');
    await server.app.services.background.drain();
    const [ev] = await server.app.services.db.query<{ method: string; input_tokens: number; output_tokens: number }>(
      "select method, input_tokens, output_tokens from usage_events where tool_name = 'compress_tool_output' and status = 'success'",
    );
    expect(ev).toMatchObject({ method: 'MCP', input_tokens: r.data.original_tokens, output_tokens: r.data.compressed_tokens });
  });

  it('is gated to Pro and validates input', async () => {
    const gated = await call(free, 'compress_tool_output', { output: 'x' });
    expect(gated.data).toMatchObject({ error: 'plan_required', required_plan: 'pro' });
    const bad = await call(pro, 'compress_tool_output', { output: 'x', extra: 1 });
    expect(bad.data.error).toBe('validation_error');
  });
});

describe('compress_meta_tokens', () => {
  const files = [
    'node_modules/zod/README.md',
    'node_modules/jose/README.md',
    'node_modules/@toon-format/toon/dist/index.d.mts',
    'node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.d.ts',
    'node_modules/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.d.ts',
  ];

  it('pure: round-trips real files byte for byte, and text containing escape and symbol code points', () => {
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      const enc = encodeMetaTokens(text);
      expect(decodeMetaTokens(enc.encoded, enc.dictionary), f).toBe(text);
    }
    const tricky = `\uE000\uE001 plain \uF8FF ${'repeat this phrase please, '.repeat(20)}\uE000`;
    const enc = encodeMetaTokens(tricky);
    expect(Object.keys(enc.dictionary).length).toBeGreaterThan(0);
    expect(decodeMetaTokens(enc.encoded, enc.dictionary)).toBe(tricky);
    expect(() => decodeMetaTokens('\uE005', {})).toThrow(/not in the dictionary/);
  });

  it('over MCP: compresses .d.ts files losslessly with fewer tokens, and decompress restores them exactly', async () => {
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      const c = await call(pro, 'compress_meta_tokens', { text });
      expect(c.isError, f).toBe(false);
      expect(c.data.total_tokens, f).toBeLessThanOrEqual(c.data.original_tokens);
      const d = await call(pro, 'compress_meta_tokens', { mode: 'decompress', encoded: c.data.encoded, dictionary: c.data.dictionary });
      expect(Buffer.from(d.data.text, 'utf8').equals(Buffer.from(text, 'utf8')), f).toBe(true);
      const d2 = await call(pro, 'compress_meta_tokens', { decode: true, encoded: c.data.encoded, dictionary: c.data.dictionary });
      expect(d2.data.text).toBe(text);
      if (f.endsWith('.d.ts')) expect(c.data.savings_percent, f).toBeGreaterThan(0);
      if (f.endsWith('client/index.d.ts')) expect(c.data.savings_percent, f).toBeGreaterThan(5);
    }
  });

  it('reports validation errors and the plan gate', async () => {
    expect((await call(pro, 'compress_meta_tokens', {})).data.error).toBe('validation_error');
    expect((await call(pro, 'compress_meta_tokens', { mode: 'decompress', encoded: 'x' })).data.error).toBe('validation_error');
    expect((await call(pro, 'compress_meta_tokens', { mode: 'decompress', encoded: '\uE002', dictionary: {} })).data.error).toBe('validation_error');
    expect((await call(free, 'compress_meta_tokens', { text: 'x' })).data.error).toBe('plan_required');
  });
});

describe('compress_mcp_registry and gc_compress_manifest', () => {
  it('pure: first sentence, bounded', () => {
    expect(shortenDescription('Counts tokens. Uses o200k_base by default. See docs.')).toBe('Counts tokens.');
    expect(shortenDescription('Short')).toBe('Short');
    expect(shortenDescription('x'.repeat(500), 100).length).toBeLessThanOrEqual(100);
  });

  it('keeps every inputSchema byte for byte and shortens descriptions', async () => {
    const { tools } = await pro.listTools();
    const defs = tools.map((t) => ({ name: t.name, description: `${t.description} Use it carefully. It has many options.`, inputSchema: t.inputSchema }));
    const r = await call(pro, 'compress_mcp_registry', { tools: defs, max_description_chars: 120 });
    expect(r.isError).toBe(false);
    expect(r.data.tools).toHaveLength(defs.length);
    defs.forEach((d, i) => {
      const out = r.data.tools[i];
      expect(out.name).toBe(d.name);
      expect(JSON.stringify(out.inputSchema)).toBe(JSON.stringify(d.inputSchema));
      expect(out.description.length).toBeLessThan(d.description.length);
    });
    expect(r.data.compressed_tokens).toBeLessThan(r.data.original_tokens);

    const manifest = { tools: defs.slice(0, 5).map((d) => ({ ...d, annotations: { title: d.name } })), nextCursor: 'abc' };
    const m = await call(pro, 'gc_compress_manifest', { manifest });
    expect(m.data.manifest.nextCursor).toBe('abc');
    manifest.tools.forEach((d, i) => {
      expect(JSON.stringify(m.data.manifest.tools[i].inputSchema)).toBe(JSON.stringify(d.inputSchema));
      expect(m.data.manifest.tools[i].annotations).toEqual({ title: d.name });
    });
  });

  it('validates and gates', async () => {
    expect((await call(pro, 'compress_mcp_registry', { tools: [] })).data.error).toBe('validation_error');
    expect((await call(pro, 'compress_mcp_registry', { tools: [{ name: 'a', inputSchema: 'nope' }] })).data.error).toBe('validation_error');
    expect((await call(free, 'gc_compress_manifest', { manifest: { tools: [{ name: 'a' }] } })).data.error).toBe('plan_required');
  });
});

describe(`get_original_output (${DB_KIND})`, () => {
  it('returns the owner\'s preserved original and hides others\'', async () => {
    const id = await preserveOriginal(server.app.services.db, proUserId, 'the full original text', 4);
    const r = await call(pro, 'get_original_output', { original_id: id });
    expect(r.data).toMatchObject({ original_id: id, content: 'the full original text', content_tokens: 4 });
    expect((await call(pro2, 'get_original_output', { original_id: id })).data.error).toBe('not_found');
    expect((await call(free, 'get_original_output', { original_id: id })).data.error).toBe('plan_required');
    expect((await call(pro, 'get_original_output', { original_id: 'nope' })).data.error).toBe('validation_error');
  });
});

describe('toon_encode / toon_decode', () => {
  const shapes: unknown[] = [
    { users: [{ id: 1, name: 'Ada', role: 'admin' }, { id: 2, name: 'Linus', role: 'user' }, { id: 3, name: 'Grace', role: 'user' }] },
    { tags: ['a', 'b', 'c'], count: 3, nested: { deep: { value: true, nothing: null } } },
    [1, 2, 3],
    [{ a: 1 }, { b: 2 }, 'mixed', [1, 2]],
    { text: 'has, commas: and "quotes"\nand newlines', empty: {}, list: [] },
    'just a string',
    42,
  ];

  it('matches the official package output and round-trips', async () => {
    for (const data of shapes) {
      const r = await call(pro, 'toon_encode', { data });
      expect(r.isError).toBe(false);
      expect(r.data.toon).toBe(toonEncode(data));
      const back = await call(pro, 'toon_decode', { toon: r.data.toon });
      expect(back.data.data).toEqual(toonDecode(r.data.toon));
      expect(back.data.data).toEqual(data);
    }
    const tab = await call(pro, 'toon_encode', { json: JSON.stringify(shapes[0]), delimiter: 'tab' });
    expect(tab.data.toon).toBe(toonEncode(shapes[0], { delimiter: '\t' }));
    expect(tab.data.toon_tokens).toBeLessThan(tab.data.json_tokens);
    // TOON 4: uniform nested objects fold into the table header, keyed maps of uniform records become tables.
    const grouped = await call(pro, 'toon_encode', { data: { rows: [{ id: 1, t: { min: 1, max: 2 } }, { id: 2, t: { min: 3, max: 4 } }] } });
    expect(grouped.data.toon).toBe('rows[2]{id,t{min,max}}:\n  1,1,2\n  2,3,4');
    const keyed = await call(pro, 'toon_encode', { data: { byId: { x1: { n: 1, v: 'a' }, x2: { n: 2, v: 'b' } } } });
    expect(keyed.data.toon).toBe('byId[2:]{n,v}:\n  x1: 1,a\n  x2: 2,b');
    expect((await call(pro, 'toon_decode', { toon: keyed.data.toon })).data.data).toEqual({ byId: { x1: { n: 1, v: 'a' }, x2: { n: 2, v: 'b' } } });
    // The official 4.x package has neither key folding nor path expansion; the options went with them.
    expect((await call(pro, 'toon_encode', { data: { a: { b: 1 } }, key_folding: 'safe' })).data.error).toBe('validation_error');
  });

  it('reports invalid input and the plan gate', async () => {
    expect((await call(pro, 'toon_decode', { toon: 'items[3]: a,b' })).data.error).toBe('validation_error');
    expect((await call(pro, 'toon_encode', { json: '{nope' })).data.error).toBe('validation_error');
    expect((await call(pro, 'toon_encode', {})).data.error).toBe('validation_error');
    expect((await call(free, 'toon_encode', { data: 1 })).data.error).toBe('plan_required');
    expect((await call(free, 'toon_decode', { toon: 'a: 1' })).data.error).toBe('plan_required');
  });
});

describe('compress_codebase', () => {
  const files = [
    { path: 'src/math.ts', content: 'export function add(a: number, b: number): number {\n  return a + b;\n}\n\nexport function mul(a: number, b: number): number {\n  let r = 0;\n  for (let i = 0; i < b; i++) r = add(r, a);\n  return r;\n}\n' },
    { path: 'src/main.ts', content: "import { mul } from './math.js';\n\nexport function area(w: number, h: number): number {\n  // the area of a rectangle\n  return mul(w, h);\n}\n\nconsole.log(area(2, 3));\n" },
  ];

  it('runs the structural path with a query and focus symbols', async () => {
    const r = await call(pro, 'compress_codebase', { files, query: 'rectangle area', focus_symbols: ['mul'], token_budget: 200 });
    expect(r.isError, JSON.stringify(r.data)).toBe(false);
    expect(r.data.files).toBe(2);
    expect(r.data.output).toContain('area');
    expect(r.data.blast_radius).not.toBeNull();
  });

  it('validates and gates', async () => {
    expect((await call(pro, 'compress_codebase', { files: [] })).data.error).toBe('validation_error');
    expect((await call(free, 'compress_codebase', { files })).data.error).toBe('plan_required');
  });
});

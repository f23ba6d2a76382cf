// Navigable elision markers (issue 23, docs/markers.md): every marker of a served output carries an
// id, and POST /v1/expand, the MCP expand_markers tool and modulate_region's marker_ids turn it back
// into exactly the original text it hides; another caller's id is a 404.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { compressText } from '../../workers/text/index.js';
import { countTokens } from '../../workers/shared/tokens.js';
import { htmlText } from '../../workers/text/html.js';
import { junitReport } from '../helpers/junit.js';
import { FIDELITIES } from '../../workers/shared/fidelity.js';
import { sweepMarkers } from '../../src/domain/compression/markerStore.js';
import { connectMcp, fails, ok } from '../helpers/mcp.js';
import { DB_KIND, sampleDocument } from '../helpers/server.js';
import { markerServer } from './setup.js';
import { newKey } from '../helpers/users.js';

const LEVELS = FIDELITIES.filter((f) => f !== 'raw');
/** Any marker of the text engine, with or without an id. */
const ANY_MARKER = /\[… [^\]]*\]/g;
const ID_MARKER = /\[… (?:([^\]:]+): )?(\d+) tokens? #(\d{12}\.\d+)\]/g;

const read = (path: string) => readFileSync(resolve(process.cwd(), path), 'utf8');
/** Documents nobody here tuned for: lists, code fences, tables, setext and ATX headings. */
const DOCS: Record<string, () => string> = {
  sample: sampleDocument,
  postgres: () => read('node_modules/postgres/README.md'),
  piscina: () => read('node_modules/piscina/README.md'),
  architecture: () => read('docs/architecture.md'),
  // A title with its badges on the same line: the badges are a unit of their own.
  'css-select': () => read('node_modules/css-select/README.md'),
  // JSON: markers stand for whole values (members named by key, records by their name field).
  'devtools-protocol JSON': () => read('node_modules/devtools-protocol/json/js_protocol.json'),
  // YAML: values by indentation, markers named by the keys they hide.
  'GitHub workflow YAML': () => read('node_modules/@fastify/ajv-compiler/node_modules/fast-uri/.github/workflows/ci.yml'),
  // XML: markers stand for whole elements (test cases named by their name attribute), comments apart.
  'JUnit XML report': () => junitReport(),
};

interface Marker { raw: string; names: string | undefined; tokens: number; id: string }
function markersOf(out: string): Marker[] {
  return [...out.matchAll(ID_MARKER)].map((m) => ({ raw: m[0], names: m[1], tokens: Number(m[2]), id: m[3]! }));
}

/**
 * The output with each marker replaced by its expansion must give back the original, compared
 * without whitespace, list bullets, fence lines and thematic breaks (the renderer re-adds the first
 * three around kept text).
 */
function rebuilds(original: string, out: string, expansions: Map<string, string>): boolean {
  const rebuilt = out.replace(ID_MARKER, (_m, _n, _t, id: string) => expansions.get(id)!);
  // Thematic breaks (`---`) are layout too: one between two kept blocks is left out, like a blank line.
  const norm = (s: string) => s.replace(/^ {0,3}([-*_])(?: *\1){2,} *$/gm, '').replace(/^\s*(?:[-*+•]|\d{1,3}[.)]|>)\s+/gm, '').replace(/^\s*(`{3,}|~{3,}).*$/gm, '').replace(/\s+/g, '');
  return norm(rebuilt) === norm(original);
}

const ctx = markerServer();
const expand = ctx.expand;

/** Expands every marker; each expansion is a piece of what was sent, in order, and matches `holds`. */
async function expandsInOrder(text: string, markers: Marker[], holds: RegExp): Promise<Map<string, string>> {
  const ex = await expand({ ids: markers.map((m) => m.id) });
  expect(ex.status, ex.text.slice(0, 300)).toBe(200);
  const expansions = new Map<string, string>(ex.json.expansions.map((e: { id: string; text: string }) => [e.id, e.text]));
  let from = 0;
  for (const m of markers) {
    const hidden = expansions.get(m.id)!;
    expect(hidden).toMatch(holds);
    const at = text.indexOf(hidden, from);
    expect(at, `${m.raw}: not a substring of what was sent after offset ${from}`).not.toBe(-1);
    from = at + hidden.length;
  }
  return expansions;
}

describe(`navigable markers over REST (${DB_KIND})`, () => {
  for (const [name, doc] of Object.entries(DOCS)) {
    it(`${name}: every marker at every fidelity expands to exactly the text it hides`, async () => {
      const text = doc();
      let seen = 0;
      for (const fidelity of LEVELS) {
        const res = await ctx.server.request('POST', '/v1/compress', { key: ctx.proKey, body: { text, fidelity } });
        expect(res.status, res.text.slice(0, 200)).toBe(200);
        const out: string = res.json.compressed_text;
        const markers = markersOf(out);
        // No marker without an id.
        expect(markers.length, `${fidelity}: ${out.slice(0, 300)}`).toBe((out.match(ANY_MARKER) ?? []).length);
        if (!markers.length) continue;
        seen += markers.length;
        const ex = await expand({ ids: markers.map((m) => m.id) });
        expect(ex.status, ex.text.slice(0, 300)).toBe(200);
        const expansions = new Map<string, string>(ex.json.expansions.map((e: { id: string; text: string }) => [e.id, e.text]));
        expect([...expansions.keys()]).toEqual(markers.map((m) => m.id));
        let from = 0;
        for (const m of markers) {
          const hidden = expansions.get(m.id)!;
          // Verbatim, in document order, and about the size the marker announced.
          const at = text.indexOf(hidden, from);
          expect(at, `${fidelity} ${m.raw}: not an original substring after offset ${from}`).not.toBe(-1);
          from = at + hidden.length;
          // The announced count is the whole hidden span's (list bullets and blank lines between hidden
          // units included); counting it in pieces differs from one count only where BPE merges across a cut.
          expect(Math.abs(countTokens(hidden) - m.tokens), `${m.raw} vs ${countTokens(hidden)} tokens`).toBeLessThanOrEqual(Math.max(3, m.tokens * 0.02));
          // A marker never costs more tokens than what it hides, id included.
          expect(countTokens(m.raw), m.raw).toBeLessThan(m.tokens);
          // It names the headings it hides (the first ones).
          const headings = [...hidden.matchAll(/^ {0,3}#{1,6}[ \t]+(.+)$/gm)];
          if (headings.length) expect(m.names, `${m.raw} hides ${headings[0]![1]}`).toBeTruthy();
        }
        expect(rebuilds(text, out, expansions), `${fidelity}: output + expansions is not the original`).toBe(true);
      }
      expect(seen).toBeGreaterThan(3);
    });
  }

  it('terminal output: the answer has no escape sequences, and ids expand to the bytes sent, escapes included', async () => {
    const text = Array.from({ length: 240 }, (_, i) =>
      i % 40 === 7
        ? `\x1b[31m\u2717\x1b[39m test/area${i}.test.ts \x1b[2m(${i} tests | 1 failed)\x1b[22m \x1b[1mAssertionError\x1b[22m: expected ${i} to be ${i + 1}`
        : `\x1b[32m\u2713\x1b[39m test/area${i}.test.ts \x1b[2m(${(i * 7) % 30} tests)\x1b[22m\x1b[33m ${(i * 37) % 900}ms\x1b[39m`,
    ).join('\n');
    const plain = text.replace(/\x1b\[[0-9;]*m/g, '');
    const res = await ctx.server.request('POST', '/v1/compress', { key: ctx.proKey, body: { text, fidelity: 'balanced' } });
    expect(res.status, res.text.slice(0, 200)).toBe(200);
    const out: string = res.json.compressed_text;
    expect(out).not.toContain('\x1b');
    expect(res.json.original_tokens).toBe(countTokens(text));
    expect(res.json.compressed_tokens).toBeLessThan(countTokens(plain) * 0.25);
    const markers = markersOf(out);
    expect(markers.length).toBeGreaterThan(0);
    const expansions = await expandsInOrder(text, markers, /\x1b\[/);
    // Output and expansions give back the text as sent, once its escapes are set aside.
    expect(rebuilds(plain, out, new Map([...expansions].map(([id, t]) => [id, t.replace(/\x1b\[[0-9;]*m/g, '')])))).toBe(true);
    // raw is the source, escapes and all.
    const raw = await ctx.server.request('POST', '/v1/compress', { key: ctx.proKey, body: { text, fidelity: 'raw' } });
    expect(raw.json.compressed_text).toBe(text);
    // The same lines in other colours compress to the same words, under ids of their own that expand
    // to their own bytes.
    const recoloured = text.replace(/\x1b\[32m/g, '\x1b[92m');
    const again = await ctx.server.request('POST', '/v1/compress', { key: ctx.proKey, body: { text: recoloured, fidelity: 'balanced' } });
    const otherMarkers = markersOf(again.json.compressed_text);
    expect(again.json.compressed_text.replace(ID_MARKER, '')).toBe(out.replace(ID_MARKER, ''));
    expect(otherMarkers[0]!.id).not.toBe(markers[0]!.id);
    const other = await expand({ ids: otherMarkers.map((m) => m.id) });
    for (const e of other.json.expansions as { text: string }[]) {
      expect(recoloured).toContain(e.text);
      expect(e.text).not.toContain('\x1b[32m');
    }
  });

  it('an HTML page: the answer is its text, and ids expand to the page as sent, tags included', async () => {
    const text = read('node_modules/uWebSockets.js/docs/generated/interfaces/HttpResponse.html');
    const res = await ctx.server.request('POST', '/v1/compress', { key: ctx.proKey, body: { text, fidelity: 'balanced' } });
    expect(res.status, res.text.slice(0, 200)).toBe(200);
    const out: string = res.json.compressed_text;
    expect(out).not.toMatch(/<\/?(?:div|span|a|li|h\d)\b[^>]*>/);
    expect(res.json.original_tokens).toBe(countTokens(text));
    const markers = markersOf(out);
    expect(markers.length).toBeGreaterThan(2);
    const expansions = await expandsInOrder(text, markers, /<[a-z]/);
    // Output and expansions, each expansion read as the engine reads the page, give back the page's text.
    const asText = (html: string) => htmlText(html)?.text ?? '';
    expect(rebuilds(asText(text), out, new Map([...expansions].map(([id, t]) => [id, asText(t)])))).toBe(true);
    const raw = await ctx.server.request('POST', '/v1/compress', { key: ctx.proKey, body: { text, fidelity: 'raw' } });
    expect(raw.json.compressed_text).toBe(text);
  });

  it('a single id answers the same text; ids may carry the marker\'s "#"', async () => {
    const out = (await ctx.server.request('POST', '/v1/compress', { key: ctx.proKey, body: { text: sampleDocument(), fidelity: 'outline' } })).json.compressed_text;
    const [m] = markersOf(out);
    const one = await expand({ id: `#${m!.id}` });
    expect(one.status).toBe(200);
    const many = await expand({ ids: [m!.id] });
    expect(one.json.expansions[0].text).toBe(many.json.expansions[0].text);
  });

  it('a semantic-cache hit answers the stored bytes, and their ids still expand', async () => {
    const body = { text: `${read('docs/architecture.md')}\n\nCache probe.`, fidelity: 'balanced' };
    const first = await ctx.server.request('POST', '/v1/compress', { key: ctx.proKey, body });
    const second = await ctx.server.request('POST', '/v1/compress', { key: ctx.proKey, body });
    expect(second.headers.get('x-semantic-cache')).toBe('hit');
    expect(second.text).toBe(first.text);
    // What the miss stored is swept by age only: a fresh sweep keeps it, and the hit's ids resolve.
    await sweepMarkers(ctx.server.app.services.db);
    const markers = markersOf(second.json.compressed_text);
    expect(markers.length).toBeGreaterThan(0);
    const ex = await expand({ ids: markers.map((m) => m.id) });
    expect(ex.status).toBe(200);
    expect(rebuilds(body.text, second.json.compressed_text, new Map(ex.json.expansions.map((e: { id: string; text: string }) => [e.id, e.text])))).toBe(true);
  });

  it("another caller's id is 404, an unknown one 404, a malformed one 422 with a detail", async () => {
    const out = (await ctx.server.request('POST', '/v1/compress', { key: ctx.proKey, body: { text: sampleDocument(), fidelity: 'abstract' } })).json.compressed_text;
    const id = markersOf(out)[0]!.id;
    const stolen = await expand({ id }, ctx.otherKey);
    expect(stolen.status).toBe(404);
    expect(stolen.json.detail).toContain(id);
    expect(stolen.text).not.toContain('Installation');
    // One foreign id among the caller's own fails the whole call.
    expect((await expand({ ids: [id] }, ctx.otherKey)).status).toBe(404);
    const [ref, n] = id.split('.');
    expect((await expand({ id: `${ref}.${Number(n) + 500}` })).status).toBe(404);
    expect((await expand({ id: '000000000001.0' })).status).toBe(404);
    for (const body of [{ id: 'abc' }, { id: '123.4' }, { ids: ['1234567890123.0'] }, { ids: [] }, {}, { id, ids: [id] }, { ids: Array(501).fill(id) }, { id: 5 }]) {
      const res = await expand(body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(422);
      expect(res.json.detail, JSON.stringify(body).slice(0, 80)).toBeDefined();
    }
    expect((await ctx.server.request('POST', '/v1/expand', { key: null, body: { id } })).status).toBe(401);
  });

  it('the retention and size sweep drops the oldest originals and their ids; compressing again restores them', async () => {
    const key = await newKey(ctx.server, 'free');
    const compress = async () => (await ctx.server.request('POST', '/v1/compress', { key, body: { text: read('node_modules/piscina/README.md'), fidelity: 'outline' } })).json.compressed_text;
    const out = await compress();
    const id = markersOf(out)[0]!.id;
    expect((await expand({ id }, key)).status).toBe(200);
    await sweepMarkers(ctx.server.app.services.db, 1); // a 1-byte cap: everything goes
    expect((await expand({ id }, key)).status).toBe(404);
    // The writer skips layouts it stored recently; a sweep must make it forget them.
    expect(markersOf(await compress())[0]!.id).toBe(id);
    const again = await expand({ id }, key);
    expect(again.status, again.text.slice(0, 200)).toBe(200);
  });
});

describe(`navigable markers over MCP (${DB_KIND})`, () => {
  let client: Client;
  let other: Client;
  beforeAll(async () => {
    client = await connectMcp(ctx.server.url, ctx.proKey);
    other = await connectMcp(ctx.server.url, ctx.otherKey);
  });
  afterAll(async () => {
    await client?.close();
    await other?.close();
  });

  it('optimize_for_model markers expand through expand_markers exactly as through REST', async () => {
    const text = read('node_modules/postgres/README.md');
    const r = await ok(client, 'optimize_for_model', { text, model: 'gpt-4o', fidelity: 'outline' });
    const markers = markersOf(r.compressed_text);
    expect(markers.length).toBeGreaterThan(0);
    const mcp = await ok(client, 'expand_markers', { ids: markers.map((m) => m.id) });
    const rest = await expand({ ids: markers.map((m) => m.id) });
    expect(mcp.expansions).toEqual(rest.json.expansions);
    expect(rebuilds(text, r.compressed_text, new Map(mcp.expansions.map((e: { id: string; text: string }) => [e.id, e.text])))).toBe(true);
    await fails(other, 'expand_markers', { ids: [markers[0]!.id] }, 'not_found');
    await fails(client, 'expand_markers', { ids: ['nope'] }, 'validation_error');
  });

  it('read_skeleton markers come back at RAW from modulate_region marker_ids', async () => {
    const text = read('node_modules/piscina/README.md');
    const { file_id } = await ok(client, 'ingest_context', { text, name: 'piscina' });
    for (const fidelity of LEVELS) {
      const sk = await ok(client, 'read_skeleton', { file_id, fidelity });
      const markers = markersOf(sk.skeleton);
      expect(markers.length).toBe((sk.skeleton.match(ANY_MARKER) ?? []).length);
      if (!markers.length) continue;
      const r = await ok(client, 'modulate_region', { file_id, marker_ids: markers.map((m) => m.id) });
      expect(r.fidelity).toBe('RAW');
      expect(rebuilds(text, sk.skeleton, new Map(r.markers.map((e: { id: string; text: string }) => [e.id, e.text])))).toBe(true);
      for (const e of r.markers) expect(text).toContain(e.text);
    }
    // Node summaries (modulate_region at a level) carry ids too.
    const nodes = await ok(client, 'modulate_region', { file_id, fidelity: 'DETAILED' });
    const compressed = nodes.nodes.filter((n: { method: string }) => n.method === 'compressed');
    for (const n of compressed) {
      const ms = markersOf(n.text);
      if (!ms.length) continue;
      const r = await ok(client, 'modulate_region', { marker_ids: ms.map((m) => m.id) });
      for (const e of r.markers) expect(text).toContain(e.text);
    }
    const sk = await ok(client, 'read_skeleton', { file_id, fidelity: 'abstract' });
    await fails(other, 'modulate_region', { marker_ids: [markersOf(sk.skeleton)[0]!.id] }, 'not_found');
    await fails(client, 'modulate_region', {}, 'validation_error');
  });
});

describe('engine: ids are priced like the text they stand in for', () => {
  it('with ids, no marker hides fewer tokens than it costs, and every span is the hidden text', async () => {
    let seen = 0;
    const log = Array.from({ length: 200 }, (_, i) => JSON.stringify({ ts: i, level: i % 23 ? 'info' : 'error', msg: `job ${9000 + i} done in ${(i * 13) % 500} ms` })).join('\n');
    for (const text of [DOCS.postgres!(), DOCS.piscina!(), 'One short line. '.repeat(3), DOCS.sample!(), DOCS['devtools-protocol JSON']!(), log]) {
      for (const fidelity of LEVELS) {
        const r = await compressText({ text, fidelity, markerIds: true });
        const markers = markersOf(r.compressed_text);
        expect(markers.length).toBe((r.compressed_text.match(ANY_MARKER) ?? []).length);
        if (!markers.length) {
          expect(r.markers).toBeUndefined();
          continue;
        }
        expect(r.markers!.spans.length).toBe(markers.length * 2);
        markers.forEach((m, n) => {
          seen++;
          expect(m.id).toBe(`${r.markers!.ref}.${n}`);
          expect(countTokens(m.raw), m.raw).toBeLessThan(m.tokens);
          // It announces the tokens of exactly the span it hides (list markup included).
          const hidden = text.slice(r.markers!.spans[2 * n], r.markers!.spans[2 * n + 1]);
          expect(Math.abs(countTokens(hidden) - m.tokens), `${m.raw} vs ${countTokens(hidden)}`).toBeLessThanOrEqual(Math.max(3, m.tokens * 0.02));
        });
        // Same request, same ids (the semantic cache stores answers verbatim).
        expect((await compressText({ text, fidelity, markerIds: true })).compressed_text).toBe(r.compressed_text);
      }
    }
    expect(seen).toBeGreaterThan(50);
  });
});

// Navigable code-engine markers (issue 23, docs/markers.md): every elision in a /v1/compress-code
// skeleton carries `<N> tokens #<ref>.<n>`, and POST /v1/expand (and MCP expand_markers) turns each
// id back into exactly the source it hides; another caller's id is a 404; raw and tiny inputs stay as sent.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compressCode } from '../../workers/code/index.js';
import { countTokens } from '../../workers/shared/tokens.js';
import { FIDELITIES } from '../../workers/shared/fidelity.js';
import { connectMcp, fails, ok } from '../helpers/mcp.js';
import { DB_KIND } from '../helpers/server.js';
import { markerServer } from './setup.js';

/** A code marker's label: the hidden size and the id (Python: in a `#` comment after `...`). */
const LABEL = /(?:  # | )(\d+) tokens #(\d{12}\.\d+)/g;

function stdlib(): string | null {
  try {
    return execFileSync('python3', ['-c', 'import sysconfig;print(sysconfig.get_paths()["stdlib"])'], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}
const read = (path: string) => readFileSync(resolve(process.cwd(), path), 'utf8');
const LIB = stdlib();
/** Real files nobody tuned the engine for where they exist (Python stdlib, Go in git's contrib), this repo's own TypeScript, and the fixtures. */
const FILES: { name: string; code: string }[] = [
  ...['textwrap.py', 'shlex.py'].filter((f) => LIB && existsSync(join(LIB, f))).map((f) => ({ name: f, code: readFileSync(join(LIB!, f), 'utf8') })),
  { name: 'sample.py', code: read('test/code/fixtures/sample.py') },
  { name: 'text.ts', code: read('src/domain/compression/text.ts') },
  { name: 'units.ts', code: read('workers/code/units.ts') },
  ...['client.go', 'proxy.go'].map((f) => join('/usr/share/doc/git/contrib/persistent-https', f)).filter(existsSync).map((p) => ({ name: p.split('/').pop()!, code: readFileSync(p, 'utf8') })),
  { name: 'sample.go', code: read('test/code/fixtures/sample.go') },
  { name: 'commonjs.js', code: read('test/code/fixtures/commonjs.js') },
  { name: 'component.js', code: read('test/code/fixtures/component.js') },
];
// Windows line endings: the engine works on LF, the ids must still expand to the bytes sent.
FILES.push({ name: 'text-crlf.ts', code: FILES.find((f) => f.name === 'text.ts')!.code.replace(/\n/g, '\r\n') });

const ctx = markerServer();
const expand = ctx.expand;
const compress = (code: string, filename: string, fidelity: string, key = ctx.proKey) => ctx.server.request('POST', '/v1/compress-code', { key, body: { code, filename, fidelity } });

describe(`navigable code markers over REST (${DB_KIND})`, () => {
  for (const { name, code } of FILES) {
    it(`${name}: every marker at every fidelity expands to exactly the source it hides, in order`, async () => {
      let seen = 0;
      for (const fidelity of FIDELITIES) {
        const res = await compress(code, name, fidelity);
        expect(res.status, res.text.slice(0, 200)).toBe(200);
        expect(res.json.markers, 'the layout is stored, not sent').toBeUndefined();
        const out: string = res.json.skeleton;
        const labels = [...out.matchAll(LABEL)];
        if (fidelity === 'raw') {
          expect(out).toBe(code);
          continue;
        }
        // No elision without an id: a bare `{ … }` or a Python `...` line is the plain engine's spelling.
        // (Kept source may quote the spelling itself: units.ts writes '{ … }' in code and comments.)
        expect((out.match(/\{ … \}/g) ?? []).length, `${fidelity}: unlabelled body`).toBeLessThanOrEqual((code.match(/\{ … \}/g) ?? []).length);
        if (name.endsWith('.py')) expect(out.match(/^[ \t]*\.\.\.[ \t]*$/gm), `${fidelity}: unlabelled ...`).toBeNull();
        // The engine on its own gives the same ids and the spans they expand to.
        const direct = compressCode({ code, filename: name, fidelity, markerIds: true });
        expect(direct.skeleton).toBe(out);
        if (!labels.length) {
          expect(direct.markers).toBeUndefined();
          continue;
        }
        const spans = direct.markers!.spans;
        expect(labels.map((m) => m[2])).toEqual(labels.map((_, n) => `${direct.markers!.ref}.${n}`));
        const ex = await expand({ ids: labels.map((m) => m[2]) });
        expect(ex.status, ex.text.slice(0, 300)).toBe(200);
        const texts: string[] = ex.json.expansions.map((e: { text: string }) => e.text);
        let from = 0;
        labels.forEach((m, n) => {
          seen++;
          const hidden = texts[n]!;
          // Exactly the span of the source, verbatim, after the previous one.
          expect(hidden).toBe(code.slice(spans[2 * n]!, spans[2 * n + 1]!));
          expect(spans[2 * n]!, `${fidelity} ${m[0]} overlaps the previous span`).toBeGreaterThanOrEqual(from);
          from = spans[2 * n + 1]!;
          // The size it announces, and a marker never costs more than what it hides.
          if (!name.includes('crlf')) expect(Number(m[1]), m[0]).toBe(countTokens(hidden));
          expect(countTokens(m[0]), m[0]).toBeLessThan(Number(m[1]));
          // A brace body's marker expands to the braces and what is between them.
          const at = m.index!;
          if (out.slice(at - 3, at) === '{ …') expect(hidden, m[0]).toMatch(/^\{[\s\S]*\}$/);
        });
      }
      expect(seen, name).toBeGreaterThan(0);
    });
  }

  it("another caller's id is 404; a tiny input never grows and carries no marker", async () => {
    const { code } = FILES.find((f) => f.name === 'text.ts')!;
    const out: string = (await compress(code, 'text.ts', 'outline')).json.skeleton;
    const id = [...out.matchAll(LABEL)][0]![2]!;
    const stolen = await expand({ id }, ctx.otherKey);
    expect(stolen.status).toBe(404);
    expect(stolen.text).not.toContain('requireQuota');
    expect((await expand({ id })).status).toBe(200);
    for (const tiny of ['def f():\n    return 1\n', 'func f() int { return 1 }\n', 'x = 1']) {
      for (const fidelity of FIDELITIES) {
        const r = (await compress(tiny, tiny.startsWith('func') ? 'f.go' : 'f.py', fidelity)).json;
        expect(r.compressed_tokens, `${fidelity}: ${r.skeleton}`).toBeLessThanOrEqual(r.original_tokens);
        expect(r.skeleton).not.toMatch(LABEL);
      }
    }
  });
});

describe(`navigable structural markers (${DB_KIND})`, () => {
  it('each elided signature body in a structural output expands to that body of its own file', async () => {
    const files = FILES.filter((f) => !f.name.startsWith('sample')).map((f) => ({ path: f.name, content: f.code }));
    let seen = 0;
    for (const token_budget of [800, 3000]) {
      const res = await ctx.server.request('POST', '/v1/compress-code/structural', { key: ctx.proKey, body: { files, token_budget } });
      expect(res.status, res.text.slice(0, 200)).toBe(200);
      expect(res.json.markers).toBeUndefined();
      const out: string = res.json.output;
      const labels = [...out.matchAll(LABEL)];
      expect(labels.length).toBeGreaterThan(0);
      expect(out.match(/\{ … \}/g), 'unlabelled body').toBeNull();
      const ex = await expand({ ids: labels.map((m) => m[2]) });
      expect(ex.status, ex.text.slice(0, 300)).toBe(200);
      // The file each label sits in: the last `--- path ---` line above it.
      const fileAt = (at: number) => files.find((f) => f.path === [...out.slice(0, at).matchAll(/^--- (.+) ---$/gm)].pop()![1])!.content;
      const ordinal = new Map<string, number>();
      labels.forEach((m, k) => {
        seen++;
        const hidden: string = ex.json.expansions[k].text;
        const [ref, n] = m[2]!.split('.');
        // One ref per file, ordinals from 0 in output order.
        expect(Number(n)).toBe(ordinal.get(ref!) ?? 0);
        ordinal.set(ref!, Number(n) + 1);
        expect(fileAt(m.index!)).toContain(hidden);
        // A braced body after `{ …`; an arrow's expression body after `=> …` (nested functions are units since issue 48).
        if (out.slice(m.index! - 3, m.index!) === '{ …') expect(hidden, m[0]).toMatch(/^\{[\s\S]*\}$/);
        if (!files.find((f) => f.content.includes(hidden))!.path.includes('crlf')) expect(Number(m[1])).toBe(countTokens(hidden));
      });
    }
    expect(seen).toBeGreaterThan(5);
  });
});

describe(`navigable code markers over MCP (${DB_KIND})`, () => {
  it('expand_markers answers what REST answers; another caller gets not_found', async () => {
    const client = await connectMcp(ctx.server.url, ctx.proKey);
    const other = await connectMcp(ctx.server.url, ctx.otherKey);
    try {
      const { code } = FILES.find((f) => f.name === 'units.ts')!;
      const out: string = (await compress(code, 'units.ts', 'balanced')).json.skeleton;
      const ids = [...out.matchAll(LABEL)].map((m) => m[2]!);
      expect(ids.length).toBeGreaterThan(3);
      const mcp = await ok(client, 'expand_markers', { ids });
      expect(mcp.expansions).toEqual((await expand({ ids })).json.expansions);
      const region = await ok(client, 'modulate_region', { marker_ids: ids.slice(0, 2) });
      expect(region.markers.map((m: { text: string }) => m.text)).toEqual(mcp.expansions.slice(0, 2).map((e: { text: string }) => e.text));
      await fails(other, 'expand_markers', { ids: [ids[0]!] }, 'not_found');
      // compress_codebase (the MCP code tool) serves the same ids.
      const files = FILES.filter((f) => f.name.endsWith('.ts')).map((f) => ({ path: f.name, content: f.code }));
      const cb = await ok(client, 'compress_codebase', { files, token_budget: 1000 });
      const cbIds = [...(cb.output as string).matchAll(LABEL)].map((m) => m[2]!);
      expect(cbIds.length).toBeGreaterThan(0);
      const cbEx = await ok(client, 'expand_markers', { ids: cbIds });
      for (const e of cbEx.expansions) expect(files.some((f) => f.content.includes(e.text))).toBe(true);
    } finally {
      await client.close();
      await other.close();
    }
  });
});

describe('engine: every language, the line fallback included', () => {
  const fixtures = ['App.tsx', 'Sample.java', 'api.h', 'sample.c', 'sample.cpp', 'sample.js', 'sample.rs'].map((f) => ({ name: f, code: read(`test/code/fixtures/${f}`) }));
  const ruby = [
    'require "json"',
    '',
    'class Store',
    '  # Keeps items.',
    '  def initialize(path)',
    '    @path = path',
    '    @items = JSON.parse(File.read(path)).map { |item| item.transform_keys(&:to_sym) }',
    '    # Sorted once, when loaded.',
    '    @items.sort_by! { |item| [item[:priority], item[:created_at]] }',
    '  end',
    '',
    '  def save',
    '    File.write(@path, JSON.pretty_generate(@items.map { |item| item.transform_keys(&:to_s) }))',
    '  end',
    'end',
    '',
  ].join('\n');
  for (const { name, code } of [...fixtures, { name: 'store.rb', code: ruby }]) {
    it(`${name}: one id per elision, in order, each over its own span`, () => {
      for (const fidelity of FIDELITIES) {
        const r = compressCode({ code, filename: name, fidelity, markerIds: true });
        const labels = [...r.skeleton.matchAll(LABEL)];
        expect(r.skeleton.match(/\{ … \}/g), `${name} ${fidelity}`).toBeNull();
        if (!labels.length) continue;
        expect(labels.map((m) => m[2])).toEqual(labels.map((_, n) => `${r.markers!.ref}.${n}`));
        const spans = r.markers!.spans;
        expect(spans.length).toBe(labels.length * 2);
        for (let k = 1; k < spans.length; k++) expect(spans[k]!).toBeGreaterThanOrEqual(spans[k - 1]!);
        labels.forEach((m, n) => expect(Number(m[1])).toBe(countTokens(code.slice(spans[2 * n]!, spans[2 * n + 1]!))));
      }
    });
  }
});

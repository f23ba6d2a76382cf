import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chunkText, CHUNK_MAX_TOKENS } from '../../workers/kb/chunk.js';
import { JsonBrackets, wrapJson } from '../../workers/kb/treeChunks.js';
import { junitReport } from '../helpers/junit.js';
import { unifiedDiff } from '../../workers/kb/diff.js';
import { LexicalIndex } from '../../workers/kb/lexical.js';
import { ProjectIndex } from '../../workers/kb/projectIndex.js';

function section(n: number): string {
  const sentences = Array.from({ length: 14 }, (_, i) => `Paragraph sentence ${i} of section ${n} explains the behaviour of component ${n * 7 + i} under load.`);
  return `## Section ${n}\n\n${sentences.slice(0, 7).join(' ')}\n\n${sentences.slice(7).join(' ')}`;
}

describe('chunking', () => {
  it('cuts by structure within the size bound, exact slices, heading paths', async () => {
    const text = `# Manual\n\n${Array.from({ length: 12 }, (_, i) => section(i)).join('\n\n')}`;
    const chunks = await chunkText(text);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks) {
      expect(c.tokens).toBeLessThanOrEqual(CHUNK_MAX_TOKENS);
      expect(text.slice(c.start, c.end)).toBe(c.raw_text);
    }
    expect(chunks.slice(0, -1).every((c) => c.tokens >= 120)).toBe(true);
    expect(chunks[1]!.heading).toMatch(/^Manual › Section \d+$/);
    expect(chunks.some((c) => c.skeleton.includes('[HIDDEN:'))).toBe(true);
  });

  it('splits one huge paragraph by sentences; empty text has no chunks', async () => {
    const para = Array.from({ length: 200 }, (_, i) => `Sentence number ${i} talks about topic ${i % 13}.`).join(' ');
    const chunks = await chunkText(para, { withSkeleton: false });
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks.every((c) => c.tokens <= CHUNK_MAX_TOKENS)).toBe(true);
    expect(await chunkText('   \n')).toEqual([]);
  });

  // Cut as Markdown, a pretty JSON array (no blank lines) was one block split at line ends: a chunk
  // began inside one record and ended inside another, and had no heading.
  it('JSON and YAML: chunks hold whole values, headed by the path of the value they start in', async () => {
    const records = Array.from({ length: 80 }, (_, i) => ({ id: `rec-${i}`, owner: `team ${i % 5}`, note: `Record ${i} stores ${i * 3} rows and expires after ${i + 10} days.` }));
    const text = JSON.stringify({ version: 3, records }, null, 2);
    const chunks = await chunkText(text);
    expect(chunks.length).toBeGreaterThan(3);
    const seen: string[] = [];
    let structured = 0;
    for (const c of chunks) {
      expect(text.slice(c.start, c.end)).toBe(c.raw_text);
      expect(c.tokens).toBeLessThanOrEqual(CHUNK_MAX_TOKENS);
      expect(c.heading).toBe('json $.records');
      // A chunk of the array is a run of whole records: in brackets it parses, and each is the input's
      // (the first chunk starts with the root's `"version": 3, "records": [`).
      const run = JSON.parse(`[${c.raw_text.slice(c.raw_text.indexOf('{')).replace(/,\s*$/, '')}]`) as typeof records;
      for (const r of run) expect(r).toEqual(records[Number(r.id.slice(4))]);
      seen.push(...run.map((r) => r.id));
      // The skeleton is compressed as JSON too: whole records and markers where records were.
      if (c.ordinal === 0) continue;
      const view = JSON.parse(`[${c.skeleton.replace(/\[HIDDEN: [^\]]*\]/g, 'null')}]`) as (typeof records[number] | null)[];
      if (c.tokens > 60) expect(view).toContain(null);
      for (const r of view) if (r) expect(r).toEqual(records[Number(r.id.slice(4))]);
      structured++;
    }
    expect(seen).toEqual(records.map((r) => r.id));
    expect(structured).toBeGreaterThan(3);

    // A chunk that leaves an array for its parent object is made one value again by the brackets open at its ends.
    const small = '{"a": [{"id": 1}, {"id": "x]}"}], "b": 2, "c": [3]}';
    const brackets = new JsonBrackets(small);
    const [from, to] = [small.indexOf('{"id": "x'), small.indexOf(', "c"')];
    const wrap = wrapJson(brackets.at(from)!, brackets.at(to)!);
    expect(wrap).toEqual({ prefix: '{"":[', suffix: '}' });
    expect(JSON.parse(wrap.prefix + small.slice(from, to) + wrap.suffix)).toEqual({ '': [{ id: 'x]}' }], b: 2 });
    expect(new JsonBrackets(small).at(small.indexOf('x]'))).toBeNull();

    // XML: chunks are runs of whole test cases; the skeleton keeps whole ones (failures among them) and
    // names the ones it hides, every other line an input line.
    const report = junitReport(400);
    const xchunks = await chunkText(report);
    expect(xchunks.length).toBeGreaterThan(3);
    const reportLines = new Set(report.split('\n').map((l) => l.trim()));
    let hiddenCases = 0;
    for (const c of xchunks) {
      expect(report.slice(c.start, c.end)).toBe(c.raw_text);
      if (c.ordinal > 0) {
        expect(c.heading).toBe('xml $.testsuites.testsuite');
        expect(c.raw_text).toMatch(/^<testcase /);
      }
      if (c.tokens <= 60) continue;
      for (const line of c.skeleton.split('\n')) {
        const m = /^\s*\[HIDDEN: (\d+) items?, \d+ tokens\]$/.exec(line);
        if (m) hiddenCases += Number(m[1]);
        else expect(reportLines.has(line.trim()), line).toBe(true);
      }
    }
    expect(hiddenCases).toBeGreaterThan(200);

    const yaml = Array.from({ length: 30 }, (_, i) => [`service_${i}:`, `  image: registry.example/app-${i}:1.${i}`, '  ports:', `    - "${8000 + i}:80"`, '  environment:', `    LOG_LEVEL: ${i % 2 ? 'debug' : 'info'}`, `    WORKERS: ${i + 1}`].join('\n')).join('\n');
    const ychunks = await chunkText(yaml);
    expect(ychunks.length).toBeGreaterThan(1);
    for (const c of ychunks) {
      expect(c.heading).toBe('yaml $');
      // Each chunk starts at a service's key and ends with a whole service.
      expect(c.raw_text).toMatch(/^service_\d+:/);
      expect(c.raw_text.trimEnd()).toMatch(/WORKERS: \d+$/);
      // Its skeleton keeps services whole (their keys with them) and names the ones it hides.
      expect(c.skeleton).toMatch(/^service_\d+:\n  image: /);
      expect(c.skeleton).toMatch(/\[HIDDEN: \d+ keys?, \d+ tokens\]/);
    }
  });
});

describe('chunking what a reader sees', () => {
  /** Every word of a chunk's text is in its span of the text as sent (markup stripped), and spans come in order. */
  function expectSpans(sent: string, chunks: Awaited<ReturnType<typeof chunkText>>, strip: (span: string) => string) {
    let prev = 0;
    for (const c of chunks) {
      expect(c.start).toBeGreaterThanOrEqual(prev);
      expect(c.end).toBeGreaterThan(c.start);
      prev = c.end;
      const span = strip(sent.slice(c.start, c.end));
      for (const w of c.raw_text.match(/[A-Za-z][A-Za-z0-9_]{3,}/g) ?? []) expect(span, w).toContain(w);
    }
  }

  it('an HTML page: chunks of its text (no tags, scripts or empty list items), headed by its headings, spans in the page', async () => {
    const page = readFileSync(resolve(process.cwd(), 'node_modules/uWebSockets.js/docs/generated/interfaces/HttpResponse.html'), 'utf8');
    const chunks = await chunkText(page);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.length).toBeLessThan(20);
    for (const c of chunks) {
      expect(c.tokens).toBeLessThanOrEqual(CHUNK_MAX_TOKENS);
      expect(c.raw_text).not.toMatch(/<\/?[a-z]+[\s>]|^- *$/m);
      expect(c.skeleton).not.toMatch(/<\/?[a-z]+[\s>]/);
    }
    expectSpans(page, chunks, (s) => s.replace(/<[^>]*>/g, ''));
    expect(chunks.map((c) => c.raw_text).join('')).toContain('### close\n\n- close(): HttpResponse\n- Immediately force closes the connection.');
    expect(chunks.filter((c) => c.heading?.startsWith('Interface HttpResponse › Methods › ')).length).toBeGreaterThan(5);
  });

  it('terminal output: chunks without escapes, spans holding them', async () => {
    const lines = Array.from({ length: 300 }, (_, i) => `\x1b[2m12:00:${String(i % 60).padStart(2, '0')}\x1b[0m \x1b[${i % 7 ? 32 : 31}m${i % 7 ? 'INFO' : 'ERROR'}\x1b[0m worker-${i % 4} handled job ${1000 + i} in ${i % 90} ms`);
    const log = lines.join('\n');
    const chunks = await chunkText(log);
    expect(chunks.length).toBeGreaterThan(2);
    for (const c of chunks) {
      expect(c.raw_text).not.toContain('\x1b');
      expect(log.slice(c.start, c.end)).toContain('\x1b[');
    }
    expectSpans(log, chunks, (s) => s.replace(/\x1b\[[0-9;]*m/g, ''));
    expect(chunks.map((c) => c.raw_text).join('\n')).toContain('ERROR worker-0 handled job 1000 in 0 ms');
  });
});

describe('unified diff', () => {
  it('matches diff -u hunks', () => {
    const d = unifiedDiff({ from: 'a\nb\nc\n', to: 'a\nB\nc\nd\n', fromLabel: 'x', toLabel: 'y' });
    expect(d.unified_diff).toBe('--- x\n+++ y\n@@ -1,3 +1,4 @@\n a\n-b\n+B\n c\n+d\n');
    expect(d).toMatchObject({ added_lines: 2, removed_lines: 1 });
    expect(unifiedDiff({ from: 'same\n', to: 'same\n' }).unified_diff).toBe('');
    const far = unifiedDiff({ from: Array.from({ length: 30 }, (_, i) => `l${i}`).join('\n'), to: Array.from({ length: 30 }, (_, i) => (i === 2 || i === 25 ? `X${i}` : `l${i}`)).join('\n') });
    expect(far.unified_diff.match(/^@@/gm)).toHaveLength(2);
  });
});

describe('lexical index and project index', () => {
  it('ranks by BM25 and forgets removed labels', () => {
    const lex = new LexicalIndex();
    lex.add(0, 'the quick brown fox');
    lex.add(1, 'vacuum removes dead tuples');
    lex.add(2, 'dead tuples and more dead tuples');
    expect(lex.search('dead tuples', 5).labels).toEqual([2, 1]);
    lex.remove(2);
    expect(lex.search('dead tuples', 5).labels).toEqual([1]);
  });

  it('saves and loads a snapshot with identical search results', () => {
    const dims = 16;
    const idx = ProjectIndex.create(dims);
    const n = 3000;
    const vectors = new Float32Array(n * dims);
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5;
    for (let i = 0; i < vectors.length; i++) vectors[i] = rnd();
    const labels = Int32Array.from({ length: n }, (_, i) => i);
    idx.add(labels, vectors, Array.from({ length: n }, (_, i) => `doc ${i} term${i % 17}`));
    idx.remove([5, 6, 7]);
    idx.generation = 42;
    const q = Array.from(vectors.subarray(5 * dims, 6 * dims));
    const before = idx.searchVector(q, 10);
    expect(before.labels).not.toContain(5);
    const dir = mkdtempSync(join(tmpdir(), 'kb-snap-'));
    try {
      idx.save(dir, 'p1');
      const loaded = ProjectIndex.load(dir, 'p1')!;
      expect(loaded.generation).toBe(42);
      expect(loaded.count).toBe(n - 3);
      expect(loaded.searchVector(q, 10).labels).toEqual(before.labels);
      expect(loaded.searchLexical('term3', 5).labels).toEqual(idx.searchLexical('term3', 5).labels);
      expect(ProjectIndex.load(dir, 'missing')).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

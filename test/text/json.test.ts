// JSON sent to the text engine (workers/text/json.ts): units are whole values. Cut as prose, a pretty
// array of issues came back as issue 1000's opening fields, a marker, and issue 1002's closing
// sentence, which read as one record: `"body": "When the parser receives 0 fields … [… 266 tokens]
// Steps: run the CLI with --fields 2."`.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compressText } from '../../workers/text/index.js';
import { countTokens } from '../../workers/shared/tokens.js';

const AREAS = ['parser', 'router', 'cache', 'pool'];
const ISSUES = Array.from({ length: 60 }, (_, i) => ({
  id: 1000 + i,
  title: `Fix ${AREAS[i % 4]} crash when input has ${i} fields`,
  state: i % 3 ? 'open' : 'closed',
  labels: i % 5 ? ['bug'] : ['bug', 'p1'],
  user: { login: `user${i % 7}`, id: 500 + (i % 7) },
  created_at: `2026-03-${String(1 + (i % 28)).padStart(2, '0')}T10:00:00Z`,
  body: `When the ${AREAS[i % 4]} receives ${i} fields it throws TypeError: cannot read properties of undefined (reading 'x${i}'). Steps: run the CLI with --fields ${i}.`,
}));
const LEVELS = ['outline', 'balanced', 'detailed'] as const;
const MARKER = /\[… [^\]\n]*tokens?(?: #\d{12}\.\d+)?\]/g;

/** What each marker of a result hides, in output order. */
const hiddenOf = (text: string, spans: number[]) => Array.from({ length: spans.length / 2 }, (_, n) => text.slice(spans[2 * n], spans[2 * n + 1]));

describe('JSON: whole values, honest markers', () => {
  for (const [shape, text] of [['pretty', JSON.stringify(ISSUES, null, 2)], ['minified', JSON.stringify(ISSUES)]] as const) {
    it(`${shape} array of records: every record kept is whole and in order, every marker stands for whole records`, async () => {
      let lastKept = -1;
      for (const fidelity of LEVELS) {
        const r = await compressText({ text, fidelity, markerIds: true });
        expect(r.savings_percent, fidelity).toBeGreaterThan(fidelity === 'detailed' ? 20 : 50);
        // Markers stand where array elements stood: with each one as `null` the output is JSON again.
        const parsed = JSON.parse(r.compressed_text.replace(MARKER, 'null')) as (typeof ISSUES[number] | null)[];
        const kept = parsed.filter((x) => x !== null);
        expect(kept.length, fidelity).toBeGreaterThan(2);
        for (const rec of kept) expect(rec, fidelity).toEqual(ISSUES[rec!.id - 1000]);
        expect(kept.map((x) => x!.id)).toEqual([...kept.map((x) => x!.id)].sort((a, b) => a - b));
        // Each marker says how many records it hides, and hides exactly those.
        const markers = [...r.compressed_text.matchAll(MARKER)].map((m) => m[0]);
        const hidden = hiddenOf(text, r.markers!.spans);
        expect(hidden.length).toBe(markers.length);
        markers.forEach((m, n) => {
          const records = JSON.parse(`[${hidden[n]}]`) as typeof ISSUES;
          expect(m, hidden[n]!.slice(0, 80)).toContain(`${records.length} item${records.length === 1 ? '' : 's'} (${records[0]!.id}`);
          expect(Math.abs(countTokens(hidden[n]!) - Number(/(\d+) tokens/.exec(m)![1]))).toBeLessThanOrEqual(Math.max(3, countTokens(hidden[n]!) * 0.02));
        });
        // Levels nest: each keeps at least as many records as the one below it.
        expect(kept.length, fidelity).toBeGreaterThan(lastKept);
        lastKept = kept.length;
      }
    });
  }

  it('a query keeps the record it is about, whole', async () => {
    const text = JSON.stringify(ISSUES, null, 2);
    const r = await compressText({ text, fidelity: 'outline', query: 'cache crash with 22 fields', markerIds: true });
    const parsed = JSON.parse(r.compressed_text.replace(MARKER, 'null')) as (typeof ISSUES[number] | null)[];
    expect(parsed.find((x) => x?.id === 1022)).toEqual(ISSUES[22]);
  });

  it('a large record is opened: hidden members are named by key, hidden records by their name field, a long string is cut into sentences', async () => {
    // The Chrome DevTools protocol description: domains, each with types, commands and events.
    const text = readFileSync(resolve(process.cwd(), 'node_modules/devtools-protocol/json/js_protocol.json'), 'utf8');
    const r = await compressText({ text, fidelity: 'outline', markerIds: true });
    expect(r.savings_percent).toBeGreaterThan(80);
    const markers = [...r.compressed_text.matchAll(MARKER)].map((m) => m[0]);
    const hidden = hiddenOf(text, r.markers!.spans);
    let keys = 0;
    let labels = 0;
    markers.forEach((m, n) => {
      const h = hidden[n]!;
      const names = /^\[… ([^\]]*?): \d+ tokens/.exec(m)![1]!;
      const items = /^(\d+) items? \((.+?)(?:, …)?\)$/.exec(names);
      if (items) {
        // `[… 8 items (disable, enable, …): …]`: the first hidden record's name is the first shown.
        expect(h.trimStart().startsWith('{'), m).toBe(true);
        expect(h.slice(0, 200), m).toContain(`"${items[2]!.split(', ')[0]}"`);
        labels++;
      } else if (!/^\d+ (?:items?|keys?|sentences?)$/.test(names)) {
        // `[… parameters, returns: …]`: object members by key, the first one first.
        expect(h.startsWith(`"${names.split(/, | \+/)[0]}"`), `${m} hides ${h.slice(0, 40)}`).toBe(true);
        keys++;
      }
    });
    expect(keys).toBeGreaterThan(3);
    expect(labels).toBeGreaterThan(3);
    // Every output line outside the markers is an input line, or its start (a string cut at a sentence).
    for (const line of r.compressed_text.split('\n')) {
      const bare = line.replace(MARKER, '').trimEnd();
      if (bare.trim() === '' || bare.trim() === ',') continue;
      expect(text.includes(bare.split(' [… ')[0]!), line).toBe(true);
    }
    // A description longer than a unit is cut into sentences; its key stays in front of what is kept.
    const long = JSON.stringify({ title: 'notes', body: readFileSync(resolve(process.cwd(), 'docs/markers.md'), 'utf8') }, null, 2);
    const s = await compressText({ text: long, fidelity: 'balanced', markerIds: true });
    expect(s.compressed_text.startsWith('{\n  "title": "notes",\n  "body": "# Navigable elision markers')).toBe(true);
    expect(s.compressed_text).toMatch(/\[… \d+ sentences: \d+ tokens #\d{12}\.\d+\]/);
    expect(s.compressed_text.endsWith('"\n}')).toBe(true);
  });

  it('JSON Lines: every line is an input line or a marker, and every error entry of a log is kept', async () => {
    const lines = Array.from({ length: 300 }, (_, i) =>
      JSON.stringify({
        ts: `2026-11-27T10:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z`,
        level: i % 37 === 5 ? 'error' : 'info',
        msg: i % 37 === 5 ? `upstream timeout after 30000 ms calling payments-api /v2/charge (attempt ${(i % 3) + 1})` : `GET /v1/items/${i} 200 ${5 + (i % 40)}ms`,
        req_id: `r-${(i * 7919).toString(16)}`,
      }),
    );
    const text = lines.join('\n') + '\n';
    const input = new Set(lines);
    const r = await compressText({ text, fidelity: 'balanced', markerIds: true });
    expect(r.savings_percent).toBeGreaterThan(60);
    for (const line of r.compressed_text.split('\n')) {
      if (line === '') continue;
      expect(input.has(line) || new RegExp(`^${MARKER.source}$`).test(line), line).toBe(true);
    }
    const errors = lines.filter((l) => l.includes('"error"'));
    expect(errors.length).toBe(8);
    for (const e of errors) expect(r.compressed_text, e).toContain(e);
  });

  it('hostile and borderline input: deep nesting, a long run of numbers, text that only looks like JSON', async () => {
    // Opened 8 levels deep, then one unit (test/text/hostile-markup.test.ts holds its scans linear).
    const deep = '['.repeat(50_000) + ']'.repeat(50_000);
    const d = await compressText({ text: deep, fidelity: 'balanced', markerIds: true });
    expect(d.compressed_tokens).toBeLessThan(30);
    expect(deep.slice(d.markers!.spans[0], d.markers!.spans[1]).length).toBeGreaterThan(99_000);

    const numbers = JSON.stringify(Array.from({ length: 5000 }, (_, i) => i * 3));
    const n = await compressText({ text: numbers, fidelity: 'balanced', markerIds: true });
    expect(n.savings_percent).toBeGreaterThan(50);
    expect(JSON.parse(n.compressed_text.replace(MARKER, 'null')).length).toBeLessThan(5000);

    // A Markdown line that starts with a link, and JSON cut off mid-way, are prose.
    for (const text of ['[Install](#install) the package first. '.repeat(60), '{"a": 1, "b": [' + '"x", '.repeat(400)]) {
      const p = await compressText({ text, fidelity: 'outline', markerIds: true });
      expect(p.compressed_text).not.toMatch(/\[… \d+ items?\b/);
      expect(p.savings_percent).toBeGreaterThan(0);
    }
  });
});

// Adjacent kept units keep the text between them: a line break and its indentation stay (JSON, logs,
// wrapped prose), where they used to be joined with a space ("status": "disabled", "tags": [).
import { describe, expect, it } from 'vitest';
import { compressText } from '../../workers/text/index.js';
import { MARKER } from './helpers.js';

const items = Array.from({ length: 40 }, (_, i) => ({ id: 1000 + i, name: `item-${i}`, status: i % 3 ? 'active' : 'disabled', tags: ['a', 'b'], owner: { login: `user${i % 5}`, id: i * 7 } }));
const JSON_TEXT = JSON.stringify(items, null, 2);

describe('layout of kept text', () => {
  it('every output line of pretty-printed JSON is verbatim input text, markers aside (no two lines joined)', async () => {
    for (const fidelity of ['outline', 'balanced', 'detailed'] as const) {
      const r = await compressText({ text: JSON_TEXT, fidelity, markerIds: true });
      expect(r.savings_percent, fidelity).toBeGreaterThan(40);
      // Text between markers, line by line (an inline marker stands between two pieces of a paragraph).
      const pieces = r.compressed_text.split('\n').flatMap((l) => l.split(MARKER)).map((p) => p.trimEnd()).filter((p) => p.trim() !== '');
      expect(pieces.length, fidelity).toBeGreaterThan(5);
      // The one space the renderer puts after an inline marker is not input text.
      for (const p of pieces) expect(JSON_TEXT.includes(p.replace(/^ (?=\S)/, '')), `${fidelity}: ${p}`).toBe(true);
    }
  });

  it('JSON and logs keep whole lines: a marker stands on its own line, every other line is an input line', async () => {
    const log = Array.from({ length: 300 }, (_, i) => {
      const t = `2026-11-27T10:${String(Math.floor(i / 60)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z`;
      return i % 37 === 5
        ? `${t} ERROR worker-${i % 4} job ${9000 + i} failed: ECONNRESET after ${i * 3} ms (retry ${i % 3}/3)`
        : `${t} INFO  worker-${i % 4} job ${9000 + i} done in ${(i * 13) % 500} ms, queue depth ${i % 17}`;
    }).join('\n');
    const marker = new RegExp(MARKER.source); // MARKER is global: test() would carry lastIndex over
    for (const text of [JSON_TEXT, log]) {
      const lines = new Set(text.split('\n'));
      for (const fidelity of ['outline', 'balanced', 'detailed'] as const) {
        const r = await compressText({ text, fidelity, markerIds: true });
        expect(r.savings_percent, fidelity).toBeGreaterThan(40);
        let markers = 0;
        for (const line of r.compressed_text.split('\n')) {
          if (line.trim() === '') continue;
          if (marker.test(line)) {
            markers++;
            // In JSON a marker stands for whole values, and keeps the comma that followed the last.
            expect(line.trim(), `${fidelity}: a marker inside a line`).toMatch(new RegExp(`^${MARKER.source},?$`));
          } else expect(lines.has(line), `${fidelity}: not an input line: ${line}`).toBe(true);
        }
        expect(markers, fidelity).toBeGreaterThan(0);
      }
    }
  });
});

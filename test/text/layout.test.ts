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
});

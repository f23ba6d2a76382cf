// Terminal escapes in a text to compress: the engine compresses the text without them, and marker
// spans map back to the bytes sent (escapes right before a hidden span belong to it).
import { describe, expect, it } from 'vitest';
import { withoutAnsi } from '../../workers/shared/ansi.js';
import { compressText } from '../../workers/text/index.js';
import { countTokens } from '../../workers/shared/tokens.js';

describe('terminal escapes', () => {
  it('withoutAnsi maps offsets of the clean text back to the text as sent', () => {
    const sent = 'a\x1b[1mb\x1b[0m c\x1b]8;;https://x.io\x07d';
    const u = withoutAnsi(sent)!;
    expect(u.text).toBe('ab cd');
    // Offset k of the clean text, with the escapes right before it on the sent side.
    expect([0, 1, 2, 3, 4, 5].map(u.originalOffset)).toEqual([0, 1, 6, 11, 12, sent.length]);
    for (const [s, e] of [[1, 2], [0, 5], [2, 4]] as const) expect(sent.slice(u.originalOffset(s), u.originalOffset(e)).replace(/\x1b\[[0-9;]*m|\x1b\][^\x07]*\x07/g, '')).toBe(u.text.slice(s, e));
    expect(withoutAnsi('plain text')).toBeNull();
  });

  it('the engine answers without escapes, counts the tokens sent, and its layout points into the text sent', async () => {
    const sent = Array.from({ length: 200 }, (_, i) => `\x1b[32mok\x1b[39m job ${i} finished in \x1b[33m${(i * 37) % 900} ms\x1b[39m on worker-${i % 4}`).join('\n');
    const r = await compressText({ text: sent, fidelity: 'balanced', markerIds: true });
    expect(r.compressed_text).not.toContain('\x1b');
    expect(r.original_tokens).toBe(countTokens(sent));
    const spans = r.markers!.spans;
    for (let k = 0; k < spans.length; k += 2) {
      const hidden = sent.slice(spans[k], spans[k + 1]);
      expect(hidden.startsWith('\x1b[32mok') || /^\S/.test(hidden), hidden.slice(0, 40)).toBe(true);
    }
  });
});

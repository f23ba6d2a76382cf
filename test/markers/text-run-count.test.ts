// A text marker announces the tokens of the span its id expands to (docs/markers.md): the markup
// between two hidden units counts, what stands before the first hidden unit does not, also at unit 0.
import { describe, expect, it } from 'vitest';
import { parseBlocks } from '../../workers/shared/markdown.js';
import { countTokens } from '../../workers/shared/tokens.js';
import { markerFor } from '../../workers/text/render.js';
import { countSpans } from '../../workers/text/tokencount.js';
import { buildUnits } from '../../workers/text/units.js';

const TEXT = '---\n\n- The first item says one thing about the service.\n- The second item says another thing.\n\nA closing sentence.\n';

describe('text marker counts', () => {
  it('a run starting at the first unit counts its span, not the rule and bullet before it', () => {
    const blocks = parseBlocks(TEXT);
    const units = buildUnits(TEXT, blocks);
    const { perSpan: tokens, gaps } = countSpans(TEXT, units, 'cl100k_base');
    expect(gaps[0]).toBeGreaterThan(0); // the document opens with markup no unit holds
    const sk = { text: TEXT, blocks, units, tokens, gaps };
    for (const [from, to] of [[0, 0], [0, 1], [1, 1], [1, 2]] as const) {
      const hidden = countTokens(TEXT.slice(units[from]!.start, units[to]!.end), 'cl100k_base');
      const announced = Number(/(\d+) tokens?\]$/.exec(markerFor(sk, from, to))![1]);
      expect(Math.abs(announced - hidden), `units ${from}..${to}`).toBeLessThanOrEqual(1);
    }
  });
});

// Detail retention without a query (issue 23): plain mode spends its budget on units holding names,
// numbers and code spans nothing kept holds yet.
import { describe, expect, it } from 'vitest';
import { compressText } from '../../workers/text/index.js';
import { unitDetails } from '../../workers/text/details.js';
import { parseBlocks } from '../../workers/shared/markdown.js';
import { buildUnits } from '../../workers/text/units.js';
import { factRetention } from '../../bench/quality/facts.js';
import { realDoc } from './helpers.js';

describe('details without a query', () => {
  it('a real README (not in the tuning corpus) keeps over 40% of its distinct names and numbers at balanced', async () => {
    const text = realDoc('node_modules/ioredis/README.md');
    const r = await compressText({ text, fidelity: 'balanced' });
    const f = factRetention(text, r.compressed_text);
    expect(r.savings_percent).toBeGreaterThan(78);
    expect(f.kept / f.total).toBeGreaterThan(0.4);
  });

  it('the same name in two units is one detail; a hyphenated word is none, a --flag is one', () => {
    const text = 'Set `max` to 10 with --verbose.\n\nThe `max` value is a well-known default of 10.';
    const units = buildUnits(text, parseBlocks(text));
    const [a, b] = unitDetails(text, units);
    expect(a!.length).toBe(3);
    expect(b).toEqual([a![0], a![2]]);
  });
});

// Anaphora (issue 48): a kept sentence that points back ("these numbers", "It also…") keeps the
// sentence it points to, or is not kept.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compressText } from '../../workers/text/index.js';
import { parseBlocks } from '../../workers/shared/markdown.js';
import { buildUnits } from '../../workers/text/units.js';
import { LEVELS, corpusFiles, sampleOf } from '../../bench/quality/properties.js';
import { realDoc } from './helpers.js';

const sentence = (text: string, u: { start: number; end: number }) => text.slice(u.start, u.end).trim();

describe('sentences that point back', () => {
  it('need the sentence before them in their paragraph, not a heading', () => {
    const text = '# Results\n\nThis tool measures latency. The table lists 10 samples. With longer durations these numbers will differ more. It also prints a histogram.\n\nThey are sampled once per second.\n\n## Next\n\nThese options come last.';
    const units = buildUnits(text, parseBlocks(text));
    const needs = (s: string) => {
      const u = units.find((x) => sentence(text, x).startsWith(s))!;
      return u.requires.map((r) => sentence(text, units[r]!));
    };
    expect(needs('With longer durations')).toEqual(['The table lists 10 samples.']);
    expect(needs('It also prints')).toEqual(['With longer durations these numbers will differ more.']);
    expect(needs('They are sampled')).toEqual(['It also prints a histogram.']);
    // Right after a heading there is nothing to point back to; the title's lead is not tied to anything.
    expect(needs('These options come last')).toEqual([]);
    expect(needs('This tool measures')).toEqual([]);
    expect(needs('The table lists')).toEqual([]);
  });

  it('autocannon: wherever "these numbers will differ more" is kept, the samples sentence before it is too', async () => {
    const text = realDoc('node_modules/autocannon/README.md');
    for (const fidelity of LEVELS) {
      for (const query of [undefined, 'How do longer durations change these numbers?']) {
        const out = (await compressText({ text, fidelity, query })).compressed_text;
        if (out.includes('With longer durations these numbers will differ more.')) expect(out, `${fidelity} ${query ?? ''}`).toContain('Since we only ran for 10 seconds');
      }
    }
    const queried = (await compressText({ text, fidelity: 'abstract', query: 'How do longer durations change these numbers?' })).compressed_text;
    expect(queried).toContain('With longer durations these numbers will differ more.');
  });

  it('over 150 installed READMEs and docs at every level: no kept pointing-back sentence without its antecedent', async () => {
    const bad: string[] = [];
    let pointing = 0;
    for (const f of sampleOf(corpusFiles(), 150)) {
      const text = readFileSync(f, 'utf8');
      for (const fidelity of LEVELS) {
        await compressText({ text, fidelity }, {
          onTrace: (t) => {
            t.units.forEach((u, i) => {
              if (u.kind !== 'sentence' || !t.kept[i] || !u.requires.length) return;
              pointing++;
              for (const r of u.requires) if (!t.kept[r]) bad.push(`${fidelity} ${f}: ${sentence(t.text, u).slice(0, 60)}`);
            });
          },
        });
      }
    }
    expect(pointing).toBeGreaterThan(100);
    expect(bad.slice(0, 10), `${bad.length} kept alone`).toEqual([]);
  }, 600_000);
});

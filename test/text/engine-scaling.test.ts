// The engine's work must grow about linearly with the text. Held by counting work (graph postings
// visited, edges), never by timing: the machine is shared.
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBlocks } from '../../workers/shared/markdown.js';
import { buildUnits } from '../../workers/text/units.js';
import { Vocabulary, terms } from '../../workers/text/terms.js';
import { similarityGraph } from '../../workers/text/graph.js';
import { countTokens } from '../../workers/shared/tokens.js';

/** Installed packages' READMEs in name order: real, varied text, as much as needed. */
function realText(tokens: number): string {
  const root = resolve(process.cwd(), 'node_modules');
  const parts: string[] = [];
  let total = 0;
  for (const d of readdirSync(root).sort()) {
    if (d.startsWith('.') || d.startsWith('@')) continue;
    try {
      const t = readFileSync(resolve(root, d, 'README.md'), 'utf8');
      parts.push(t);
      total += t.length / 4;
    } catch {
      continue;
    }
    if (total >= tokens) break;
  }
  return parts.join('\n\n');
}

function graphOf(text: string) {
  const units = buildUnits(text, parseBlocks(text));
  const vocab = new Vocabulary();
  const docs = units.map((u) => vocab.encodeSpan(text, u.start, u.end));
  const g = similarityGraph(docs, vocab.size);
  let edges = 0;
  for (const nb of g.neighbors) edges += nb.length;
  return { n: units.length, visits: g.visits, edges, docs, units, vocab };
}

describe('engine scaling', () => {
  it('term ids scanned in place equal the terms of each unit', () => {
    const text = realText(20_000) + '\n\nÜnïcödé “quotes”: Заголовок и текст, 中文句子, 𝒳𝒴 astral and snake_case camelCase.';
    const { docs, units, vocab } = graphOf(text);
    const again = new Vocabulary();
    units.forEach((u, i) => expect(again.encode(terms(text.slice(u.start, u.end)))).toEqual(docs[i]));
    expect(again.size).toBe(vocab.size);
  });

  it('the similarity graph does work per unit that stays flat as the text grows 16-fold', () => {
    const small = graphOf(realText(10_000));
    const large = graphOf(realText(160_000));
    expect(large.n).toBeGreaterThan(12 * small.n);
    // All pairs would make the work per unit grow with n (16x here); postings capped per term keep it flat.
    const perUnitSmall = small.visits / small.n;
    const perUnitLarge = large.visits / large.n;
    expect(perUnitLarge).toBeLessThan(2 * perUnitSmall);
    // Top-k neighbours, symmetrised: at most 2k edge ends per unit.
    expect(large.edges).toBeLessThanOrEqual(2 * 8 * large.n);
    expect(countTokens(realText(160_000))).toBeGreaterThan(100_000);
  });

  it('a text where every unit shares the same words still builds in linear work', () => {
    // Identical units are the worst case for an inverted index: every term is in every unit.
    const text = Array.from({ length: 2_000 }, (_, i) => `Worker ${i % 7} reads the queue and limits the pool size.`).join('\n\n');
    const g = graphOf(text);
    expect(g.n).toBe(2_000);
    expect(g.visits).toBeLessThanOrEqual(64 * 12 * g.n);
  });
});

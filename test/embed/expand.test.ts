import { describe, expect, it } from 'vitest';
import { TermNeighbours, expandQuery } from '../../bench/embeddings/expand.js';

// Toy word vectors (unit length): sort ~ sorted ~ order, list apart, "zzz" maps to zero.
const V: Record<string, number[]> = {
  sort: [1, 0, 0],
  sorted: [0.96, 0.28, 0],
  order: [0.8, 0.6, 0],
  list: [0, 0, 1],
  sorting: [0.98, 0, 0.2],
};
const embed = async (texts: string[]) =>
  texts.map((t) => {
    const v = Float32Array.from(V[t] ?? [0, 0, 0]);
    const n = Math.hypot(...v);
    return n > 0 ? v.map((x) => x / n) : v;
  });

describe('BM25 query expansion with word neighbours (bench)', () => {
  it('indexes non-zero terms once and finds neighbours above the threshold, best first', async () => {
    const idx = await TermNeighbours.build(['sort', 'sorted', 'order', 'list', 'zzz', 'sort'], embed);
    expect(idx.size).toBe(4);
    const [v] = await idx.vectors(['sort']);
    expect(idx.nearest(v!, 2, 0.5, new Set(['sort'])).map(([w]) => w)).toEqual(['sorted', 'order']);
    expect(idx.nearest(v!, 5, 0.9, new Set(['sort'])).map(([w]) => w)).toEqual(['sorted']);
    expect(idx.nearest(v!, 0, 0)).toEqual([]);
  });

  it('adds neighbours at the given weight, keeps query terms at 1, honours the df scope', async () => {
    const idx = await TermNeighbours.build(['sort', 'sorted', 'order', 'list'], embed);
    const df = (t: string) => ({ sort: 5, sorted: 2, order: 1, list: 50 })[t] ?? 0;
    const all = await expandQuery(['sorting', 'list'], idx, df, 100, { neighbours: 2, threshold: 0.5, weight: 0.3, maxDfShare: 1 });
    expect(Object.fromEntries(all)).toEqual({ sorting: 1, list: 1, sort: 0.3, sorted: 0.3 });
    // Only terms absent from the collection: "sorting" (df 0) is expanded, "sort" (df 5) is not.
    const oov = await expandQuery(['sort', 'sorting'], idx, df, 100, { neighbours: 1, threshold: 0.5, weight: 0.2, maxDfShare: 0 });
    expect(Object.fromEntries(oov)).toEqual({ sort: 1, sorting: 1, sorted: 0.2 });
  });
});

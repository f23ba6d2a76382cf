import { describe, expect, it } from 'vitest';
import { bm25Scores, rankPositive } from '../../workers/shared/bm25.js';
import { reciprocalRankFusion } from '../../workers/shared/rrf.js';
import { pagerank } from '../../workers/shared/pagerank.js';
import { similarityGraph } from '../../workers/text/graph.js';
import { textTasks } from '../../workers/text/tasks.js';

describe('bm25', () => {
  it('ranks the matching document first and leaves non-matching at 0', () => {
    const docs = [['cat', 'sat', 'mat'], ['dog', 'barked'], ['cat', 'cat', 'purred']];
    const s = bm25Scores(docs, ['cat']);
    expect(s[1]).toBe(0);
    expect(rankPositive(s)).toEqual([2, 0]);
  });
  it('rare terms weigh more than common ones', () => {
    const docs = [['common', 'rare'], ['common'], ['common'], ['common', 'other']];
    const s = bm25Scores(docs, ['common', 'rare']);
    expect(rankPositive(s)[0]).toBe(0);
  });
});

describe('reciprocal rank fusion', () => {
  it('uses k = 60 by default and sums over lists', () => {
    const f = reciprocalRankFusion([[2, 0], [0, 1]], 3);
    expect(f[0]).toBeCloseTo(1 / 62 + 1 / 61);
    expect(f[2]).toBeCloseTo(1 / 61);
    expect(f[1]).toBeCloseTo(1 / 62);
  });
  it('applies per-list weights', () => {
    const f = reciprocalRankFusion([[0], [1]], 2, 60, [1, 0.5]);
    expect(f[1]).toBeCloseTo(0.5 / 61);
  });
});

describe('pagerank', () => {
  it('ranks the hub of a star highest and sums to 1', () => {
    const neighbors = [[1, 2, 3], [0], [0], [0]];
    const r = pagerank({ neighbors });
    expect(r[0]).toBeGreaterThan(r[1]!);
    expect(r.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
  });
  it('handles dangling nodes', () => {
    const r = pagerank({ neighbors: [[1], [], [1]] });
    expect(r.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
    expect(r[1]).toBeGreaterThan(r[0]!);
  });
});

describe('similarity graph', () => {
  it('links documents that share rare terms, symmetrically', () => {
    // term ids: 0 shared by docs 0 and 1; 1,2,3 unique
    const g = similarityGraph([[0, 1], [0, 2], [3]], 4);
    expect(g.neighbors[0]).toContain(1);
    expect(g.neighbors[1]).toContain(0);
    expect(g.neighbors[2]).toEqual([]);
  });
});

describe('worker tasks', () => {
  it('exposes compress and recommend with structured-cloneable results', async () => {
    const r = await textTasks.compress({ text: '# T\n\nOne sentence here. Another one there.', fidelity: 'balanced' });
    expect(structuredClone(r)).toEqual(r);
    const rec = textTasks.recommend({ text: 'hello' });
    expect(structuredClone(rec)).toEqual(rec);
    expect(rec.recommended_fidelity).toBe('detailed');
  });
});

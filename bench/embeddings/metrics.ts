// Evaluation measures used by run.ts.

/** Probability that a random positive scores above a random negative (ties count half). */
export function auc(pos: number[], neg: number[]): number {
  let s = 0;
  for (const p of pos) for (const n of neg) s += p > n ? 1 : p === n ? 0.5 : 0;
  return s / (pos.length * neg.length);
}

export const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/** Indices by descending score. */
export function rank(scores: ArrayLike<number>): number[] {
  return Array.from({ length: scores.length }, (_, i) => i).sort((a, b) => scores[b]! - scores[a]! || a - b);
}

/** Share of queries with at least one relevant passage in the top k. */
export function recallAt(rankings: number[][], relevant: Set<number>[], k: number): number {
  return mean(rankings.map((r, i) => (r.slice(0, k).some((d) => relevant[i]!.has(d)) ? 1 : 0)));
}

/** Mean reciprocal rank of the first relevant passage, cut at 10. */
export function mrrAt10(rankings: number[][], relevant: Set<number>[]): number {
  return mean(
    rankings.map((r, i) => {
      const p = r.slice(0, 10).findIndex((d) => relevant[i]!.has(d));
      return p < 0 ? 0 : 1 / (p + 1);
    }),
  );
}

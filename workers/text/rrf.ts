// Reciprocal rank fusion: combines rankings without calibrating their score scales.

export const RRF_K = 60;

/**
 * Fuse rankings (each a list of item ids, best first; items may be missing from a list)
 * into one score per item: sum over lists of weight / (k + rank), rank starting at 1.
 */
export function reciprocalRankFusion(
  rankings: readonly (readonly number[])[],
  n: number,
  k = RRF_K,
  weights?: readonly number[],
): Float64Array {
  const fused = new Float64Array(n);
  rankings.forEach((ranking, l) => {
    const w = weights?.[l] ?? 1;
    ranking.forEach((id, r) => {
      fused[id] += w / (k + r + 1);
    });
  });
  return fused;
}

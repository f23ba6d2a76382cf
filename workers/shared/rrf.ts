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
      fused[id] = fused[id]! + w / (k + r + 1);
    });
  });
  return fused;
}

/**
 * Weights for fusing one lexical (BM25) ranking with one dense (embedding) ranking of the same
 * passages by RRF, as the Knowledge Hub's hybrid search does (BM25 + HNSW over chunks). Chosen on
 * the dev split of bench/embeddings (glove-sif-100d over pydoc passages): equal weights fell below
 * BM25 alone; a dense weight of 0.2 gave the best dev recall@5 with MRR@10 not below BM25's
 * (docs/embeddings.md). The text engine keeps its own weights (query.ts RRF_WEIGHTS): its lists
 * are sentences plus a section list, and 0.2 there lowered bench:quality retention.
 */
export const HYBRID_RRF_WEIGHTS = { lexical: 1, dense: 0.2 } as const;

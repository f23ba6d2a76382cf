// Near-duplicate detection for ACE playbooks over unit embedding vectors (cosine = dot product).
// Pure functions: the pool task (tasks.ts) embeds, these compare.

function dot(a: Float32Array, ao: number, b: Float32Array, bo: number, dims: number): number {
  let s = 0;
  for (let k = 0; k < dims; k++) s += a[ao + k]! * b[bo + k]!;
  return s;
}

export interface CandidateMatch {
  /** Best existing bullet (corpus position) and its similarity; null when the corpus is empty. */
  corpus: number | null;
  corpus_similarity: number;
  /** An earlier candidate of the same batch at or over the threshold (the batch is deduplicated too). */
  candidate: number | null;
  candidate_similarity: number;
}

/**
 * For each candidate: its nearest corpus vector, and the first earlier candidate at or over the
 * threshold. Candidates and corpus are row-major unit vectors of `dims` values.
 */
export function matchCandidates(candidates: Float32Array[], corpus: Float32Array, n: number, dims: number, threshold: number): CandidateMatch[] {
  return candidates.map((c, i) => {
    let best = -1;
    let bestSim = -Infinity;
    for (let d = 0; d < n; d++) {
      const s = dot(c, 0, corpus, d * dims, dims);
      if (s > bestSim) [best, bestSim] = [d, s];
    }
    let earlier: number | null = null;
    let earlierSim = 0;
    for (let j = 0; j < i; j++) {
      const s = dot(c, 0, candidates[j]!, 0, dims);
      if (s >= threshold && s > earlierSim) [earlier, earlierSim] = [j, s];
    }
    return {
      corpus: best >= 0 ? best : null,
      corpus_similarity: best >= 0 ? round(bestSim) : 0,
      candidate: earlier,
      candidate_similarity: round(earlierSim),
    };
  });
}

export interface Cluster {
  /** The bullet kept (the earliest in corpus order). */
  keep: number;
  /** Bullets merged into it, each with its similarity to the kept one. */
  merged: { index: number; similarity: number }[];
}

/**
 * Groups of near-duplicates: in corpus order, each bullet not yet grouped keeps every later ungrouped
 * bullet at or over the threshold to it. Similarity is measured to the kept bullet only (no chaining:
 * a chain of small steps never merges two bullets that are far apart).
 */
export function clusters(corpus: Float32Array, n: number, dims: number, threshold: number): Cluster[] {
  const taken = new Uint8Array(n);
  const out: Cluster[] = [];
  for (let i = 0; i < n; i++) {
    if (taken[i]) continue;
    const merged: { index: number; similarity: number }[] = [];
    for (let j = i + 1; j < n; j++) {
      if (taken[j]) continue;
      const s = dot(corpus, i * dims, corpus, j * dims, dims);
      if (s >= threshold) {
        taken[j] = 1;
        merged.push({ index: j, similarity: round(s) });
      }
    }
    if (merged.length) out.push({ keep: i, merged });
  }
  return out;
}

function round(x: number): number {
  return Math.round(x * 10000) / 10000;
}

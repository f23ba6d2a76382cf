/**
 * Weighted PageRank over a directed graph given as adjacency lists (node -> [target, weight]).
 * Dangling mass is spread uniformly; stops when the L1 change drops below tol.
 */
export function pagerank(n: number, out: Array<Array<[number, number]>>, damping = 0.85, iterations = 50, tol = 1e-9): Float64Array {
  let rank = new Float64Array(n).fill(n > 0 ? 1 / n : 0);
  if (n === 0) return rank;
  const outWeight = new Float64Array(n);
  for (let i = 0; i < n; i++) for (const [, w] of out[i] ?? []) outWeight[i]! += w;
  for (let it = 0; it < iterations; it++) {
    const next = new Float64Array(n);
    let dangling = 0;
    for (let i = 0; i < n; i++) {
      const r = rank[i]!;
      const total = outWeight[i]!;
      if (total === 0) {
        dangling += r;
        continue;
      }
      for (const [j, w] of out[i]!) next[j]! += (damping * r * w) / total;
    }
    const base = (1 - damping + damping * dangling) / n;
    let delta = 0;
    for (let i = 0; i < n; i++) {
      next[i]! += base;
      delta += Math.abs(next[i]! - rank[i]!);
    }
    rank = next;
    if (delta < tol) break;
  }
  return rank;
}

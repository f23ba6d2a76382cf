// Weighted PageRank over a sparse adjacency list (TextRank when nodes are sentences).

export interface SparseGraph {
  /** neighbors[i] lists the nodes i links to. */
  neighbors: readonly (readonly number[])[];
  /** weights[i][k] is the weight of the edge i -> neighbors[i][k]; 1 when omitted. */
  weights?: readonly (readonly number[])[];
}

export interface PageRankOptions {
  damping?: number;
  maxIterations?: number;
  tolerance?: number;
  /**
   * Teleport distribution (personalised PageRank): random jumps, and dangling mass, land on node i
   * with probability personalization[i] / sum. Uniform when omitted or all zero.
   */
  personalization?: ArrayLike<number>;
}

export function pagerank(graph: SparseGraph, opts: PageRankOptions = {}): Float64Array {
  const d = opts.damping ?? 0.85;
  const maxIt = opts.maxIterations ?? 40;
  const tol = opts.tolerance ?? 1e-6;
  const n = graph.neighbors.length;
  let rank = new Float64Array(n).fill(n ? 1 / n : 0);
  if (n === 0) return rank;
  const teleport = teleportOf(opts.personalization, n);
  const outW = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const ws = graph.weights?.[i];
    const nb = graph.neighbors[i]!;
    let s = 0;
    for (let k = 0; k < nb.length; k++) s += ws ? ws[k]! : 1;
    outW[i] = s;
  }
  let next = new Float64Array(n);
  for (let it = 0; it < maxIt; it++) {
    // Dangling nodes spread their mass uniformly so ranks stay a distribution.
    let dangling = 0;
    for (let i = 0; i < n; i++) if (outW[i] === 0) dangling += rank[i]!;
    if (teleport) for (let i = 0; i < n; i++) next[i] = ((1 - d) + d * dangling) * teleport[i]!;
    else next.fill((1 - d) / n + (d * dangling) / n);
    for (let i = 0; i < n; i++) {
      if (outW[i] === 0) continue;
      const share = (d * rank[i]!) / outW[i]!;
      const nb = graph.neighbors[i]!;
      const ws = graph.weights?.[i];
      for (let k = 0; k < nb.length; k++) next[nb[k]!] = next[nb[k]!]! + share * (ws ? ws[k]! : 1);
    }
    let delta = 0;
    for (let i = 0; i < n; i++) delta += Math.abs(next[i]! - rank[i]!);
    [rank, next] = [next, rank];
    if (delta < tol) break;
  }
  return rank;
}

function teleportOf(p: ArrayLike<number> | undefined, n: number): Float64Array | null {
  if (!p) return null;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += Math.max(0, p[i] ?? 0);
  if (!(sum > 0)) return null;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.max(0, p[i] ?? 0) / sum;
  return out;
}

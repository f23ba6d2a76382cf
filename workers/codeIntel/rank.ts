// PageRank of the index's unit graph over flat typed arrays (compressed sparse rows): the same
// iteration as workers/shared/pagerank.ts with CODE_PAGERANK's settings, in the same order of
// summation (so the same numbers), without an array per node. The incremental index recomputes it
// after every change (gc_orient's orientation asks for it), where the array-of-arrays version spent
// most of its time allocating and collecting.
import { CODE_PAGERANK, type UnitEdge } from '../code/graph.js';

export function unitPagerank(n: number, edges: UnitEdge[]): Float64Array {
  const d = 0.85;
  const maxIt = CODE_PAGERANK.maxIterations;
  const tol = CODE_PAGERANK.tolerance;
  let rank = new Float64Array(n).fill(n ? 1 / n : 0);
  if (n === 0) return rank;
  // Rows in node order, each row's edges in the order they appear in `edges` (as adjacency() does).
  const start = new Int32Array(n + 1);
  for (const e of edges) start[e.from + 1]!++;
  for (let i = 0; i < n; i++) start[i + 1]! += start[i]!;
  const fill = start.slice(0, n);
  const to = new Int32Array(edges.length);
  const w = new Float64Array(edges.length);
  for (const e of edges) {
    const k = fill[e.from]!++;
    to[k] = e.to;
    w[k] = e.weight;
  }
  const outW = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let k = start[i]!; k < start[i + 1]!; k++) s += w[k]!;
    outW[i] = s;
  }
  // Nodes without out-links (their mass is spread uniformly) and the others, each in ascending order.
  let nDangling = 0;
  for (let i = 0; i < n; i++) if (outW[i] === 0) nDangling++;
  const dangle = new Int32Array(nDangling);
  const linked = new Int32Array(n - nDangling);
  for (let i = 0, a = 0, b = 0; i < n; i++) {
    if (outW[i] === 0) dangle[a++] = i;
    else linked[b++] = i;
  }
  let next = new Float64Array(n);
  for (let it = 0; it < maxIt; it++) {
    let dangling = 0;
    for (let x = 0; x < dangle.length; x++) dangling += rank[dangle[x]!]!;
    next.fill((1 - d) / n + (d * dangling) / n);
    for (let x = 0; x < linked.length; x++) {
      const i = linked[x]!;
      const share = (d * rank[i]!) / outW[i]!;
      for (let k = start[i]!; k < start[i + 1]!; k++) next[to[k]!] = next[to[k]!]! + share * w[k]!;
    }
    let delta = 0;
    for (let i = 0; i < n; i++) delta += Math.abs(next[i]! - rank[i]!);
    [rank, next] = [next, rank];
    if (delta < tol) break;
  }
  return rank;
}

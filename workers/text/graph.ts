// Sparse TF-IDF cosine similarity graph (top-k neighbours), built through an inverted index
// so cost grows with postings, not with n^2.
import type { SparseGraph } from '../shared/pagerank.js';

export interface SimilarityGraphOptions {
  topK?: number;
  minSimilarity?: number;
  /** Terms in more documents than this are skipped: low idf, and their postings dominate cost. */
  maxDf?: number;
}

export interface SimilarityGraph extends SparseGraph {
  neighbors: number[][];
  weights: number[][];
}

/** docs are lists of integer term ids (repeats = term frequency); vocabSize bounds the ids. */
export function similarityGraph(docs: readonly (readonly number[])[], vocabSize: number, opts: SimilarityGraphOptions = {}): SimilarityGraph {
  const n = docs.length;
  const topK = opts.topK ?? 8;
  const minSim = opts.minSimilarity ?? 0.05;
  const maxDf = opts.maxDf ?? 64;
  const df = new Int32Array(vocabSize);
  const vecTerms: Int32Array[] = new Array(n);
  const vecW: Float64Array[] = new Array(n);
  for (let i = 0; i < n; i++) {
    // Sorted ids give term frequencies without a Map per document.
    const sorted = Int32Array.from(docs[i]!).sort();
    const ts: number[] = [];
    const tf: number[] = [];
    for (let k = 0; k < sorted.length; k++) {
      if (k > 0 && sorted[k] === sorted[k - 1]) tf[tf.length - 1]!++;
      else {
        ts.push(sorted[k]!);
        tf.push(1);
        df[sorted[k]!]!++;
      }
    }
    vecTerms[i] = Int32Array.from(ts);
    vecW[i] = Float64Array.from(tf);
  }
  // CSR postings over useful terms only, with L2-normalised tf-idf weights.
  const useful = (t: number) => df[t]! > 1 && df[t]! <= maxDf;
  const offset = new Int32Array(vocabSize + 1);
  for (let t = 0; t < vocabSize; t++) offset[t + 1] = offset[t]! + (useful(t) ? df[t]! : 0);
  const fill = offset.slice(0, vocabSize);
  const postDoc = new Int32Array(offset[vocabSize]!);
  const postW = new Float64Array(offset[vocabSize]!);
  for (let i = 0; i < n; i++) {
    const ts = vecTerms[i]!;
    const ws = vecW[i]!;
    let norm = 0;
    for (let k = 0; k < ts.length; k++) {
      const w = (1 + Math.log(ws[k]!)) * Math.log((n + 1) / (df[ts[k]!]! + 0.5));
      ws[k] = w;
      norm += w * w;
    }
    norm = Math.sqrt(norm) || 1;
    for (let k = 0; k < ts.length; k++) {
      ws[k] = ws[k]! / norm;
      const t = ts[k]!;
      if (useful(t)) {
        postDoc[fill[t]!] = i;
        postW[fill[t]!++] = ws[k]!;
      }
    }
  }
  const neighbors: number[][] = Array.from({ length: n }, () => []);
  const weights: number[][] = Array.from({ length: n }, () => []);
  const acc = new Float64Array(n);
  const touched: number[] = [];
  for (let i = 0; i < n; i++) {
    const ts = vecTerms[i]!;
    const ws = vecW[i]!;
    for (let k = 0; k < ts.length; k++) {
      const t = ts[k]!;
      const w = ws[k]!;
      for (let q = offset[t]!, end = offset[t + 1]!; q < end; q++) {
        const j = postDoc[q]!;
        if (j === i) continue;
        if (acc[j] === 0) touched.push(j);
        acc[j] = acc[j]! + w * postW[q]!;
      }
    }
    // Top-k by insertion into a short sorted list: cheaper than sorting every candidate.
    const nb = neighbors[i]!;
    const wt = weights[i]!;
    for (const j of touched) {
      const v = acc[j]!;
      if (v < minSim || (nb.length === topK && v <= wt[topK - 1]!)) continue;
      let p = nb.length === topK ? topK - 1 : nb.length;
      while (p > 0 && wt[p - 1]! < v) {
        nb[p] = nb[p - 1]!;
        wt[p] = wt[p - 1]!;
        p--;
      }
      nb[p] = j;
      wt[p] = v;
    }
    for (const j of touched) acc[j] = 0;
    touched.length = 0;
  }
  // Symmetrise so PageRank sees an undirected graph.
  for (let i = 0; i < n; i++) {
    const len = neighbors[i]!.length;
    for (let k = 0; k < len; k++) {
      const j = neighbors[i]![k]!;
      if (!neighbors[j]!.includes(i)) {
        neighbors[j]!.push(i);
        weights[j]!.push(weights[i]![k]!);
      }
    }
  }
  return { neighbors, weights };
}

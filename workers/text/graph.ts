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
  /** Postings visited while scoring candidates: the build's work, linear in the text (tests hold it so). */
  visits: number;
}

/** docs are lists of integer term ids (repeats = term frequency); vocabSize bounds the ids. */
export function similarityGraph(docs: readonly (readonly number[])[], vocabSize: number, opts: SimilarityGraphOptions = {}): SimilarityGraph {
  const n = docs.length;
  const topK = opts.topK ?? 8;
  const minSim = opts.minSimilarity ?? 0.05;
  const maxDf = opts.maxDf ?? 64;
  const df = new Int32Array(vocabSize);
  // Each document's distinct terms and weights, packed one after another (from[i]..from[i + 1]).
  let total = 0;
  let longest = 0;
  for (let i = 0; i < n; i++) {
    total += docs[i]!.length;
    longest = Math.max(longest, docs[i]!.length);
  }
  const from = new Int32Array(n + 1);
  const vecTerms = new Int32Array(total);
  const vecW = new Float64Array(total);
  const scratch = new Int32Array(longest);
  let at = 0;
  for (let i = 0; i < n; i++) {
    // Sorted ids give term frequencies without a Map per document.
    const doc = docs[i]!;
    for (let k = 0; k < doc.length; k++) scratch[k] = doc[k]!;
    const sorted = scratch.subarray(0, doc.length).sort();
    for (let k = 0; k < sorted.length; k++) {
      if (k > 0 && sorted[k] === sorted[k - 1]) vecW[at - 1]!++;
      else {
        vecTerms[at] = sorted[k]!;
        vecW[at++] = 1;
        df[sorted[k]!]!++;
      }
    }
    from[i + 1] = at;
  }
  // CSR postings over useful terms only, with L2-normalised tf-idf weights.
  const offset = new Int32Array(vocabSize + 1);
  for (let t = 0; t < vocabSize; t++) {
    const d = df[t]!;
    offset[t + 1] = offset[t]! + (d > 1 && d <= maxDf ? d : 0);
  }
  const fill = offset.slice(0, vocabSize);
  const postDoc = new Int32Array(offset[vocabSize]!);
  const postW = new Float64Array(offset[vocabSize]!);
  const idf = new Float64Array(vocabSize);
  for (let t = 0; t < vocabSize; t++) idf[t] = Math.log((n + 1) / (df[t]! + 0.5));
  for (let i = 0; i < n; i++) {
    let norm = 0;
    for (let k = from[i]!; k < from[i + 1]!; k++) {
      const w = (vecW[k] === 1 ? 1 : 1 + Math.log(vecW[k]!)) * idf[vecTerms[k]!]!;
      vecW[k] = w;
      norm += w * w;
    }
    norm = Math.sqrt(norm) || 1;
    for (let k = from[i]!; k < from[i + 1]!; k++) {
      vecW[k] = vecW[k]! / norm;
      const t = vecTerms[k]!;
      if (offset[t + 1]! > offset[t]!) {
        postDoc[fill[t]!] = i;
        postW[fill[t]!++] = vecW[k]!;
      }
    }
  }
  // Each node's top-k candidates, best first, in flat typed arrays (slot i * topK + rank).
  const topNb = new Int32Array(n * topK);
  const topW = new Float64Array(n * topK);
  const topLen = new Int32Array(n);
  /** Keeps the topK best candidates of one node, best first (insertion into a short sorted list). */
  const offer = (i: number, j: number, v: number): void => {
    const base = i * topK;
    const len = topLen[i]!;
    if (len === topK && v <= topW[base + topK - 1]!) return;
    let p = len === topK ? topK - 1 : len;
    if (len < topK) topLen[i] = len + 1;
    while (p > 0 && topW[base + p - 1]! < v) {
      topNb[base + p] = topNb[base + p - 1]!;
      topW[base + p] = topW[base + p - 1]!;
      p--;
    }
    topNb[base + p] = j;
    topW[base + p] = v;
  };
  const acc = new Float64Array(n);
  const touched = new Int32Array(n);
  // Postings list documents in order, so a pair is scored once, from its first document: `next[t]`
  // is where the documents after the current one start in t's postings.
  const next = offset.slice(0, vocabSize);
  let visits = 0;
  for (let i = 0; i < n; i++) {
    let nt = 0;
    for (let k = from[i]!; k < from[i + 1]!; k++) {
      const t = vecTerms[k]!;
      const end = offset[t + 1]!;
      if (end === offset[t]!) continue;
      const w = vecW[k]!;
      const start = ++next[t]!; // past i's own entry
      visits += end - start;
      for (let q = start; q < end; q++) {
        const j = postDoc[q]!;
        if (acc[j] === 0) touched[nt++] = j;
        acc[j] = acc[j]! + w * postW[q]!;
      }
    }
    // Each pair is offered to both of its nodes' top-k lists.
    for (let x = 0; x < nt; x++) {
      const j = touched[x]!;
      const v = acc[j]!;
      acc[j] = 0;
      if (v < minSim) continue;
      offer(i, j, v);
      offer(j, i, v);
    }
  }
  const neighbors: number[][] = new Array(n);
  const weights: number[][] = new Array(n);
  for (let i = 0; i < n; i++) {
    const base = i * topK;
    const nb: number[] = [];
    const wt: number[] = [];
    for (let k = 0; k < topLen[i]!; k++) {
      nb.push(topNb[base + k]!);
      wt.push(topW[base + k]!);
    }
    neighbors[i] = nb;
    weights[i] = wt;
  }
  // Symmetrise so PageRank sees an undirected graph. Only j's own top-k can already hold i (what
  // other nodes add comes from them), so the check stays O(topK) however many nodes link to j.
  for (let i = 0; i < n; i++) {
    const base = i * topK;
    for (let k = 0; k < topLen[i]!; k++) {
      const j = topNb[base + k]!;
      if (!hasIn(topNb, j * topK, topLen[j]!, i)) {
        neighbors[j]!.push(i);
        weights[j]!.push(topW[base + k]!);
      }
    }
  }
  return { neighbors, weights, visits };
}

function hasIn(list: Int32Array, from: number, len: number, x: number): boolean {
  for (let k = from; k < from + len; k++) if (list[k] === x) return true;
  return false;
}

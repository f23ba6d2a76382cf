// Okapi BM25: the one formula behind every lexical ranking (text engine, code search, issue
// detection's alignment, the Knowledge Hub's incremental index). Each caller keeps the data layout
// that suits it (term lists, memoised identifier words, postings) and scores with these functions.

export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

export interface Bm25Options {
  k1?: number;
  b?: number;
}

/** Inverse document frequency of a term found in `docFreq` of `docs` documents (never negative). */
export function bm25Idf(docs: number, docFreq: number): number {
  return Math.log(1 + (docs - docFreq + 0.5) / (docFreq + 0.5));
}

/** One term's contribution to a document's score. */
export function bm25Term(idf: number, tf: number, docLen: number, avgLen: number, k1 = BM25_K1, b = BM25_B): number {
  return (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * docLen) / avgLen));
}

/** BM25 score of every document against the query (0 where nothing matches). */
export function bm25Scores<T>(docs: readonly (readonly T[])[], query: readonly T[], opts: Bm25Options = {}): Float64Array {
  const k1 = opts.k1 ?? BM25_K1;
  const b = opts.b ?? BM25_B;
  const n = docs.length;
  const scores = new Float64Array(n);
  const qset = new Set(query);
  if (n === 0 || qset.size === 0) return scores;
  let totalLen = 0;
  for (const d of docs) totalLen += d.length;
  const avgLen = totalLen / n || 1;
  // Only query terms matter, so term frequencies are collected for those alone.
  const df = new Map<T, number>();
  const tfs: Map<T, number>[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const tf = new Map<T, number>();
    for (const t of docs[i]!) if (qset.has(t)) tf.set(t, (tf.get(t) ?? 0) + 1);
    tfs[i] = tf;
    for (const t of tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  }
  for (let i = 0; i < n; i++) {
    const tf = tfs[i]!;
    if (tf.size === 0) continue;
    let s = 0;
    for (const [t, f] of tf) s += bm25Term(bm25Idf(n, df.get(t)!), f, docs[i]!.length, avgLen, k1, b);
    scores[i] = s;
  }
  return scores;
}

/** Item ids with a positive score, best first (ties by id for determinism). */
export function rankPositive(scores: ArrayLike<number>): number[] {
  const ids: number[] = [];
  for (let i = 0; i < scores.length; i++) if (scores[i]! > 0) ids.push(i);
  return ids.sort((a, b) => scores[b]! - scores[a]! || a - b);
}

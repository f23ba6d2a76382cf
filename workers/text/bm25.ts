// Okapi BM25, generic over the term type so the code engine can reuse it on identifier lists.

export interface Bm25Options {
  k1?: number;
  b?: number;
}

/** BM25 score of every document against the query (0 where nothing matches). */
export function bm25Scores<T>(docs: readonly (readonly T[])[], query: readonly T[], opts: Bm25Options = {}): Float64Array {
  const k1 = opts.k1 ?? 1.2;
  const b = opts.b ?? 0.75;
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
    const norm = k1 * (1 - b + (b * docs[i]!.length) / avgLen);
    let s = 0;
    for (const [t, f] of tf) {
      const d = df.get(t)!;
      const idf = Math.log(1 + (n - d + 0.5) / (d + 0.5));
      s += (idf * f * (k1 + 1)) / (f + norm);
    }
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

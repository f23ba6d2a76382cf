// BM25 over segments with an inverted index (postings per term), so a query touches only the
// segments that share a term with it: no segment x segment cross-product.
import { bm25Idf, bm25Term } from '../shared/bm25.js';
import { terms } from '../text/terms.js';


export interface Hit {
  doc: number;
  score: number;
}

export class SegmentIndex {
  readonly n: number;
  readonly docTerms: string[][];
  private readonly postings = new Map<string, { docs: number[]; tfs: number[] }>();
  private readonly lens: Int32Array;
  private readonly avgLen: number;
  private readonly scores: Float64Array;

  constructor(texts: readonly string[]) {
    this.n = texts.length;
    this.docTerms = texts.map((t) => terms(t));
    this.lens = new Int32Array(this.n);
    let total = 0;
    for (let d = 0; d < this.n; d++) {
      const list = this.docTerms[d]!;
      this.lens[d] = list.length;
      total += list.length;
      const tf = new Map<string, number>();
      for (const t of list) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, f] of tf) {
        let p = this.postings.get(t);
        if (!p) this.postings.set(t, (p = { docs: [], tfs: [] }));
        p.docs.push(d);
        p.tfs.push(f);
      }
    }
    this.avgLen = total / Math.max(1, this.n) || 1;
    this.scores = new Float64Array(this.n);
  }

  df(term: string): number {
    return this.postings.get(term)?.docs.length ?? 0;
  }

  /** Inverse document frequency; unseen terms get the maximum (they are the most informative). */
  idf(term: string): number {
    const d = this.df(term);
    return bm25Idf(this.n, d);
  }

  /** Top-k segments for the query terms, best first (ties by position). */
  search(query: readonly string[], k: number): Hit[] {
    const touched: number[] = [];
    const scores = this.scores;
    for (const t of new Set(query)) {
      const p = this.postings.get(t);
      if (!p) continue;
      const idf = this.idf(t);
      for (let i = 0; i < p.docs.length; i++) {
        const d = p.docs[i]!;
        const f = p.tfs[i]!;
        if (scores[d] === 0) touched.push(d);
        scores[d] = scores[d]! + bm25Term(idf, f, this.lens[d]!, this.avgLen);
      }
    }
    const hits = touched.map((d) => ({ doc: d, score: scores[d]! }));
    for (const d of touched) scores[d] = 0;
    hits.sort((a, b) => b.score - a.score || a.doc - b.doc);
    return hits.slice(0, k);
  }
}

/** Terms that carry words (not bare numbers): alignment runs on these, numbers are checked apart. */
export function wordTerms(list: readonly string[]): string[] {
  return list.filter((t) => !/^\d+$/.test(t));
}

/**
 * IDF-weighted share of the query's distinct word terms present in `support` (a term set).
 * `idf` comes from the index the support was drawn from.
 */
export function coverage(query: readonly string[], support: ReadonlySet<string>, idf: (t: string) => number): { covered: number; missing: string[] } {
  let total = 0;
  let hit = 0;
  const missing: string[] = [];
  for (const t of new Set(query)) {
    const w = idf(t);
    total += w;
    if (support.has(t)) hit += w;
    else missing.push(t);
  }
  return { covered: total > 0 ? hit / total : 1, missing };
}

// BM25 over a fixed set of documentation chunks with the shared formula (workers/shared/bm25.ts).
// Unlike the Knowledge Hub's incremental index it scores every query term: that index skips terms
// found in over a tenth of the chunks (right for large projects), but in a small docs corpus those
// are the words a question is about ("option", "default", "request").
import { bm25Idf, bm25Term } from '../shared/bm25.js';
import { terms } from '../text/terms.js';

export class FieldIndex {
  private readonly postings = new Map<string, { docs: Int32Array; tfs: Uint16Array }>();
  private readonly docLen: Uint16Array;
  private readonly avgLen: number;

  constructor(texts: string[]) {
    const lists = new Map<string, { docs: number[]; tfs: number[] }>();
    this.docLen = new Uint16Array(texts.length);
    let total = 0;
    texts.forEach((text, d) => {
      const ts = terms(text);
      const tf = new Map<string, number>();
      for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, f] of tf) {
        let l = lists.get(t);
        if (!l) lists.set(t, (l = { docs: [], tfs: [] }));
        l.docs.push(d);
        l.tfs.push(Math.min(f, 65535));
      }
      this.docLen[d] = Math.min(ts.length, 65535);
      total += ts.length;
    });
    for (const [t, l] of lists) this.postings.set(t, { docs: Int32Array.from(l.docs), tfs: Uint16Array.from(l.tfs) });
    this.avgLen = texts.length ? total / texts.length || 1 : 1;
  }

  /** Documents `keep` accepts with a positive score, best first (ties: lower index first). */
  rank(queryTerms: string[], keep: (d: number) => boolean): number[] {
    const n = this.docLen.length;
    const scores = new Map<number, number>();
    for (const t of new Set(queryTerms)) {
      const p = this.postings.get(t);
      if (!p) continue;
      const idf = bm25Idf(n, p.docs.length);
      for (let i = 0; i < p.docs.length; i++) {
        const d = p.docs[i]!;
        scores.set(d, (scores.get(d) ?? 0) + bm25Term(idf, p.tfs[i]!, this.docLen[d]!, this.avgLen));
      }
    }
    return [...scores.entries()]
      .filter(([d]) => keep(d))
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .map(([d]) => d);
  }
}

export { terms };

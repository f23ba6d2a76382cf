// Incremental BM25 over a project's chunks: an inverted index keyed by term, postings by label.
// Deleted labels are tombstoned (skipped, and removed from the length statistics).
import { bm25Idf, bm25Term } from '../shared/bm25.js';
import { terms } from '../text/terms.js';

/** Share of documents above which a query term counts as common (see search). */
export const COMMON_SHARE = 0.1;

class Postings {
  labels: Int32Array;
  tfs: Uint16Array;
  n = 0;
  constructor(capacity = 4) {
    this.labels = new Int32Array(capacity);
    this.tfs = new Uint16Array(capacity);
  }
  push(label: number, tf: number): void {
    if (this.n === this.labels.length) {
      const cap = Math.max(4, this.n * 2);
      const l = new Int32Array(cap);
      l.set(this.labels.subarray(0, this.n));
      const t = new Uint16Array(cap);
      t.set(this.tfs.subarray(0, this.n));
      this.labels = l;
      this.tfs = t;
    }
    this.labels[this.n] = label;
    this.tfs[this.n] = Math.min(tf, 65535);
    this.n++;
  }
}

export interface LexicalSnapshot {
  vocab: string[];
  /** Per term: count, then that many labels (concatenated). */
  labels: Int32Array;
  tfs: Uint16Array;
  counts: Int32Array;
  docLen: Uint16Array;
  live: Uint8Array;
}

export class LexicalIndex {
  private postings = new Map<string, Postings>();
  private docLen = new Uint16Array(1024);
  private live = new Uint8Array(1024);
  private liveDocs = 0;
  private totalLen = 0;

  private grow(label: number): void {
    if (label < this.docLen.length) return;
    let cap = this.docLen.length;
    while (cap <= label) cap *= 2;
    const d = new Uint16Array(cap);
    d.set(this.docLen);
    const l = new Uint8Array(cap);
    l.set(this.live);
    this.docLen = d;
    this.live = l;
  }

  has(label: number): boolean {
    return label < this.live.length && this.live[label] === 1;
  }

  add(label: number, text: string): void {
    if (this.has(label)) return;
    this.grow(label);
    const ts = terms(text);
    const tf = new Map<string, number>();
    for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, f] of tf) {
      let p = this.postings.get(t);
      if (!p) this.postings.set(t, (p = new Postings()));
      p.push(label, f);
    }
    const len = Math.min(ts.length, 65535);
    this.docLen[label] = len;
    this.live[label] = 1;
    this.liveDocs++;
    this.totalLen += len;
  }

  remove(label: number): void {
    if (!this.has(label)) return;
    this.live[label] = 0;
    this.liveDocs--;
    this.totalLen -= this.docLen[label]!;
  }

  get size(): number {
    return this.liveDocs;
  }

  /** Scratch accumulator indexed by label (kept zeroed between searches). */
  private acc = new Float64Array(0);

  /** Top `k` live labels by BM25 against `query`, best first. Typed accumulator + bounded heap. */
  search(query: string, k: number): { labels: number[]; scores: number[] } {
    const qterms = [...new Set(terms(query))];
    const n = this.liveDocs;
    if (n === 0 || qterms.length === 0 || k <= 0) return { labels: [], scores: [] };
    if (this.acc.length < this.live.length) this.acc = new Float64Array(this.live.length);
    const acc = this.acc;
    const live = this.live;
    const docLen = this.docLen;
    const avg = this.totalLen / n || 1;
    const touched: number[] = [];
    // Terms in more than COMMON_SHARE of the documents discriminate little but cost the most
    // (their postings are the longest): they are scored only when the query has nothing rarer,
    // and then only the two least common of them.
    const present = qterms.map((t) => this.postings.get(t)).filter((p): p is Postings => !!p);
    const rare = present.filter((p) => p.n <= COMMON_SHARE * n);
    const scored = rare.length ? rare : present.sort((x, y) => x.n - y.n).slice(0, 2);
    for (const p of scored) {
      // df counts tombstoned postings too; that only dampens idf a little.
      const df = Math.min(p.n, n);
      const idf = bm25Idf(n, df);
      const labels = p.labels;
      const tfs = p.tfs;
      for (let i = 0; i < p.n; i++) {
        const label = labels[i]!;
        if (live[label] !== 1) continue;
        const f = tfs[i]!;
        if (acc[label] === 0) touched.push(label);
        acc[label] = acc[label]! + bm25Term(idf, f, docLen[label]!, avg);
      }
    }
    // Bounded min-heap of the k best (score, label).
    const heapS = new Float64Array(k);
    const heapL = new Int32Array(k);
    let size = 0;
    const better = (s1: number, l1: number, s2: number, l2: number) => s1 > s2 || (s1 === s2 && l1 < l2);
    const siftDown = (i: number) => {
      for (;;) {
        const l = 2 * i + 1, r = l + 1;
        let m = i;
        if (l < size && better(heapS[m]!, heapL[m]!, heapS[l]!, heapL[l]!)) m = l;
        if (r < size && better(heapS[m]!, heapL[m]!, heapS[r]!, heapL[r]!)) m = r;
        if (m === i) return;
        const ts = heapS[i]!, tl = heapL[i]!;
        heapS[i] = heapS[m]!; heapL[i] = heapL[m]!;
        heapS[m] = ts; heapL[m] = tl;
        i = m;
      }
    };
    for (const label of touched) {
      const sc = acc[label]!;
      acc[label] = 0;
      if (size < k) {
        let i = size++;
        heapS[i] = sc; heapL[i] = label;
        while (i > 0) {
          const parent = (i - 1) >> 1;
          if (!better(heapS[parent]!, heapL[parent]!, heapS[i]!, heapL[i]!)) break;
          const ts = heapS[i]!, tl = heapL[i]!;
          heapS[i] = heapS[parent]!; heapL[i] = heapL[parent]!;
          heapS[parent] = ts; heapL[parent] = tl;
          i = parent;
        }
      } else if (better(sc, label, heapS[0]!, heapL[0]!)) {
        heapS[0] = sc; heapL[0] = label;
        siftDown(0);
      }
    }
    const out: [number, number][] = [];
    for (let i = 0; i < size; i++) out.push([heapL[i]!, heapS[i]!]);
    out.sort((x, y) => y[1] - x[1] || x[0] - y[0]);
    return { labels: out.map((e) => e[0]), scores: out.map((e) => e[1]) };
  }

  snapshot(): LexicalSnapshot {
    const vocab: string[] = [];
    const counts: number[] = [];
    let total = 0;
    for (const [t, p] of this.postings) {
      vocab.push(t);
      counts.push(p.n);
      total += p.n;
    }
    const labels = new Int32Array(total);
    const tfs = new Uint16Array(total);
    let at = 0;
    for (const p of this.postings.values()) {
      labels.set(p.labels.subarray(0, p.n), at);
      tfs.set(p.tfs.subarray(0, p.n), at);
      at += p.n;
    }
    return { vocab, labels, tfs, counts: Int32Array.from(counts), docLen: this.docLen, live: this.live };
  }

  static restore(s: LexicalSnapshot): LexicalIndex {
    const x = new LexicalIndex();
    let at = 0;
    s.vocab.forEach((t, i) => {
      const n = s.counts[i]!;
      const p = new Postings(0);
      p.labels = s.labels.slice(at, at + n);
      p.tfs = s.tfs.slice(at, at + n);
      p.n = n;
      x.postings.set(t, p);
      at += n;
    });
    x.docLen = Uint16Array.from(s.docLen);
    x.live = Uint8Array.from(s.live);
    if (x.docLen.length === 0) {
      x.docLen = new Uint16Array(1024);
      x.live = new Uint8Array(1024);
    }
    for (let i = 0; i < x.live.length; i++) {
      if (x.live[i] === 1) {
        x.liveDocs++;
        x.totalLen += x.docLen[i]!;
      }
    }
    return x;
  }
}

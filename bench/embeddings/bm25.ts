// Okapi BM25 (k1 = 1.2, b = 0.75) over lowercase word tokens: the lexical baseline.
const STOP = new Set(
  'a an the of to in on at for by with and or is are was were be been it its this that as from what which how why when do does can i'.split(' '),
);

export function bm25Tokens(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).filter((t) => !STOP.has(t));
}

export class Bm25 {
  private readonly docs: Map<string, number>[];
  private readonly lens: number[];
  private readonly dfs = new Map<string, number>();
  private readonly avg: number;

  /** `tokens` splits text into terms (default: bm25Tokens; tune.ts also tries the product's terms()). */
  constructor(texts: string[], private readonly k1 = 1.2, private readonly b = 0.75, readonly tokens: (text: string) => string[] = bm25Tokens) {
    this.docs = texts.map((t) => {
      const tf = new Map<string, number>();
      for (const w of tokens(t)) tf.set(w, (tf.get(w) ?? 0) + 1);
      for (const w of tf.keys()) this.dfs.set(w, (this.dfs.get(w) ?? 0) + 1);
      return tf;
    });
    this.lens = texts.map((t) => tokens(t).length);
    this.avg = this.lens.reduce((a, b) => a + b, 0) / Math.max(1, texts.length);
  }

  get size(): number {
    return this.docs.length;
  }
  /** Number of passages containing `term` (0 when absent). */
  df(term: string): number {
    return this.dfs.get(term) ?? 0;
  }
  /** Every term of the collection. */
  vocabulary(): string[] {
    return [...this.dfs.keys()];
  }

  scores(query: string): Float64Array {
    return this.weightedScores(new Map([...new Set(this.tokens(query))].map((t) => [t, 1])));
  }

  /** BM25 with a weight per query term: sum over terms of weight * idf * tf part. */
  weightedScores(query: ReadonlyMap<string, number>): Float64Array {
    const N = this.docs.length;
    const out = new Float64Array(N);
    for (const [q, w] of query) {
      const df = this.dfs.get(q);
      if (!df || w <= 0) continue;
      const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
      this.docs.forEach((tf, i) => {
        const f = tf.get(q);
        if (f) out[i]! += (w * idf * f * (this.k1 + 1)) / (f + this.k1 * (1 - this.b + (this.b * this.lens[i]!) / this.avg));
      });
    }
    return out;
  }
}

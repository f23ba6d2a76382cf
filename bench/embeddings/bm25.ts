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
  private readonly df = new Map<string, number>();
  private readonly avg: number;

  constructor(texts: string[], private readonly k1 = 1.2, private readonly b = 0.75) {
    this.docs = texts.map((t) => {
      const tf = new Map<string, number>();
      for (const w of bm25Tokens(t)) tf.set(w, (tf.get(w) ?? 0) + 1);
      for (const w of tf.keys()) this.df.set(w, (this.df.get(w) ?? 0) + 1);
      return tf;
    });
    this.lens = texts.map((t) => bm25Tokens(t).length);
    this.avg = this.lens.reduce((a, b) => a + b, 0) / Math.max(1, texts.length);
  }

  scores(query: string): Float64Array {
    const N = this.docs.length;
    const out = new Float64Array(N);
    for (const q of new Set(bm25Tokens(query))) {
      const df = this.df.get(q);
      if (!df) continue;
      const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
      this.docs.forEach((tf, i) => {
        const f = tf.get(q);
        if (f) out[i]! += (idf * f * (this.k1 + 1)) / (f + this.k1 * (1 - this.b + (this.b * this.lens[i]!) / this.avg));
      });
    }
    return out;
  }
}

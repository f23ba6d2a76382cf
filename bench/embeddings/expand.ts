// Query expansion for BM25 with an embedding model's word neighbours: each query term may bring in
// its nearest collection terms (cosine of the terms embedded alone), down-weighted, so a query that
// says "sorting" can also match a passage that says "sorted" or "order". Measured on
// bench/embeddings (docs/embeddings.md, "What was tried"): it did not improve the fused ranking,
// so it lives here, not in the product.
//
// Cost: building the neighbour index embeds every candidate term once (one embed call per
// vocabulary, not per query); a query then embeds only its own terms that are not in the index and
// scans the index once per expanded term (V x dims multiply-adds).

/** Embeds texts into L2-normalised vectors (an Embedder's `embed`). */
export type EmbedTexts = (texts: string[]) => Promise<Float32Array[]>;

export interface ExpansionOptions {
  /** Neighbours added per query term (at most). */
  neighbours: number;
  /** Minimum cosine between a query term and a neighbour. */
  threshold: number;
  /** BM25 weight of an added term; the query's own terms weigh 1. */
  weight: number;
  /**
   * Expand a query term only when it occurs in at most this share of the documents (1: every
   * term; 0: only terms the collection does not contain).
   */
  maxDfShare: number;
}

/** Nearest-neighbour index over a collection's terms, built once per vocabulary. */
export class TermNeighbours {
  private readonly row = new Map<string, number>();
  private readonly cache = new Map<string, Float32Array>();

  private constructor(
    readonly words: readonly string[],
    private readonly vecs: Float32Array,
    readonly dims: number,
    private readonly embed: EmbedTexts,
  ) {
    words.forEach((w, i) => this.row.set(w, i));
  }

  /** Embeds each candidate term alone; terms the model maps to a zero vector are left out. */
  static async build(words: readonly string[], embed: EmbedTexts): Promise<TermNeighbours> {
    const uniq = [...new Set(words)];
    const vs = uniq.length ? await embed(uniq) : [];
    const dims = vs[0]?.length ?? 0;
    const keep: string[] = [];
    const rows: Float32Array[] = [];
    uniq.forEach((w, i) => {
      const v = vs[i]!;
      let n = 0;
      for (let d = 0; d < dims; d++) n += v[d]! * v[d]!;
      if (n > 0) {
        keep.push(w);
        rows.push(v);
      }
    });
    const vecs = new Float32Array(keep.length * dims);
    rows.forEach((v, i) => vecs.set(v, i * dims));
    return new TermNeighbours(keep, vecs, dims, embed);
  }

  get size(): number {
    return this.words.length;
  }

  /** Vectors of `terms` (from the index when present, else embedded and cached). */
  async vectors(terms: readonly string[]): Promise<Float32Array[]> {
    const missing = [...new Set(terms.filter((t) => !this.row.has(t) && !this.cache.has(t)))];
    if (missing.length) {
      const vs = await this.embed(missing);
      if (this.cache.size + missing.length > 10_000) this.cache.clear();
      missing.forEach((t, i) => this.cache.set(t, vs[i]!));
    }
    return terms.map((t) => {
      const r = this.row.get(t);
      return r !== undefined ? this.vecs.subarray(r * this.dims, (r + 1) * this.dims) : this.cache.get(t)!;
    });
  }

  /** Up to `n` index terms with cosine >= `threshold` to `v`, best first, skipping `skip`. */
  nearest(v: Float32Array, n: number, threshold: number, skip: ReadonlySet<string> = new Set()): [string, number][] {
    const D = this.dims, vecs = this.vecs;
    const best: [string, number][] = [];
    if (n <= 0 || v.length !== D) return best;
    for (let i = 0, o = 0; i < this.words.length; i++, o += D) {
      let s = 0;
      for (let d = 0; d < D; d++) s += v[d]! * vecs[o + d]!;
      if (s < threshold || (best.length === n && s <= best[n - 1]![1])) continue;
      const w = this.words[i]!;
      if (skip.has(w)) continue;
      let j = best.length < n ? best.length : n - 1;
      best[j] = [w, s];
      while (j > 0 && best[j - 1]![1] < s) {
        [best[j - 1], best[j]] = [best[j]!, best[j - 1]!];
        j--;
      }
    }
    return best;
  }
}

/**
 * Weighted BM25 query: the query's own terms with weight 1, plus up to `neighbours` index terms per
 * eligible query term at `weight` (a term reached from two query terms keeps one weight).
 * `df(term)` is the term's document frequency in the collection, `docs` the collection size.
 */
export async function expandQuery(
  queryTerms: readonly string[],
  index: TermNeighbours,
  df: (term: string) => number,
  docs: number,
  opt: ExpansionOptions,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const t of queryTerms) out.set(t, 1);
  const own = new Set(out.keys());
  const eligible = [...own].filter((t) => (opt.maxDfShare >= 1 ? true : df(t) <= opt.maxDfShare * docs));
  if (!eligible.length || opt.neighbours <= 0 || opt.weight <= 0) return out;
  const vs = await index.vectors(eligible);
  for (const v of vs)
    for (const [w] of index.nearest(v, opt.neighbours, opt.threshold, own)) out.set(w, Math.max(out.get(w) ?? 0, opt.weight));
  return out;
}

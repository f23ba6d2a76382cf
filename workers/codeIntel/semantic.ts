// The dense half of search_code: one embedding per definition (its name split into words, its
// signature and the first lines of its docstring), kept in the code-intelligence thread beside the
// index. Vectors are cached by text, so after an incremental update only new or changed
// definitions are embedded; the embedding happens on the first search after a change, so indexing
// time does not grow with it.
import { getEmbedder } from '../embed/index.js';
import { splitIdentifier } from '../code/text.js';
import type { CodeUnit } from '../code/types.js';

/** Characters of a docstring that go into a definition's text (its summary lines). */
const DOC_CHARS = 300;
/** How many nearest definitions the dense ranking contributes to the fusion. */
export const DENSE_CANDIDATES = 200;
/**
 * RRF weights of search_code's two rankings. Chosen on the dev half of bench/codeintel/search.ts
 * (natural-language questions over the Python standard library); docs/code-intelligence.md has the figures.
 */
export const SEARCH_RRF_WEIGHTS = { lexical: 1, dense: 0.2 } as const;
/** Texts per embedder call: bounds one call's memory on a 60k-definition index. */
const EMBED_BATCH = 512;

/** What a definition means, in words: identifier parts, signature, docstring summary. */
export function unitText(u: Pick<CodeUnit, 'qualified' | 'signature' | 'doc'>, path: string): string {
  const name = u.qualified.split(/[.:#/]+/).flatMap((p) => splitIdentifier(p)).join(' ');
  const doc = u.doc ? u.doc.slice(0, DOC_CHARS) : '';
  return `${name}. ${u.signature.slice(0, 200)} ${doc} ${path.replace(/[/_.-]+/g, ' ')}`;
}

export class UnitVectors {
  private cache = new Map<string, Float32Array>();
  private aligned: { texts: readonly string[]; vectors: Float32Array[] } | null = null;

  /** One vector per text, in order; embeds only texts not seen before, and forgets texts no longer present. */
  async align(texts: readonly string[]): Promise<Float32Array[]> {
    if (this.aligned?.texts === texts) return this.aligned.vectors;
    const missing = [...new Set(texts.filter((t) => !this.cache.has(t)))];
    if (missing.length) {
      const embedder = await getEmbedder();
      for (let i = 0; i < missing.length; i += EMBED_BATCH) {
        const batch = missing.slice(i, i + EMBED_BATCH);
        const vs = await embedder.embed(batch);
        batch.forEach((t, j) => this.cache.set(t, vs[j]!));
      }
    }
    const vectors = texts.map((t) => this.cache.get(t)!);
    if (this.cache.size > texts.length) this.cache = new Map(texts.map((t, i) => [t, vectors[i]!]));
    this.aligned = { texts, vectors };
    return vectors;
  }

  /** Unit indexes by cosine to the query (vectors are unit length: a dot product), best first, with their similarity. */
  static async nearest(query: string, vectors: readonly Float32Array[], k = DENSE_CANDIDATES): Promise<Array<[number, number]>> {
    const [q] = await (await getEmbedder()).embed([query]);
    const top: Array<[number, number]> = [];
    for (let i = 0; i < vectors.length; i++) {
      const v = vectors[i]!;
      let dot = 0;
      for (let d = 0; d < v.length; d++) dot += v[d]! * q![d]!;
      if (dot <= 0 || (top.length === k && dot <= top[k - 1]![1])) continue;
      let at = top.length < k ? top.length : k - 1;
      while (at > 0 && top[at - 1]![1] < dot) at--;
      top.splice(at, 0, [i, dot]);
      if (top.length > k) top.pop();
    }
    return top;
  }
}

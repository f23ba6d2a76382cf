// The documentation index held in memory by each pool worker (the index is read-only and small, so
// every worker holds its own copy and any worker can answer): BM25 over chunk titles and texts, a
// brute-force cosine scan over the chunk embeddings, fused by reciprocal rank fusion.
import { getEmbedder } from '../embed/index.js';
import { reciprocalRankFusion, RRF_K } from '../shared/rrf.js';
import { readDocsIndex, type DocsChunk, type DocsFramework, type DocsIndexFile, type DocsPage } from './artefact.js';
import { FieldIndex, terms } from './lexical.js';
import { chunkEmbeddingText } from './pages.js';

/**
 * Fusion settings chosen on the dev split of bench/docslookup (docs/documentation-lookup.md):
 * candidates from each ranking, and the weight of each ranking in the fusion.
 */
export const DOCS_SEARCH = { candidates: 100, lexicalWeight: 1, titleWeight: 0.5, denseWeight: 0.5, inferFrameworks: true };

export type Tuning = Partial<typeof DOCS_SEARCH>;

export interface SearchOptions {
  k: number;
  frameworks?: string[];
  /** Chunk ids never returned (already seen in the MCP session). */
  exclude?: string[];
  /** Overrides of DOCS_SEARCH (the bench's dev-split sweep). */
  tuning?: Tuning;
}

export interface Hit {
  chunk: number;
  /** Fused score scaled to 0..1 (1: first in both rankings). */
  score: number;
  /** Cosine similarity of the query and chunk embeddings. */
  similarity: number;
}

export class DocsIndex {
  private constructor(
    readonly file: DocsIndexFile,
    private readonly vectors: Float32Array,
    readonly dims: number,
    private readonly bodies: FieldIndex,
    private readonly titles: FieldIndex,
    readonly model: string,
    private readonly pageById: Map<string, number>,
    private readonly pageByUrl: Map<string, number>,
  ) {}

  static async load(dir?: string): Promise<DocsIndex> {
    const { file, vectors: stored } = readDocsIndex(dir);
    const embedder = await getEmbedder();
    const names = new Map(file.frameworks.map((f) => [f.id, f.name]));
    const texts = file.chunks.map((c) => chunkEmbeddingText(names.get(file.pages[c.page]!.framework)!, c.title, c.text));
    let vectors = stored;
    // Vectors built with another model (EMBEDDING_MODEL_DIR) are recomputed: about a second.
    if (!vectors || file.embedding.model !== embedder.modelId || file.embedding.dims !== embedder.dims) {
      vectors = new Float32Array(texts.length * embedder.dims);
      for (let i = 0; i < texts.length; i += 256) {
        const vecs = await embedder.embed(texts.slice(i, i + 256));
        vecs.forEach((v, j) => vectors!.set(v, (i + j) * embedder.dims));
      }
    }
    const bodies = new FieldIndex(file.chunks.map((c) => `${c.title}\n${c.text}`));
    const titles = new FieldIndex(file.chunks.map((c) => c.title));
    const pageById = new Map(file.pages.map((p, i) => [p.id.toLowerCase(), i]));
    const pageByUrl = new Map(file.pages.map((p, i) => [p.url, i]));
    return new DocsIndex(file, vectors, embedder.dims, bodies, titles, embedder.modelId, pageById, pageByUrl);
  }

  framework(id: string): DocsFramework | undefined {
    return this.file.frameworks.find((f) => f.id === id);
  }

  chunk(i: number): DocsChunk {
    return this.file.chunks[i]!;
  }

  page(i: number): DocsPage {
    return this.file.pages[i]!;
  }

  /** A page by id (case-insensitive) or by its URL (an anchor or query string is ignored). */
  findPage(ref: { doc_id?: string; url?: string }): number | undefined {
    if (ref.doc_id !== undefined) return this.pageById.get(ref.doc_id.trim().toLowerCase().replace(/#.*$/, ''));
    if (ref.url !== undefined) return this.pageByUrl.get(ref.url.trim().replace(/[#?].*$/, ''));
    return undefined;
  }

  /**
   * Hybrid search. Seen chunks (options.exclude) keep their place in both rankings and are withheld
   * from the answer, so the rest rank exactly as they would for a fresh session; `withheld` counts
   * the seen chunks that ranked above the last one returned (or anywhere, when fewer than k remain).
   */
  async search(query: string, options: SearchOptions): Promise<{ hits: Hit[]; withheld: number }> {
    const tune = { ...DOCS_SEARCH, ...options.tuning };
    const excluded = new Set(options.exclude ?? []);
    let frameworks = options.frameworks?.length ? options.frameworks : null;
    let qterms = terms(query);
    // A question that names frameworks ("... in Fastify?") is about them: search those only, and
    // leave their names out of the lexical query (every chunk of theirs would match them).
    if (!frameworks && tune.inferFrameworks) {
      const named = this.mentioned(query);
      if (named.length) {
        frameworks = named.map((m) => m.id);
        const nameTerms = new Set(named.flatMap((m) => m.terms));
        const rest = qterms.filter((t) => !nameTerms.has(t));
        if (rest.length) qterms = rest;
      }
    }
    const allowed = frameworks ? new Set(frameworks) : null;
    const keep = (i: number) => !allowed || allowed.has(this.file.pages[this.file.chunks[i]!.page]!.framework);
    const depth = tune.candidates + excluded.size;
    const [q] = await (await getEmbedder()).embed([query]);
    const sims = this.cosineAll(q!);
    const dense = topIndices(sims, depth, keep);
    const lex = this.bodies.rank(qterms, keep).slice(0, depth);
    const title = this.titles.rank(qterms, keep).slice(0, depth);
    const weights = [tune.lexicalWeight, tune.titleWeight, tune.denseWeight];
    const fused = reciprocalRankFusion([lex, title, dense], this.file.chunks.length, RRF_K, weights);
    const best = weights.reduce((a, b) => a + b, 0) / (RRF_K + 1);
    const ids = [...new Set([...lex, ...title, ...dense])];
    ids.sort((a, b) => fused[b]! - fused[a]! || sims[b]! - sims[a]! || a - b);
    const hits: Hit[] = [];
    let withheld = 0;
    for (const i of ids) {
      if (hits.length >= options.k) break;
      if (excluded.has(this.file.chunks[i]!.id)) withheld++;
      else hits.push({ chunk: i, score: round(fused[i]! / best), similarity: round(sims[i]!) });
    }
    return { hits, withheld };
  }

  /** Frameworks the query names (id, name, package or alias, as whole words). */
  mentioned(query: string): { id: string; terms: string[] }[] {
    const lower = query.toLowerCase();
    const out: { id: string; terms: string[] }[] = [];
    for (const f of this.file.frameworks) {
      const names = [f.id, f.name, f.package, ...f.aliases].map((n) => n.toLowerCase());
      const hit = names.filter((n) => new RegExp(`(^|[^\\p{L}\\p{N}_.@/-])${escapeRegExp(n)}($|[^\\p{L}\\p{N}_-])`, 'u').test(lower));
      if (hit.length) out.push({ id: f.id, terms: hit.flatMap((n) => terms(n)) });
    }
    return out;
  }

  private cosineAll(q: Float32Array): Float32Array {
    const n = this.file.chunks.length;
    const d = this.dims;
    const out = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      let s = 0;
      const o = i * d;
      for (let j = 0; j < d; j++) s += this.vectors[o + j]! * q[j]!;
      out[i] = s;
    }
    return out;
  }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const round = (x: number) => Math.round(x * 10_000) / 10_000;

/** Indices of the `k` largest scores among those `keep` accepts, best first. */
function topIndices(scores: Float32Array, k: number, keep: (i: number) => boolean): number[] {
  const idx: number[] = [];
  for (let i = 0; i < scores.length; i++) if (keep(i)) idx.push(i);
  idx.sort((a, b) => scores[b]! - scores[a]! || a - b);
  return idx.slice(0, k);
}

let shared: Promise<DocsIndex> | undefined;

/** This worker's copy of the index, loaded on first use. */
export function docsIndex(): Promise<DocsIndex> {
  if (!shared) {
    shared = DocsIndex.load();
    shared.catch(() => (shared = undefined));
  }
  return shared;
}

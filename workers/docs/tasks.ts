// Documentation lookup tasks run in the Piscina pool against the worker's in-memory index
// (workers/docs/index.ts). Unknown ids and frameworks come back as data; the domain words the errors.
import { terms } from '../text/terms.js';
import { docsIndex, type DocsIndex, type SearchOptions } from './index.js';

export interface DocsSearchInput {
  query: string;
  k: number;
  frameworks?: string[];
  exclude?: string[];
  /** content: each chunk's full text (gc_lookup); snippet: a short excerpt (gc_search_docs). */
  view: 'content' | 'snippet';
  tuning?: SearchOptions['tuning'];
}

export interface DocsResult {
  chunk_id: string;
  doc_id: string;
  framework: string;
  version: string;
  title: string;
  url: string;
  score: number;
  similarity: number;
  tokens: number;
  content?: string;
  snippet?: string;
}

const SNIPPET_CHARS = 240;

/** The line of the chunk sharing most terms with the query (ties: the earliest), cut to SNIPPET_CHARS. */
export function snippetOf(text: string, query: string): string {
  const q = new Set(terms(query));
  const lines = text.split('\n').map((l) => l.replace(/^[#>*\-\s]+/, '').trim()).filter((l) => /[\p{L}\p{N}]/u.test(l) && !l.startsWith('```'));
  let best = lines[0] ?? '';
  let bestHits = -1;
  for (const l of lines) {
    const hits = new Set(terms(l).filter((t) => q.has(t))).size;
    if (hits > bestHits) {
      best = l;
      bestHits = hits;
    }
  }
  const flat = best.replace(/\s+/g, ' ');
  return flat.length > SNIPPET_CHARS ? `${flat.slice(0, SNIPPET_CHARS - 1)}…` : flat;
}

function unknownFrameworks(index: DocsIndex, ids: string[] | undefined): string[] {
  return (ids ?? []).filter((id) => !index.framework(id));
}

export const docsTasks = {
  docsSearch: async (input: DocsSearchInput) => {
    const index = await docsIndex();
    const known = index.file.frameworks.map((f) => f.id);
    const unknown = unknownFrameworks(index, input.frameworks);
    if (unknown.length) return { unknown_frameworks: unknown, known_frameworks: known, results: [] as DocsResult[], withheld: 0 };
    const { hits, withheld } = await index.search(input.query, { k: input.k, frameworks: input.frameworks, exclude: input.exclude, tuning: input.tuning });
    const results = hits.map((h): DocsResult => {
      const c = index.chunk(h.chunk);
      const page = index.page(c.page);
      const r: DocsResult = {
        chunk_id: c.id,
        doc_id: page.id,
        framework: page.framework,
        version: index.framework(page.framework)!.version,
        title: c.title,
        url: c.url,
        score: h.score,
        similarity: h.similarity,
        tokens: c.tokens,
      };
      if (input.view === 'content') r.content = c.text;
      else r.snippet = snippetOf(c.text, input.query);
      return r;
    });
    return { unknown_frameworks: [] as string[], known_frameworks: known, results, withheld };
  },

  docsRead: async (input: { doc_id?: string; url?: string }) => {
    const index = await docsIndex();
    const at = index.findPage(input);
    if (at === undefined) return { page: null };
    const p = index.page(at);
    const fw = index.framework(p.framework)!;
    return {
      page: { doc_id: p.id, framework: p.framework, version: fw.version, title: p.title, source_url: p.url, markdown: p.markdown, length_tokens: p.tokens },
    };
  },

  docsCoverage: async () => {
    const index = await docsIndex();
    const f = index.file;
    return {
      frameworks: f.frameworks.map((fw) => ({ ...fw, docs: f.pages.filter((p) => p.framework === fw.id).map((p) => ({ doc_id: p.id, title: p.title, url: p.url })) })),
      totals: { frameworks: f.frameworks.length, pages: f.pages.length, chunks: f.chunks.length, tokens: f.frameworks.reduce((s, fw) => s + fw.tokens, 0) },
      embedding_model: index.model,
      content_sha256: f.content_sha256,
    };
  },
};

// Documentation lookup use cases (gc_lookup, gc_search_docs, gc_read_doc, gc_docs_coverage). The
// index lives in the pool workers (workers/docs); these functions validate, call it through the
// one door (call.compute), turn "not there" answers into errors, and apply the session's dedup.
import type { Call } from '../call.js';
import { invalidInput, notFound } from '../errors.js';
import type { DocsResult } from '../../../workers/docs/tasks.js';

export const LOOKUP_DEFAULT_LIMIT = 5;
export const SEARCH_DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 20;
export const MAX_QUERY_CHARS = 2000;

/** Chunk ids a session has already been given by gc_lookup (dedup). */
export type SeenChunks = Set<string>;

function checkQuery(query: string): string {
  const q = query.trim();
  if (!q) throw invalidInput('query is empty: ask a question or give keywords', [{ loc: ['query'], msg: 'must not be empty', type: 'value_error' }]);
  return q;
}

async function search(call: Call, query: string, k: number, frameworks: string[] | undefined, view: 'content' | 'snippet', exclude?: string[]) {
  const out = await call.compute('docsSearch', { query, k, frameworks, exclude, view });
  if (out.unknown_frameworks.length) {
    throw invalidInput(`Unknown framework ${out.unknown_frameworks.map((f) => `'${f}'`).join(', ')}; indexed: ${out.known_frameworks.join(', ')}`, [
      { loc: ['frameworks'], msg: `unknown: ${out.unknown_frameworks.join(', ')}`, type: 'value_error' },
    ]);
  }
  return out;
}

const dedupe = (xs: string[] | undefined) => (xs?.length ? [...new Set(xs.map((x) => x.trim().toLowerCase()))] : undefined);

export interface LookupInput {
  query: string;
  frameworks?: string[];
  limit?: number;
  dedup?: boolean;
}

/**
 * Documentation chunks ranked by similarity. With dedup (the default) a chunk this session has
 * already received is withheld and the next ones fill its place; `withheld` says how many were.
 */
export async function lookupDocs(call: Call, input: LookupInput, seen: SeenChunks) {
  const query = checkQuery(input.query);
  const dedup = input.dedup !== false;
  const limit = input.limit ?? LOOKUP_DEFAULT_LIMIT;
  const out = await search(call, query, limit, dedupe(input.frameworks), 'content', dedup ? [...seen] : undefined);
  if (dedup) for (const r of out.results) seen.add(r.chunk_id);
  const tokens = out.results.reduce((s, r) => s + r.tokens, 0);
  call.report({ inputTokens: 0, outputTokens: tokens, inputText: query });
  return {
    query,
    results: out.results.map(lookupView),
    count: out.results.length,
    dedup,
    withheld: out.withheld,
    tokens,
  };
}

const lookupView = (r: DocsResult) => ({
  chunk_id: r.chunk_id,
  doc_id: r.doc_id,
  framework: r.framework,
  version: r.version,
  title: r.title,
  url: r.url,
  score: r.score,
  similarity: r.similarity,
  content: r.content!,
  tokens: r.tokens,
});

/** Ranked sections with title, snippet, url and score; gc_read_doc opens a result's doc_id. */
export async function searchDocs(call: Call, input: { query: string; frameworks?: string[]; limit?: number }) {
  const query = checkQuery(input.query);
  const out = await search(call, query, input.limit ?? SEARCH_DEFAULT_LIMIT, dedupe(input.frameworks), 'snippet');
  call.report({ inputTokens: 0, outputTokens: 0, inputText: query });
  return {
    query,
    results: out.results.map((r) => ({ title: r.title, snippet: r.snippet!, url: r.url, score: r.score, doc_id: r.doc_id, framework: r.framework, version: r.version })),
    count: out.results.length,
  };
}

/** One indexed page as Markdown, by doc_id (from search results) or by its URL. */
export async function readDoc(call: Call, input: { doc_id?: string; url?: string }) {
  const docId = input.doc_id?.trim();
  const url = input.url?.trim();
  if (!docId === !url) {
    throw invalidInput('Give exactly one of doc_id or url', [{ loc: [docId ? 'url' : 'doc_id'], msg: 'exactly one of doc_id and url', type: 'value_error' }]);
  }
  const out = await call.compute('docsRead', docId ? { doc_id: docId } : { url: url! });
  if (!out.page) {
    throw notFound(docId ? `Unknown doc_id '${docId}': gc_search_docs returns the ids of indexed pages` : `No indexed page at '${url}'`);
  }
  call.report({ inputTokens: 0, outputTokens: out.page.length_tokens, inputText: out.page.doc_id });
  return out.page;
}

/** What is indexed: frameworks with versions, page, chunk and token counts, and their pages. */
export async function docsCoverage(call: Call) {
  const out = await call.compute('docsCoverage', undefined);
  call.report({ inputTokens: 0, outputTokens: 0 });
  return out;
}

// Hybrid query over a project's chunks: HNSW vector search + BM25 (both in the index thread),
// candidates resolved against the database (current version, not deleted, visible, metadata
// filter), fused by reciprocal rank fusion (k = 60).
import type { Principal } from '../../auth/principal.js';
import { unavailable } from '../errors.js';
import { runOnThread } from '../compute.js';
import { IndexThreadError } from '../../knowledge/indexClient.js';
import type { Services } from '../../services.js';
import { HYBRID_RRF_WEIGHTS, reciprocalRankFusion, RRF_K } from '../../../workers/shared/rrf.js';
import { terms } from '../../../workers/shared/terms.js';
import { parseJsonb, visibleParams, visibleSql } from './items.js';

export const QUERY_LIMIT_DEFAULT = 10;
export const QUERY_LIMIT_MAX = 50;
/** Candidates taken from each ranking per result wanted; widened when filters drop too many. */
const CANDIDATES_PER_RESULT = 5;
const MIN_CANDIDATES = 50;
const MAX_CANDIDATES = 2000;

export interface QueryInput {
  query: string;
  limit: number;
  metadataFilter?: Record<string, unknown> | null;
  itemIds?: string[] | null;
  /** Only items with mcp_exposed (MCP callers). */
  mcpExposedOnly?: boolean;
}

export interface QueryChunk {
  chunk_id: string;
  item_id: string;
  item_name: string;
  version_id: string;
  chunk_index: number;
  heading: string | null;
  raw_text: string;
  text: string;
  score: number;
  rank_score: number;
  vector_rank: number | null;
  lexical_rank: number | null;
  tokens: number;
  metadata: Record<string, unknown>;
}

interface ChunkRow {
  label: number;
  item_id: string;
  version_id: string;
  ordinal: number;
  heading: string | null;
  raw_text: string;
  skeleton: string;
  tokens: number;
  name: string;
  metadata: unknown;
}

/** The navigation view: an anchor naming the chunk and its section, then the skeleton. */
export function anchorText(itemId: string, ordinal: number, heading: string | null, skeleton: string): string {
  return `[ANCHOR ${itemId}#${ordinal}${heading ? ` § ${heading}` : ''}]\n${skeleton}`;
}


export async function queryKnowledge(
  services: Services,
  principal: Principal,
  projectId: string,
  input: QueryInput,
  signal?: AbortSignal,
): Promise<{ results: QueryChunk[]; candidates: number; indexed_chunks: number }> {
  const hub = services.knowledge;
  if (!(await hub.ensureIndex(projectId))) return { results: [], candidates: 0, indexed_chunks: 0 };
  let k = Math.min(MAX_CANDIDATES, Math.max(MIN_CANDIDATES, input.limit * CANDIDATES_PER_RESULT));
  for (;;) {
    let hits;
    try {
      hits = await runOnThread(hub.door, () => hub.index.query(projectId, input.query, k, k), { signal });
    } catch (err) {
      if (err instanceof IndexThreadError && err.code !== 'not_loaded') throw unavailable(`Knowledge search unavailable: ${err.message}`, 2);
      throw err;
    }
    const labels = [...new Set([...hits.vector.labels, ...hits.lexical.labels])];
    // Phase 1: which candidates are live, current, visible and match the filters (ids only).
    const valid = labels.length ? await validLabels(services, principal, projectId, labels, input) : new Map<number, ItemInfo>();
    const exhausted = k >= hits.count || k >= MAX_CANDIDATES;
    if (valid.size < input.limit && !exhausted && labels.length > valid.size) {
      k = Math.min(MAX_CANDIDATES, k * 4);
      continue;
    }
    const vec = hits.vector.labels.filter((l) => valid.has(l));
    const lex = hits.lexical.labels.filter((l) => valid.has(l));
    const ids = [...valid.keys()];
    const pos = new Map(ids.map((l, i) => [l, i]));
    // Weights measured on bench/embeddings' dev split (docs/embeddings.md): lexical evidence leads.
    const fused = reciprocalRankFusion([vec.map((l) => pos.get(l)!), lex.map((l) => pos.get(l)!)], ids.length, RRF_K, [HYBRID_RRF_WEIGHTS.dense, HYBRID_RRF_WEIGHTS.lexical]);
    const vecRank = new Map(vec.map((l, i) => [l, i + 1]));
    const lexRank = new Map(lex.map((l, i) => [l, i + 1]));
    const order = ids.map((l, i) => ({ l, f: fused[i]! })).sort((a, b) => b.f - a.f || a.l - b.l).slice(0, input.limit);
    // Phase 2: text only for the chunks returned.
    const rows = order.length ? await chunkRows(services, projectId, order.map((o) => o.l), valid) : [];
    const byLabel = new Map(rows.map((r) => [r.label, r]));
    const results = order
      .filter(({ l }) => byLabel.has(l))
      .map(({ l, f }) => {
        const r = byLabel.get(l)!;
        return {
          chunk_id: `${r.item_id}#${r.ordinal}`,
          item_id: r.item_id,
          item_name: r.name,
          version_id: r.version_id,
          chunk_index: r.ordinal,
          heading: r.heading,
          raw_text: r.raw_text,
          text: anchorText(r.item_id, r.ordinal, r.heading, r.skeleton),
          score: Math.round((hits.similarity[l] ?? 0) * 10000) / 10000,
          rank_score: Math.round(f * 1e6) / 1e6,
          vector_rank: vecRank.get(l) ?? null,
          lexical_rank: lexRank.get(l) ?? null,
          tokens: r.tokens,
          metadata: parseJsonb(r.metadata),
        };
      });
    return { results, candidates: labels.length, indexed_chunks: hits.count };
  }
}

/**
 * Which candidates are live, current, visible and match the filters. Two single-table lookups by
 * primary key, joined here: the plan cannot go wrong whatever the table statistics say (a join
 * planned on missing statistics scanned every item per query at 100k chunks).
 */
interface ItemInfo {
  id: string;
  current_version_id: string;
  name: string;
  metadata: unknown;
}

async function validLabels(services: Services, principal: Principal, projectId: string, labels: number[], input: QueryInput): Promise<Map<number, ItemInfo>> {
  const chunks = await services.db.query<{ label: number; item_id: string; version_id: string }>(
    'select label, item_id, version_id from kb_chunks where project_id = $1 and label = any($2::int[])',
    [projectId, labels],
  );
  if (!chunks.length) return new Map();
  const itemIds = [...new Set(chunks.map((c) => c.item_id))];
  const params: unknown[] = [projectId, itemIds, ...visibleParams(principal)];
  let where = `i.project_id = $1 and i.id = any($2::uuid[]) and i.deleted_at is null and i.status = 'ready' and ${visibleSql('i', 3)}`;
  if (input.metadataFilter) {
    params.push(JSON.stringify(input.metadataFilter));
    where += ` and i.metadata @> $${params.length}::text::jsonb`;
  }
  if (input.itemIds?.length) {
    params.push(input.itemIds);
    where += ` and i.id = any($${params.length}::uuid[])`;
  }
  if (input.mcpExposedOnly) where += ' and i.mcp_exposed';
  const items = await services.db.query<ItemInfo>(`select i.id, i.current_version_id, i.name, i.metadata from kb_items i where ${where}`, params);
  const byId = new Map(items.map((i) => [i.id, i]));
  const out = new Map<number, ItemInfo>();
  for (const c of chunks) {
    const item = byId.get(c.item_id);
    if (item && item.current_version_id === c.version_id) out.set(c.label, item);
  }
  return out;
}

/** Text of the chunks returned (the item facts come from phase 1, checked a moment earlier). */
async function chunkRows(services: Services, projectId: string, labels: number[], items: Map<number, ItemInfo>): Promise<ChunkRow[]> {
  const chunks = await services.db.query<Omit<ChunkRow, 'name' | 'metadata'>>(
    `select label, item_id, version_id, ordinal, heading, raw_text, skeleton, tokens from kb_chunks where project_id = $1 and label = any($2::int[])`,
    [projectId, labels],
  );
  return chunks.map((c) => ({ ...c, name: items.get(c.label)!.name, metadata: items.get(c.label)!.metadata }));
}

/**
 * Evidence-aware insufficiency: the retrieved chunks may not answer the query when many query
 * terms appear in none of them, or when the best similarity is low and some terms are missing.
 * Similarity alone does not decide: the shipped 100-d static embedder's cosines are low and
 * uncalibrated (a good match can score 0.2), so lexical evidence is the stronger signal.
 */
export function insufficiency(query: string, results: QueryChunk[], minScore = 0.2, minCoverage = 0.5) {
  const q = [...new Set(terms(query))];
  const seen = new Set<string>();
  for (const r of results) for (const t of terms(`${r.heading ?? ''} ${r.raw_text}`)) seen.add(t);
  const missing = q.filter((t) => !seen.has(t));
  const coverage = q.length ? (q.length - missing.length) / q.length : 1;
  const top = results[0]?.score ?? 0;
  const reasons: string[] = [];
  if (results.length === 0) reasons.push('no_results');
  else {
    if (coverage < minCoverage) reasons.push('low_term_coverage');
    if (top < minScore && missing.length > 0) reasons.push('low_similarity');
  }
  return {
    insufficient: reasons.length > 0,
    reasons,
    top_score: top,
    term_coverage: Math.round(coverage * 1000) / 1000,
    missing_terms: missing,
  };
}

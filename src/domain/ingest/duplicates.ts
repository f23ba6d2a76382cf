// find_duplicates: near-duplicate clusters among the project's documents (MinHash + LSH over word
// shingles, exact Jaccard of the candidates), computed in the pool.
import type { Call } from '../call.js';
import { visibleParams, visibleSql } from '../knowledge/items.js';
import { compute } from './common.js';

/** Documents compared in one call (newest first) and the characters of each that are shingled. */
export const DUPLICATES_MAX_DOCUMENTS = 1000;
export const DUPLICATES_MAX_CHARS = 200_000;
export const DUPLICATES_THRESHOLD_DEFAULT = 0.7;
export const SHINGLE_SIZE_DEFAULT = 3;

export interface DuplicatesInput {
  threshold: number;
  shingle_size: number;
  item_ids?: string[];
  max_clusters: number;
}

export async function findDuplicates(call: Call, projectId: string, input: DuplicatesInput) {
  const { services, principal } = call;
  const params: unknown[] = [projectId, ...visibleParams(principal), DUPLICATES_MAX_CHARS];
  let where = `i.project_id = $1 and i.deleted_at is null and ${visibleSql('i', 2)}`;
  if (input.item_ids?.length) {
    params.push(input.item_ids);
    where += ` and i.id = any($${params.length}::uuid[])`;
  }
  const rows = await services.db.query<{ id: string; name: string; type: string; content: string; chars: number; content_hash: string }>(
    `select i.id, i.name, i.type, left(v.content, $4) as content, char_length(v.content) as chars, v.content_hash
       from kb_items i join kb_versions v on v.id = i.current_version_id
      where ${where} and v.content <> ''
      order by i.created_at desc limit ${DUPLICATES_MAX_DOCUMENTS + 1}`,
    params,
  );
  const truncatedSet = rows.length > DUPLICATES_MAX_DOCUMENTS;
  const docs = rows.slice(0, DUPLICATES_MAX_DOCUMENTS);
  const out = await compute(call, 'ingestDuplicates', {
    docs: docs.map((d) => ({ id: d.id, text: d.content })),
    threshold: input.threshold,
    shingleSize: input.shingle_size,
  });
  const byId = new Map(docs.map((d) => [d.id, d]));
  const clusters = out.clusters.slice(0, input.max_clusters).map((c, i) => ({
    cluster_id: i + 1,
    size: c.ids.length,
    max_similarity: c.max_similarity,
    min_similarity: c.min_similarity,
    items: c.ids.map((id) => {
      const d = byId.get(id)!;
      return { item_id: id, name: d.name, type: d.type, chars: Number(d.chars), content_hash: d.content_hash };
    }),
    pair_count: c.pair_count,
    pairs: c.pairs.map((p) => ({ item_a: p.a, item_b: p.b, similarity: p.similarity, minhash_estimate: p.estimate, identical: byId.get(p.a)!.content_hash === byId.get(p.b)!.content_hash })),
  }));
  return {
    method: 'minhash',
    threshold: input.threshold,
    shingle_size: input.shingle_size,
    compared_documents: out.compared_documents,
    candidate_pairs: out.candidate_pairs,
    clusters,
    total_clusters: out.clusters.length,
    documents_truncated: truncatedSet,
    long_documents_truncated: docs.filter((d) => Number(d.chars) > DUPLICATES_MAX_CHARS).length,
  };
}

// Compiled knowledge: the key's project Knowledge Hub items (visible, ready, current versions; not the
// index itself) compiled in the pool into one index, stored as a Knowledge Hub item of type
// knowledge-index (versioned and searchable like any item), and linted.
import type { Principal } from '../../auth/principal.js';
import type { Services } from '../../services.js';
import type { Call } from '../call.js';
import { notFound } from '../errors.js';
import { parseJsonb, visibleParams, visibleSql } from '../knowledge/items.js';
import { editAndIngest, ingestItem } from '../knowledge/service.js';
import type { CompileInput } from '../../../workers/memory/knowledge.js';
import { nowIso } from '../../lib/time.js';

export const INDEX_TYPE = 'knowledge-index';
export const INDEX_NAME = 'Knowledge index';

interface ItemInfo {
  id: string;
  name: string;
  chunk_count: number;
  current_version_id: string;
  updated_at: Date | string;
}

async function projectChunks(services: Services, principal: Principal, projectId: string, maxItems: number): Promise<{ input: CompileInput; items: ItemInfo[] }> {
  const items = await services.db.query<ItemInfo>(
    `select i.id, i.name, i.chunk_count, i.current_version_id, i.updated_at from kb_items i
     where i.project_id = $1 and i.deleted_at is null and i.status = 'ready' and i.type <> '${INDEX_TYPE}' and ${visibleSql('i', 2)}
     order by i.created_at, i.id limit $4`,
    [projectId, ...visibleParams(principal), maxItems],
  );
  const pos = new Map(items.map((it, i) => [it.id, i]));
  const rows = items.length
    ? await services.db.query<{ item_id: string; version_id: string; heading: string | null; raw_text: string; tokens: number; embedding: unknown }>(
        'select item_id, version_id, heading, raw_text, tokens, embedding from kb_chunks where project_id = $1 and item_id = any($2::uuid[]) order by item_id, ordinal',
        [projectId, items.map((i) => i.id)],
      )
    : [];
  // The outline: Markdown headings of each item's current version (first 30).
  const heads = items.length
    ? await services.db.query<{ item_id: string; headings: string[] }>(
        `select v.item_id, array(select m[1] from regexp_matches(v.content, '^#{1,6}[ \t]+([^\n]+?)[ \t#]*$', 'gn') as m limit 30) as headings
         from kb_versions v where v.id = any($1::uuid[])`,
        [items.map((i) => i.current_version_id)],
      )
    : [];
  const headingsOf = new Map(heads.map((h) => [h.item_id, h.headings ?? []]));
  const current = rows.filter((r) => items[pos.get(r.item_id)!]!.current_version_id === r.version_id);
  const first = current[0]?.embedding;
  const dims = first ? (first instanceof Uint8Array ? first.byteLength : Buffer.from(String(first).replace(/^\\x/, ''), 'hex').byteLength) / 4 : 0;
  const vectors = new Float32Array(current.length * dims);
  current.forEach((r, j) => {
    const bytes = r.embedding instanceof Uint8Array ? r.embedding : Buffer.from(String(r.embedding).replace(/^\\x/, ''), 'hex');
    if (bytes.byteLength !== dims * 4) return;
    const v = new Float32Array(dims);
    new Uint8Array(v.buffer).set(bytes);
    vectors.set(v, j * dims);
  });
  return {
    items,
    input: {
      items: items.map((i) => ({ item_id: i.id, name: i.name, chunk_count: i.chunk_count, headings: headingsOf.get(i.id) ?? [] })),
      chunks: current.map((r) => ({ item: pos.get(r.item_id)!, heading: r.heading, text: r.raw_text, tokens: r.tokens })),
      vectors,
      dims,
    },
  };
}

async function indexItem(services: Services, principal: Principal, projectId: string) {
  const [row] = await services.db.query<{ id: string; current_version_id: string; metadata: unknown; updated_at: Date | string }>(
    `select i.id, i.current_version_id, i.metadata, i.updated_at from kb_items i
     where i.project_id = $1 and i.deleted_at is null and i.type = '${INDEX_TYPE}' and ${visibleSql('i', 2)} order by i.created_at desc limit 1`,
    [projectId, ...visibleParams(principal)],
  );
  return row ?? null;
}

export async function compileProjectKnowledge(call: Call, projectId: string, maxItems: number) {
  const { services, principal } = call;
  const { input, items } = await projectChunks(services, principal, projectId, maxItems);
  const compiled = await call.compute('knowledgeCompile', input);
  const compiledAt = nowIso();
  const metadata = { compiled_at: compiledAt, item_count: items.length, sources: Object.fromEntries(items.map((i) => [i.id, i.current_version_id])) };
  const existing = await indexItem(services, principal, projectId);
  let itemId: string;
  let versionId: string;
  if (existing) {
    const out = await editAndIngest(services, principal, projectId, existing.id, { content: compiled.markdown, baseVersionId: existing.current_version_id, metadata });
    itemId = out.item.id;
    versionId = out.item.current_version_id!;
  } else {
    const out = await ingestItem(services, principal, projectId, { name: INDEX_NAME, text: compiled.markdown, type: INDEX_TYPE, metadata });
    itemId = out.item.id;
    versionId = out.version.id;
  }
  return { index_item_id: itemId, version_id: versionId, compiled_at: compiledAt, item_count: items.length, chunk_count: input.chunks.length, items: compiled.items, markdown: compiled.markdown };
}

export async function knowledgeIndex(services: Services, principal: Principal, projectId: string) {
  const idx = await indexItem(services, principal, projectId);
  if (!idx) throw notFound('No compiled knowledge index in this project yet; call compile_knowledge');
  const [v] = await services.db.query<{ content: string }>('select content from kb_versions where id = $1', [idx.current_version_id]);
  const meta = parseJsonb(idx.metadata) as { compiled_at?: string; item_count?: number; sources?: Record<string, string> };
  // Stale when an item was added, changed or removed since compiling.
  const now = await services.db.query<{ id: string; current_version_id: string }>(
    `select i.id, i.current_version_id from kb_items i where i.project_id = $1 and i.deleted_at is null and i.status = 'ready' and i.type <> '${INDEX_TYPE}' and ${visibleSql('i', 2)}`,
    [projectId, ...visibleParams(principal)],
  );
  const sources = meta.sources ?? {};
  const changed = now.filter((i) => sources[i.id] !== i.current_version_id).map((i) => i.id);
  const removed = Object.keys(sources).filter((id) => !now.some((i) => i.id === id));
  return {
    index_item_id: idx.id,
    version_id: idx.current_version_id,
    compiled_at: meta.compiled_at ?? null,
    item_count: meta.item_count ?? 0,
    stale: changed.length + removed.length > 0,
    changed_item_ids: changed,
    removed_item_ids: removed,
    markdown: v?.content ?? '',
  };
}

export async function lintProjectKnowledge(call: Call, projectId: string, maxItems: number) {
  const { input } = await projectChunks(call.services, call.principal, projectId, maxItems);
  const { findings } = await call.compute('knowledgeLint', input);
  let stale: string[] = [];
  try {
    const idx = await knowledgeIndex(call.services, call.principal, projectId);
    stale = idx.stale ? [...idx.changed_item_ids, ...idx.removed_item_ids] : [];
  } catch {
    stale = [];
  }
  const all = [
    ...findings,
    ...stale.map((id) => ({ rule: 'stale_index' as const, severity: 'info' as const, item_id: id, other_item_id: null, message: 'changed since the knowledge index was compiled' })),
  ];
  const counts: Record<string, number> = {};
  for (const f of all) counts[f.rule] = (counts[f.rule] ?? 0) + 1;
  return { findings: all, counts, items_checked: input.items.length, chunks_checked: input.chunks.length };
}

// Shared steps of the ingestion use cases: the caller's project, pool calls with worker-side input
// errors in domain terms, and writing a new version of a Knowledge Hub item.
import type { Call } from '../call.js';
import { DomainError, invalid, timedOut } from '../errors.js';
import { contentHash, resolveProject, type ItemRow, type VersionRow } from '../knowledge/items.js';
import { TaskError } from '../../pool/pool.js';
import type { TaskInput, TaskName, TaskOutput } from '../ports/compute.js';
import type { ComputeOptions } from '../compute.js';
import type { Queryable } from '../../store/db.js';
import { iso } from '../../lib/time.js';

/** Versions kept per item when refresh_document writes a new one (the spec's default: the last 10). */
export const KEEP_VERSIONS = 10;

/** The key's project (needsProject guarantees one is bound); it must still be the caller's. */
export async function boundProject(call: Call): Promise<string> {
  const { services, principal } = call;
  const project = await resolveProject(services.db, principal, principal.projectId ?? '').catch(() => null);
  if (!project) throw new DomainError('forbidden', 'The project this key is bound to no longer exists', { code: 'no_project_selected' });
  return project.id;
}

/** A pool task whose worker-side input errors are the caller's (400) and whose OCR timeouts are a 504. */
export async function compute<K extends TaskName>(call: Call, name: K, input: TaskInput<K>, options: ComputeOptions = {}): Promise<TaskOutput<K>> {
  try {
    return await call.compute(name, input, options);
  } catch (err) {
    if (err instanceof TaskError && err.name === 'IngestInputError') throw invalid(err.message);
    if (err instanceof TaskError && err.name === 'OcrTimeoutError') throw timedOut(err.message);
    throw err;
  }
}

/** Token counts (o200k_base) of texts, in the pool. */
export async function countTokens(call: Call, texts: string[]): Promise<number[]> {
  if (!texts.length) return [];
  return (await call.compute('ingestCountTokens', { texts })).tokens;
}

/**
 * Writes content as the item's next version and makes it current (status pending, or ready for
 * empty content); the caller holds the item's row lock and queues the ingest after commit.
 */
export async function writeVersion(tx: Queryable, item: ItemRow, content: string, keyId: string | null, origin: string, tokens: number | null): Promise<VersionRow> {
  const [v] = await tx.query<VersionRow>(
    `insert into kb_versions (item_id, number, content, content_hash, created_by_key_id, tokens, origin)
     values ($1, coalesce((select max(number) from kb_versions where item_id = $1), 0) + 1, $2, $3, $4, $5, $6) returning *`,
    [item.id, content, contentHash(content), keyId, tokens, origin],
  );
  await tx.query(
    `update kb_items set current_version_id = $2, status = $3, chunk_count = 0, error = null,
       source = case when source = 'empty' then 'text' else source end, updated_at = now() where id = $1`,
    [item.id, v!.id, content.trim() === '' ? 'ready' : 'pending'],
  );
  return v!;
}

/**
 * Drops all but the newest `keep` versions of an item (never the current one, nor one a plan
 * proposal is pinned to); returns how many went.
 */
export async function pruneVersions(tx: Queryable, itemId: string, keep = KEEP_VERSIONS): Promise<number> {
  const rows = await tx.query<{ id: string }>(
    `delete from kb_versions v
      where v.item_id = $1
        and v.number <= (select max(number) from kb_versions where item_id = $1) - $2
        and v.id <> (select current_version_id from kb_items where id = $1)
        and not exists (select 1 from plan_proposals p where p.base_version_id = v.id or p.merged_version_id = v.id)
      returning v.id`,
    [itemId, keep],
  );
  return rows.length;
}

export function versionOut(v: Pick<VersionRow, 'id' | 'number' | 'content_hash' | 'created_at'>) {
  return { version_id: v.id, version_number: v.number, content_hash: v.content_hash, created_at: iso(v.created_at) };
}

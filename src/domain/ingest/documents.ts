// batch_ingest_documents, refresh_document and get_version_history on the Knowledge Hub.
import type { Call } from '../call.js';
import { DomainError, invalid, notFound } from '../errors.js';
import { contentHash, requireVisibleItem, type VersionRow } from '../knowledge/items.js';
import { FETCH_TIMEOUT_MS, ingestItem, MAX_CONTENT_CHARS, type IngestInput } from '../knowledge/service.js';
import { FetchRefusedError, fetchPublicHttps, type SafeFetchOptions } from '../platform/ssrf.js';
import { countTokens, KEEP_VERSIONS, pruneVersions, versionOut, writeVersion } from './common.js';
import { parseTranscriptIn, saveSegments } from './transcripts.js';

/** The spec's batch bound (as batch compression): 50 documents a call, 4 at a time. */
export const BATCH_MAX_DOCUMENTS = 50;
export const BATCH_CONCURRENCY = 4;
/** All inline content of one batch together. */
export const BATCH_MAX_CHARS = 8_000_000;
export const HISTORY_LIMIT_DEFAULT = KEEP_VERSIONS;
export const HISTORY_LIMIT_MAX = 100;

export interface BatchDocument extends IngestInput {
  content?: string | null;
}

/** Runs fn over items, `limit` at a time, keeping the input order in the output. */
async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

function errorOf(err: unknown): { error: string; detail: string } {
  if (err instanceof DomainError) return { error: err.code, detail: err.message };
  return { error: 'internal_error', detail: 'The document could not be ingested' };
}

/** Ingests many documents; a failed one is reported in its result and the others go on. */
export async function batchIngest(call: Call, projectId: string, docs: BatchDocument[]) {
  if (docs.length === 0 || docs.length > BATCH_MAX_DOCUMENTS) throw invalid(`Give 1 to ${BATCH_MAX_DOCUMENTS} documents (got ${docs.length})`);
  const chars = docs.reduce((n, d) => n + (d.content?.length ?? 0), 0);
  if (chars > BATCH_MAX_CHARS) throw invalid(`The batch holds ${chars} characters of content (at most ${BATCH_MAX_CHARS}); split it`);
  const { services, principal } = call;
  const results = await mapLimited(docs, BATCH_CONCURRENCY, async (doc, index) => {
    try {
      if (doc.content != null && doc.url != null) throw invalid('Give content or url, not both');
      if (doc.content == null && doc.url == null) throw invalid('Give content or url');
      const { item, version } = await ingestItem(services, principal, projectId, { ...doc, text: doc.content ?? null });
      const [tokens] = await countTokens(call, [version.content]);
      await services.db.query(`update kb_versions set tokens = $2, origin = 'batch_ingest' where id = $1`, [version.id, tokens]);
      return { index, ok: true, item_id: item.id, name: item.name, status: item.status, ...versionOut(version), tokens: tokens! };
    } catch (err) {
      return { index, ok: false, name: doc.name ?? null, ...errorOf(err) };
    }
  });
  const created = results.filter((r) => r.ok).length;
  return { results, summary: { total: docs.length, created, failed: docs.length - created } };
}

export type Fetcher = (url: string) => Promise<string>;

/** The SSRF-guarded fetch of a stored source URL (https only, public addresses, size and time bounds). */
export function guardedFetcher(testHooks?: SafeFetchOptions['testHooks']): Fetcher {
  return async (url) => {
    try {
      return (await fetchPublicHttps(url, { maxBytes: MAX_CONTENT_CHARS, timeoutMs: FETCH_TIMEOUT_MS, maxRedirects: 3, ...(testHooks ? { testHooks } : {}) })).text;
    } catch (err) {
      if (err instanceof FetchRefusedError) throw invalid(`fetch_refused (${err.reason}): ${err.message}`, { code: 'fetch_refused' });
      throw invalid(`Could not fetch the source url: ${err instanceof Error ? err.message : String(err)}`);
    }
  };
}

const MEDIA_TYPES = new Set(['pdf', 'image']);

/**
 * Re-reads an item's source (the supplied content, else its stored URL through the SSRF guard) and
 * writes a new version only when the content hash changed; keeps the newest 10 versions.
 */
export async function refreshDocument(call: Call, projectId: string, itemId: string, input: { content?: string | null }, fetcher: Fetcher = guardedFetcher()) {
  const { services, principal } = call;
  const item = await requireVisibleItem(services.db, principal, projectId, itemId);
  if (MEDIA_TYPES.has(item.type)) throw invalid(`Item '${itemId}' is a ${item.type}: ingest the new file with ingest_multimodal instead`);
  let source: 'content' | 'url';
  let raw: string;
  if (input.content != null) {
    source = 'content';
    raw = input.content;
  } else if (item.source_url) {
    source = 'url';
    raw = await fetcher(item.source_url);
  } else {
    throw invalid(`Item '${itemId}' has no stored source URL: give the new content`);
  }
  // A refreshed transcript may come in another format than the first: it is detected again.
  const transcript = item.type === 'transcript' ? await parseTranscriptIn(call, raw, 'auto') : null;
  const content = transcript ? transcript.content : raw;
  const hash = contentHash(content);
  // The common case (unchanged) is settled before counting tokens; the locked check below is the one that counts.
  const [current] = await services.db.query<{ content_hash: string }>('select content_hash from kb_versions where id = $1', [item.current_version_id]);
  const [tokens] = current?.content_hash === hash ? [null] : await countTokens(call, [content]);
  const out = await services.db.transaction(async (tx) => {
    const locked = await requireVisibleItem(tx, principal, projectId, itemId, true);
    const [cur] = await tx.query<VersionRow>('select * from kb_versions where id = $1', [locked.current_version_id]);
    if (cur && cur.content_hash === hash) return { changed: false as const, version: cur, previous: cur, pruned: 0, item: locked };
    const version = await writeVersion(tx, locked, content, principal.keyId, `refresh:${source}`, tokens ?? null);
    if (transcript) await saveSegments(tx, locked.id, version.id, transcript, null);
    const pruned = await pruneVersions(tx, locked.id);
    return { changed: true as const, version, previous: cur ?? null, pruned, item: locked };
  });
  if (out.changed && content.trim() !== '') services.knowledge.enqueue({ itemId: out.item.id, versionId: out.version.id });
  else if (out.changed) {
    // Refreshed to empty: nothing to index, and the previous version's chunks leave the index now.
    const gone = await services.db.query<{ label: number }>('delete from kb_chunks where item_id = $1 and version_id <> $2 returning label', [out.item.id, out.version.id]);
    await services.knowledge.afterDelete(projectId, gone.map((r) => r.label));
  }
  return {
    item_id: out.item.id,
    changed: out.changed,
    source,
    ...versionOut(out.version),
    previous_version_id: out.changed ? (out.previous?.id ?? null) : out.version.id,
    previous_content_hash: out.previous?.content_hash ?? null,
    tokens: out.changed ? (tokens ?? null) : ((out.version as VersionRow & { tokens?: number | null }).tokens ?? null),
    pruned_versions: out.pruned,
    status: out.changed ? (content.trim() === '' ? 'ready' : 'pending') : out.item.status,
  };
}

export async function versionHistory(call: Call, projectId: string, itemId: string, limit: number) {
  const { services, principal } = call;
  const item = await requireVisibleItem(services.db, principal, projectId, itemId);
  const rows = await services.db.query<Omit<VersionRow, 'content'> & { tokens: number | null; origin: string | null; chars: number; total: number }>(
    `select id, item_id, number, content_hash, created_by_key_id, created_at, tokens, origin, char_length(content) as chars,
            count(*) over ()::int as total
       from kb_versions where item_id = $1 order by number desc limit $2`,
    [item.id, limit],
  );
  if (!rows.length) throw notFound(`Knowledge item '${itemId}' has no versions`);
  // Versions written by other paths (gc_kb_edit, uploads) get their token count now, once.
  const missing = rows.filter((r) => r.tokens === null);
  if (missing.length) {
    const contents = await services.db.query<{ id: string; content: string }>('select id, content from kb_versions where id = any($1::uuid[])', [missing.map((r) => r.id)]);
    const counts = await countTokens(call, contents.map((c) => c.content));
    for (let i = 0; i < contents.length; i++) {
      await services.db.query('update kb_versions set tokens = $2 where id = $1 and tokens is null', [contents[i]!.id, counts[i]]);
      const row = missing.find((r) => r.id === contents[i]!.id);
      if (row) row.tokens = counts[i]!;
    }
  }
  return {
    item_id: item.id,
    name: item.name,
    current_version_id: item.current_version_id,
    total_versions: rows[0]!.total,
    kept_versions: KEEP_VERSIONS,
    versions: rows.map((r) => ({
      ...versionOut(r),
      tokens: r.tokens!,
      chars: Number(r.chars),
      origin: r.origin ?? (r.number === 1 ? 'ingest' : 'edit'),
      current: r.id === item.current_version_id,
      created_by_key_id: r.created_by_key_id,
    })),
  };
}

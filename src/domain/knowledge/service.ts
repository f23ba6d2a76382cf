// Knowledge Hub operations shared by the REST routes and the MCP tools.
import type { Principal } from '../../auth/principal.js';
import type { Call } from '../call.js';
import { invalid, notFound } from '../errors.js';
import type { Services } from '../../services.js';
import { FetchRefusedError, fetchPublicHttps } from '../platform/ssrf.js';
import {
  editItem, getVersion, insertItem, newReindexVersion, requireVisibleItem, softDeleteItem, visibilityNotImplemented,
  type EditInput, type ItemRow, type VersionRow,
} from './items.js';

/** Largest item content, inline or fetched (characters / bytes). */
export const MAX_CONTENT_CHARS = 5_000_000;
export const FETCH_TIMEOUT_MS = 10_000;

export interface IngestInput {
  name?: string | null;
  text?: string | null;
  url?: string | null;
  type?: string | null;
  metadata?: Record<string, unknown> | null;
  mcp_exposed?: boolean | null;
  visibility?: string | null;
}

export function checkVisibility(v: string | null | undefined): 'private' | 'project' | undefined {
  if (v === undefined || v === null) return undefined;
  if (v === 'private' || v === 'project') return v;
  if (v === 'org' || v === 'external') throw visibilityNotImplemented(v);
  throw invalid(`Invalid visibility '${v}'. Valid values: private, project, org, external`);
}

function defaultName(input: IngestInput, text: string): string {
  const heading = /^\s{0,3}#{1,6}\s+(.+)$/m.exec(text)?.[1]?.trim();
  if (heading) return heading.slice(0, 200);
  if (input.url) return input.url.slice(0, 200);
  const first = text.trim().split('\n')[0]?.trim();
  return first ? first.slice(0, 80) : 'Untitled';
}

async function fetchUrl(url: string): Promise<string> {
  try {
    const r = await fetchPublicHttps(url, { maxBytes: MAX_CONTENT_CHARS, timeoutMs: FETCH_TIMEOUT_MS, maxRedirects: 3 });
    return r.text;
  } catch (err) {
    if (err instanceof FetchRefusedError) throw invalid(`fetch_refused (${err.reason}): ${err.message}`);
    throw invalid(`Could not fetch url: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Creates an item (text, URL, upload or a name-only placeholder) and queues its ingest. */
export async function ingestItem(
  services: Services,
  principal: Principal,
  projectId: string,
  input: IngestInput,
  source?: ItemRow['source'],
): Promise<{ item: ItemRow; version: VersionRow }> {
  const visibility = checkVisibility(input.visibility) ?? 'project';
  let text = input.text ?? '';
  let src: ItemRow['source'] = source ?? (input.url ? 'url' : text.trim() === '' ? 'empty' : 'text');
  if (input.url) {
    text = await fetchUrl(input.url);
    src = 'url';
  }
  const name = input.name?.trim() || defaultName(input, text);
  const created = await services.db.transaction((tx) =>
    insertItem(tx, {
      projectId,
      ownerId: principal.userId,
      keyId: principal.keyId,
      name,
      type: input.type ?? 'document',
      source: src,
      sourceUrl: input.url ?? null,
      content: text,
      metadata: input.metadata ?? {},
      mcpExposed: input.mcp_exposed ?? true,
      visibility,
    }),
  );
  if (created.item.status === 'pending') services.knowledge.enqueue({ itemId: created.item.id, versionId: created.version.id });
  return created;
}

export async function editAndIngest(services: Services, principal: Principal, projectId: string, itemId: string, edit: EditInput): Promise<{ item: ItemRow; newVersion: VersionRow | null }> {
  const out = await services.db.transaction((tx) => editItem(tx, principal, projectId, itemId, edit));
  if (out.newVersion) {
    const hub = services.knowledge;
    if (out.item.status === 'pending') hub.enqueue({ itemId: out.item.id, versionId: out.newVersion.id });
    else await dropChunksOfOldVersions(services, projectId, out.item.id, out.newVersion.id);
  }
  return out;
}

/** An edit to empty content: the previous version's chunks leave the index now. */
async function dropChunksOfOldVersions(services: Services, projectId: string, itemId: string, versionId: string): Promise<void> {
  const rows = await services.db.query<{ label: number }>('delete from kb_chunks where item_id = $1 and version_id <> $2 returning label', [itemId, versionId]);
  await services.knowledge.afterDelete(projectId, rows.map((r) => r.label));
}

export async function deleteItem(services: Services, principal: Principal, projectId: string, itemId: string): Promise<ItemRow> {
  const { item, labels } = await services.db.transaction((tx) => softDeleteItem(tx, principal, projectId, itemId));
  await services.knowledge.afterDelete(projectId, labels);
  return item;
}

export async function reindexItem(services: Services, principal: Principal, projectId: string, itemId: string): Promise<{ item: ItemRow; version: VersionRow }> {
  const out = await services.db.transaction((tx) => newReindexVersion(tx, principal, projectId, itemId));
  if (out.item.status === 'pending') services.knowledge.enqueue({ itemId: out.item.id, versionId: out.version.id });
  else await dropChunksOfOldVersions(services, projectId, out.item.id, out.version.id);
  return out;
}

export async function currentContent(services: Services, item: ItemRow): Promise<string> {
  if (!item.current_version_id) return '';
  const [row] = await services.db.query<{ content: string }>('select content from kb_versions where id = $1', [item.current_version_id]);
  return row?.content ?? '';
}

/** Two versions of an item and their unified diff (computed in the pool). */
export async function diffVersions(call: Call, projectId: string, itemId: string, fromId: string, toId: string) {
  const { services, principal } = call;
  const item = await requireVisibleItem(services.db, principal, projectId, itemId);
  const [from, to] = await Promise.all([getVersion(services.db, item.id, fromId), getVersion(services.db, item.id, toId)]);
  if (!from) throw notFound(`Version '${fromId}' not found for item '${itemId}'`);
  if (!to) throw notFound(`Version '${toId}' not found for item '${itemId}'`);
  const diff = await call.compute('kbDiff', {
    from: from.content,
    to: to.content,
    fromLabel: `${item.name}@v${from.number} (${from.id})`,
    toLabel: `${item.name}@v${to.number} (${to.id})`,
  });
  return {
    item_id: item.id,
    from_version_id: from.id,
    to_version_id: to.id,
    from_version_number: from.number,
    to_version_number: to.number,
    from_content: from.content,
    to_content: to.content,
    unified_diff: diff.unified_diff,
    added_lines: diff.added_lines,
    removed_lines: diff.removed_lines,
  };
}


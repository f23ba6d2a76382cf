// Knowledge Hub items and versions: rows, visibility, listing, edits with optimistic concurrency.
import { createHash } from 'node:crypto';
import type { Principal } from '../../auth/principal.js';
import { conflict, notFound, notImplemented } from '../errors.js';
import type { Queryable } from '../../store/db.js';
import { getProject, type ProjectRow } from '../identity/projects.js';
import { iso } from '../../lib/time.js';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const LIST_LIMIT_DEFAULT = 50;
export const LIST_LIMIT_MAX = 200;
export const VISIBILITIES = ['private', 'project', 'org', 'external'] as const;
export type Visibility = (typeof VISIBILITIES)[number];
export type ItemStatus = 'pending' | 'indexing' | 'ready' | 'FAILED';

export interface ItemRow {
  id: string;
  project_id: string;
  owner_id: string;
  created_by_key_id: string | null;
  name: string;
  type: string;
  source: 'text' | 'url' | 'upload' | 'empty';
  source_url: string | null;
  metadata: Record<string, unknown>;
  mcp_exposed: boolean;
  visibility: 'private' | 'project';
  status: ItemStatus;
  error: string | null;
  chunk_count: number;
  current_version_id: string | null;
  version_number: number | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
  created_key?: string;
}

export interface VersionRow {
  id: string;
  item_id: string;
  number: number;
  content: string;
  content_hash: string;
  created_by_key_id: string | null;
  created_at: Date;
}

/** The spec's stale_base conflict, naming the current version. */
export const staleBase = (currentVersionId: string | null) =>
  conflict(`stale_base: base_version_id is not the current version; the current version is ${currentVersionId}`, {
    code: 'stale_base',
    extra: { current_version_id: currentVersionId },
  });

/** org and external visibility: the spec's not_implemented error. */
export const visibilityNotImplemented = (visibility: string) =>
  notImplemented(`not_implemented: visibility '${visibility}' is not implemented; use private or project`);

export const itemNotFound = (id: string) => notFound(`Knowledge item '${id}' not found`);

const ITEM_COLUMNS = `i.id, i.project_id, i.owner_id, i.created_by_key_id, i.name, i.type, i.source, i.source_url, i.metadata,
  i.mcp_exposed, i.visibility, i.status, i.error, i.chunk_count, i.current_version_id, i.created_at, i.updated_at, i.deleted_at,
  (select v.number from kb_versions v where v.id = i.current_version_id) as version_number`;

export function parseJsonb(value: unknown): Record<string, unknown> {
  if (typeof value === 'string') {
    try {
      return JSON.parse(value) as Record<string, unknown>;
    } catch {
      return {};
    }
  }
  return (value ?? {}) as Record<string, unknown>;
}

function normalise(row: ItemRow): ItemRow {
  return { ...row, metadata: parseJsonb(row.metadata) };
}

export const contentHash = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * The SQL condition "principal may see item alias": project items for every key of the project;
 * private items for the creating key only, and for an identity-provider session (the owner).
 */
export function visibleSql(alias: string, firstParam: number): string {
  return `(${alias}.visibility = 'project' or $${firstParam}::boolean or ${alias}.created_by_key_id = $${firstParam + 1}::text)`;
}
export function visibleParams(p: Principal): [boolean, string] {
  return [p.via === 'jwt', p.keyId ?? ''];
}

/**
 * The project the caller addresses: owned by the caller (else 404), and, for a key bound to a
 * project, that very project (a bound key is scoped to it; other projects are 404 as well).
 */
export async function resolveProject(db: Queryable, principal: Principal, projectId: string): Promise<ProjectRow> {
  const project = await getProject(db, principal.userId, projectId);
  if (!project || (principal.projectId && principal.projectId !== project.id)) throw notFound(`Project '${projectId}' not found`);
  return project;
}

export interface NewItem {
  projectId: string;
  ownerId: string;
  keyId: string | null;
  name: string;
  type: string;
  source: ItemRow['source'];
  sourceUrl: string | null;
  content: string;
  metadata: Record<string, unknown>;
  mcpExposed: boolean;
  visibility: 'private' | 'project';
}

/** Inserts the item and its first version. Empty content: a ready placeholder with 0 chunks. */
export async function insertItem(tx: Queryable, n: NewItem): Promise<{ item: ItemRow; version: VersionRow }> {
  const status: ItemStatus = n.content.trim() === '' ? 'ready' : 'pending';
  const [item] = await tx.query<{ id: string }>(
    `insert into kb_items (project_id, owner_id, created_by_key_id, name, type, source, source_url, metadata, mcp_exposed, visibility, status)
     values ($1, $2, $3, $4, $5, $6, $7, $8::text::jsonb, $9, $10, $11) returning id`,
    [n.projectId, n.ownerId, n.keyId, n.name, n.type, n.source, n.sourceUrl, JSON.stringify(n.metadata), n.mcpExposed, n.visibility, status],
  );
  const [version] = await tx.query<VersionRow>(
    `insert into kb_versions (item_id, number, content, content_hash, created_by_key_id) values ($1, 1, $2, $3, $4) returning *`,
    [item!.id, n.content, contentHash(n.content), n.keyId],
  );
  await tx.query('update kb_items set current_version_id = $2 where id = $1', [item!.id, version!.id]);
  const row = await itemById(tx, item!.id);
  return { item: row!, version: version! };
}

export async function itemById(db: Queryable, id: string): Promise<ItemRow | null> {
  const [row] = await db.query<ItemRow>(`select ${ITEM_COLUMNS} from kb_items i where i.id = $1`, [id]);
  return row ? normalise(row) : null;
}

/** A live (not deleted) item of the project that the principal may see; null otherwise. */
export async function getVisibleItem(db: Queryable, principal: Principal, projectId: string, itemId: string, lock = false): Promise<ItemRow | null> {
  if (!UUID.test(itemId)) return null;
  const [row] = await db.query<ItemRow>(
    `select ${ITEM_COLUMNS} from kb_items i
      where i.id = $1 and i.project_id = $2 and i.deleted_at is null and ${visibleSql('i', 3)}${lock ? ' for update' : ''}`,
    [itemId, projectId, ...visibleParams(principal)],
  );
  return row ? normalise(row) : null;
}

/** Ids and names of the live items the principal may see in a project, newest first, optionally by id prefix (completion). */
export async function visibleItemIds(db: Queryable, principal: Principal, projectId: string, options: { prefix?: string; limit: number }) {
  const prefix = (options.prefix ?? '').toLowerCase().replace(/[^0-9a-f-]/g, '');
  return db.query<{ id: string; name: string | null }>(
    `select i.id, i.name from kb_items i
      where i.project_id = $1 and i.deleted_at is null and ${visibleSql('i', 2)} and i.id::text like $4
      order by i.created_at desc limit $5`,
    [projectId, ...visibleParams(principal), `${prefix}%`, options.limit],
  );
}

export async function requireVisibleItem(db: Queryable, principal: Principal, projectId: string, itemId: string, lock = false): Promise<ItemRow> {
  const item = await getVisibleItem(db, principal, projectId, itemId, lock);
  if (!item) throw itemNotFound(itemId);
  return item;
}

export async function getVersion(db: Queryable, itemId: string, versionId: string): Promise<VersionRow | null> {
  if (!UUID.test(versionId)) return null;
  const [row] = await db.query<VersionRow>('select * from kb_versions where id = $1 and item_id = $2', [versionId, itemId]);
  return row ?? null;
}

export function encodeCursor(createdKey: string, id: string): string {
  return Buffer.from(JSON.stringify([createdKey, id])).toString('base64url');
}

export function decodeCursor(cursor: string): [string, string] | null {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === 'string' && typeof v[1] === 'string' && UUID.test(v[1]) && !Number.isNaN(Date.parse(v[0]))) {
      return [v[0], v[1]];
    }
  } catch {
    /* fall through */
  }
  return null;
}

export async function listItems(
  db: Queryable,
  principal: Principal,
  projectId: string,
  options: { limit: number; cursor: [string, string] | null; metadataFilter: Record<string, unknown> | null; status?: string | null },
): Promise<{ items: ItemRow[]; nextCursor: string | null; total: number }> {
  const params: unknown[] = [projectId, ...visibleParams(principal)];
  let where = `i.project_id = $1 and i.deleted_at is null and ${visibleSql('i', 2)}`;
  if (options.metadataFilter) {
    params.push(JSON.stringify(options.metadataFilter));
    where += ` and i.metadata @> $${params.length}::text::jsonb`;
  }
  if (options.status) {
    params.push(options.status);
    where += ` and i.status = $${params.length}`;
  }
  const [{ total }] = (await db.query<{ total: number }>(`select count(*)::int as total from kb_items i where ${where}`, params)) as [{ total: number }];
  const pageParams = [...params];
  let pageWhere = where;
  if (options.cursor) {
    pageParams.push(options.cursor[0], options.cursor[1]);
    pageWhere += ` and (i.created_at, i.id) < ($${pageParams.length - 1}::timestamptz, $${pageParams.length}::uuid)`;
  }
  pageParams.push(options.limit + 1);
  const rows = await db.query<ItemRow>(
    `select ${ITEM_COLUMNS}, i.created_at::text as created_key from kb_items i where ${pageWhere}
      order by i.created_at desc, i.id desc limit $${pageParams.length}`,
    pageParams,
  );
  const more = rows.length > options.limit;
  const page = rows.slice(0, options.limit).map(normalise);
  const last = page[page.length - 1];
  return { items: page, total, nextCursor: more && last ? encodeCursor(last.created_key!, last.id) : null };
}

export interface EditInput {
  name?: string;
  content?: string;
  baseVersionId?: string;
  mcpExposed?: boolean;
  metadata?: Record<string, unknown>;
  visibility?: 'private' | 'project';
}

/**
 * Applies an edit in one locked transaction. Content makes a new version (and queues an ingest)
 * only when base_version_id is the current version; otherwise the stale_base conflict. Name, metadata,
 * visibility and mcp_exposed keep the version.
 */
export async function editItem(
  tx: Queryable,
  principal: Principal,
  projectId: string,
  itemId: string,
  edit: EditInput,
): Promise<{ item: ItemRow; newVersion: VersionRow | null }> {
  const item = await requireVisibleItem(tx, principal, projectId, itemId, true);
  let newVersion: VersionRow | null = null;
  if (edit.content !== undefined) {
    if (edit.baseVersionId !== item.current_version_id) throw staleBase(item.current_version_id);
    const [v] = await tx.query<VersionRow>(
      `insert into kb_versions (item_id, number, content, content_hash, created_by_key_id)
       values ($1, coalesce((select max(number) from kb_versions where item_id = $1), 0) + 1, $2, $3, $4) returning *`,
      [item.id, edit.content, contentHash(edit.content), principal.keyId],
    );
    newVersion = v!;
    const status: ItemStatus = edit.content.trim() === '' ? 'ready' : 'pending';
    await tx.query(
      `update kb_items set current_version_id = $2, status = $3, chunk_count = 0, error = null,
         source = case when source = 'empty' then 'text' else source end, updated_at = now() where id = $1`,
      [item.id, v!.id, status],
    );
  }
  const sets: string[] = [];
  const params: unknown[] = [item.id];
  const set = (col: string, value: unknown, cast = '') => {
    params.push(value);
    sets.push(`${col} = $${params.length}${cast}`);
  };
  if (edit.name !== undefined) set('name', edit.name);
  if (edit.mcpExposed !== undefined) set('mcp_exposed', edit.mcpExposed);
  if (edit.metadata !== undefined) set('metadata', JSON.stringify(edit.metadata), '::text::jsonb');
  if (edit.visibility !== undefined) {
    set('visibility', edit.visibility);
    // An item made private by a key that did not create it (or created over an identity session)
    // stays reachable by the key that restricted it.
    if (edit.visibility === 'private' && !item.created_by_key_id && principal.keyId) set('created_by_key_id', principal.keyId);
  }
  if (sets.length) await tx.query(`update kb_items set ${sets.join(', ')}, updated_at = now() where id = $1`, params);
  return { item: (await itemById(tx, item.id))!, newVersion };
}

/** Soft delete: the row, its versions and chunks stay for audit; listings and queries skip it. */
export async function softDeleteItem(tx: Queryable, principal: Principal, projectId: string, itemId: string): Promise<{ item: ItemRow; labels: number[] }> {
  const item = await requireVisibleItem(tx, principal, projectId, itemId, true);
  await tx.query('update kb_items set deleted_at = now(), updated_at = now() where id = $1', [item.id]);
  const labels = await tx.query<{ label: number }>('select label from kb_chunks where item_id = $1', [item.id]);
  return { item: (await itemById(tx, item.id))!, labels: labels.map((r) => r.label) };
}

/** New version with the current content, status pending: the path out of FAILED. */
export async function newReindexVersion(tx: Queryable, principal: Principal, projectId: string, itemId: string): Promise<{ item: ItemRow; version: VersionRow }> {
  const item = await requireVisibleItem(tx, principal, projectId, itemId, true);
  const [current] = await tx.query<{ content: string }>('select content from kb_versions where id = $1', [item.current_version_id]);
  const content = current?.content ?? '';
  const [v] = await tx.query<VersionRow>(
    `insert into kb_versions (item_id, number, content, content_hash, created_by_key_id)
     values ($1, coalesce((select max(number) from kb_versions where item_id = $1), 0) + 1, $2, $3, $4) returning *`,
    [item.id, content, contentHash(content), principal.keyId],
  );
  await tx.query(
    `update kb_items set current_version_id = $2, status = $3, chunk_count = 0, error = null, updated_at = now() where id = $1`,
    [item.id, v!.id, content.trim() === '' ? 'ready' : 'pending'],
  );
  return { item: (await itemById(tx, item.id))!, version: v! };
}

export function itemResponse(row: ItemRow) {
  return {
    item_id: row.id,
    project_id: row.project_id,
    name: row.name,
    type: row.type,
    status: row.status,
    current_version_id: row.current_version_id,
    version_number: row.version_number,
    chunk_count: row.chunk_count,
    metadata: row.metadata,
    mcp_exposed: row.mcp_exposed,
    visibility: row.visibility,
    source: row.source,
    source_url: row.source_url,
    error: row.error,
    created_by_key_id: row.created_by_key_id,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

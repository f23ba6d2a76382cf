// Connector feeds: rows, the public view, and owner/project-scoped reads (another user's feed is 404).
import type { Queryable } from '../../store/db.js';
import { notFound } from '../errors.js';
import { UUID } from '../knowledge/items.js';
import { isoOrNull } from '../../lib/time.js';

export const CONNECTOR_TYPES = ['rss', 'sitemap', 'folder'] as const;
export type ConnectorType = (typeof CONNECTOR_TYPES)[number];

export interface FeedRow {
  id: string;
  project_id: string;
  owner_id: string;
  created_by_key_id: string | null;
  type: ConnectorType;
  name: string;
  source: string;
  max_items: number;
  schedule_seconds: number | null;
  next_sync_at: Date | null;
  status: 'idle' | 'syncing' | 'error';
  lease_until: Date | null;
  last_synced_at: Date | null;
  last_error: string | null;
  last_result: unknown;
  sync_count: number;
  etag: string | null;
  last_modified: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface FeedOwner {
  userId: string;
  projectId: string;
}

const json = (v: unknown) => (typeof v === 'string' ? JSON.parse(v) : v ?? null);

export function feedResponse(row: FeedRow, itemCount?: number) {
  return {
    feed_id: row.id,
    type: row.type,
    name: row.name,
    source: row.source,
    max_items: row.max_items,
    interval_seconds: row.schedule_seconds,
    next_sync_at: isoOrNull(row.next_sync_at),
    status: row.status,
    last_synced_at: isoOrNull(row.last_synced_at),
    last_error: row.last_error,
    last_result: json(row.last_result),
    sync_count: row.sync_count,
    ...(itemCount === undefined ? {} : { item_count: itemCount }),
    created_at: isoOrNull(row.created_at)!,
    updated_at: isoOrNull(row.updated_at)!,
  };
}

export async function insertFeed(
  db: Queryable,
  f: FeedOwner & { keyId: string | null; type: ConnectorType; name: string; source: string; maxItems: number; scheduleSeconds: number | null },
): Promise<FeedRow> {
  const [row] = await db.query<FeedRow>(
    `insert into connector_feeds (project_id, owner_id, created_by_key_id, type, name, source, max_items, schedule_seconds, next_sync_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8::integer, case when $8::integer is null then null else now() end) returning *`,
    [f.projectId, f.userId, f.keyId, f.type, f.name, f.source, f.maxItems, f.scheduleSeconds],
  );
  return row!;
}

/** The caller's feed in the caller's project; anything else (another user's, unknown, malformed id) is not_found. */
export async function requireFeed(db: Queryable, owner: FeedOwner, feedId: string): Promise<FeedRow> {
  const row = UUID.test(feedId)
    ? (await db.query<FeedRow>('select * from connector_feeds where id = $1 and project_id = $2 and owner_id = $3', [feedId, owner.projectId, owner.userId]))[0]
    : undefined;
  if (!row) throw notFound(`Connector feed '${feedId}' not found`);
  return row;
}

export async function listFeeds(db: Queryable, owner: FeedOwner, limit: number, type?: ConnectorType): Promise<{ feeds: (FeedRow & { item_count: number })[]; total: number }> {
  const params: unknown[] = [owner.projectId, owner.userId];
  let where = 'f.project_id = $1 and f.owner_id = $2';
  if (type) {
    params.push(type);
    where += ` and f.type = $${params.length}`;
  }
  const [count] = await db.query<{ n: number }>(`select count(*)::int as n from connector_feeds f where ${where}`, params);
  params.push(limit);
  const feeds = await db.query<FeedRow & { item_count: number }>(
    `select f.*, (select count(*)::int from connector_items i where i.feed_id = f.id) as item_count
       from connector_feeds f where ${where} order by f.created_at desc, f.id desc limit $${params.length}`,
    params,
  );
  return { feeds, total: count?.n ?? 0 };
}

export interface FeedItemRow {
  item_key: string;
  content_hash: string;
  lastmod: string | null;
  kb_item_id: string | null;
  updated_at: Date;
}

export async function feedItems(db: Queryable, feedId: string, limit = 10_000): Promise<FeedItemRow[]> {
  return db.query<FeedItemRow>('select item_key, content_hash, lastmod, kb_item_id, updated_at from connector_items where feed_id = $1 order by updated_at desc, item_key limit $2', [feedId, limit]);
}

/** Takes the feed for one sync (no two at once, across processes); null when another sync holds it. */
export async function claimFeed(db: Queryable, feedId: string, leaseMs: number): Promise<FeedRow | null> {
  const [row] = await db.query<FeedRow>(
    `update connector_feeds set status = 'syncing', lease_until = now() + make_interval(secs => $2::double precision / 1000), updated_at = now()
      where id = $1 and (status <> 'syncing' or lease_until < now()) returning *`,
    [feedId, leaseMs],
  );
  return row ?? null;
}

/** Ends a sync: the outcome, and the next scheduled sync one interval from now. */
export async function finishFeed(db: Queryable, feedId: string, outcome: { error: string | null; result: unknown; etag?: string | null; lastModified?: string | null }): Promise<FeedRow> {
  const [row] = await db.query<FeedRow>(
    `update connector_feeds set status = $2, lease_until = null, last_synced_at = now(), last_error = $3, last_result = $4::jsonb,
            sync_count = sync_count + 1, etag = coalesce($5, etag), last_modified = coalesce($6, last_modified), updated_at = now(),
            next_sync_at = case when schedule_seconds is null then null else now() + make_interval(secs => schedule_seconds) end
      where id = $1 returning *`,
    [feedId, outcome.error ? 'error' : 'idle', outcome.error, JSON.stringify(outcome.result), outcome.etag ?? null, outcome.lastModified ?? null],
  );
  return row!;
}

/**
 * Takes one feed whose scheduled sync is due and that no sync holds, for this process: its next_sync_at
 * moves `holdMs` ahead in the same statement (`for update skip locked`), so no other instance sees it due
 * until this one's sync ends (finishFeed sets the real next time) or, if this process dies first, the
 * hold lapses and another takes it. Reading due feeds and claiming them later would let two instances
 * both read a feed as due, and the second sync it again right after the first finished.
 */
export async function claimDueFeed(db: Queryable, holdMs: number): Promise<string | null> {
  const [row] = await db.query<{ id: string }>(
    `update connector_feeds set next_sync_at = now() + make_interval(secs => $1::double precision / 1000), updated_at = now()
      where id = (select id from connector_feeds
                   where schedule_seconds is not null and next_sync_at <= now() and (status <> 'syncing' or lease_until < now())
                   order by next_sync_at limit 1 for update skip locked)
      returning id`,
    [holdMs],
  );
  return row?.id ?? null;
}

// One sync of a connector feed: read the source, then per item ingest it into the project's
// Knowledge Hub (new item), edit it (content changed: a new version), or skip it (same content hash,
// or an unchanged sitemap lastmod, or a 304 from the feed). A second sync of an unchanged source
// ingests nothing.
import type { Plan } from '../../auth/plans.js';
import type { Principal } from '../../auth/principal.js';
import type { Services } from '../../services.js';
import { conflict, DomainError } from '../errors.js';
import { itemById } from '../knowledge/items.js';
import { editAndIngest, ingestItem } from '../knowledge/service.js';
import { FetchRefusedError } from '../platform/ssrf.js';
import { claimFeed, feedItems, finishFeed, type FeedRow } from './feeds.js';
import { readSource } from './sources.js';

/** How long one sync may hold its feed before another process may take it over. */
export const SYNC_LEASE_MS = 10 * 60_000;
const ERRORS_KEPT = 10;

export interface SyncResult {
  feed_id: string;
  not_modified: boolean;
  items_seen: number;
  ingested: number;
  updated: number;
  unchanged: number;
  failed: number;
  errors: { key: string; error: string }[];
  kb_item_ids: string[];
  duration_ms: number;
}

/** The feed's owner as the Knowledge Hub sees a caller (scheduled syncs run without a request). */
async function ownerPrincipal(services: Services, feed: FeedRow): Promise<Principal> {
  const [user] = await services.db.query<{ plan: Plan; is_admin: boolean; store_input_previews: boolean }>('select plan, is_admin, store_input_previews from users where id = $1', [feed.owner_id]);
  return { userId: feed.owner_id, plan: user?.plan ?? 'free', isAdmin: user?.is_admin ?? false, keyId: feed.created_by_key_id, environment: null, projectId: feed.project_id, via: 'api_key', storeInputPreviews: user?.store_input_previews ?? false };
}

function message(err: unknown): string {
  if (err instanceof DomainError) return err.detail;
  if (err instanceof FetchRefusedError) return `fetch_refused (${err.reason}): ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}

/**
 * Syncs a feed the caller already resolved. Throws conflict sync_in_progress when another sync holds
 * it, and the source's error (fetch refused, malformed feed ...) after recording it on the feed.
 */
export async function syncFeed(services: Services, feedId: string): Promise<{ feed: FeedRow; result: SyncResult }> {
  const started = performance.now();
  const feed = await claimFeed(services.db, feedId, SYNC_LEASE_MS);
  if (!feed) throw conflict(`sync_in_progress: connector feed '${feedId}' is being synced; try again when it finishes`, { code: 'sync_in_progress' });
  try {
    const known = new Map((await feedItems(services.db, feed.id)).map((r) => [r.item_key, r]));
    const read = await readSource(services, feed, known);
    const principal = await ownerPrincipal(services, feed);
    const result: SyncResult = {
      feed_id: feed.id, not_modified: read.notModified, items_seen: read.seen, ingested: 0, updated: 0,
      unchanged: read.unchangedKeys.length, failed: read.failed.length, errors: read.failed.slice(0, ERRORS_KEPT), kb_item_ids: [], duration_ms: 0,
    };
    for (const doc of read.docs) {
      const prev = known.get(doc.key);
      const lastmod = read.lastmods.get(doc.key) ?? null;
      try {
        if (prev && prev.content_hash === doc.hash) {
          result.unchanged++;
          if (lastmod !== prev.lastmod) await services.db.query('update connector_items set lastmod = $3 where feed_id = $1 and item_key = $2', [feed.id, doc.key, lastmod]);
          continue;
        }
        if (!doc.text.trim()) {
          result.failed++;
          if (result.errors.length < ERRORS_KEPT) result.errors.push({ key: doc.key, error: 'no readable text' });
          continue;
        }
        const existing = prev?.kb_item_id ? await itemById(services.db, prev.kb_item_id) : null;
        let kbId: string;
        if (existing && !existing.deleted_at && existing.current_version_id) {
          await editAndIngest(services, principal, feed.project_id, existing.id, { content: doc.text, baseVersionId: existing.current_version_id });
          kbId = existing.id;
          result.updated++;
        } else {
          const { item } = await ingestItem(
            services,
            principal,
            feed.project_id,
            {
              name: (doc.title ?? doc.key).slice(0, 200),
              text: doc.text,
              type: `connector:${feed.type}`,
              metadata: { connector_feed_id: feed.id, connector_type: feed.type, item_key: doc.key, ...(doc.url ? { source_url: doc.url } : {}) },
            },
            feed.type === 'folder' ? 'text' : 'url',
          );
          kbId = item.id;
          result.ingested++;
        }
        result.kb_item_ids.push(kbId);
        await services.db.query(
          `insert into connector_items (feed_id, item_key, content_hash, lastmod, kb_item_id) values ($1, $2, $3, $4, $5)
           on conflict (feed_id, item_key) do update set content_hash = excluded.content_hash, lastmod = excluded.lastmod, kb_item_id = excluded.kb_item_id, updated_at = now()`,
          [feed.id, doc.key, doc.hash, lastmod, kbId],
        );
      } catch (err) {
        result.failed++;
        if (result.errors.length < ERRORS_KEPT) result.errors.push({ key: doc.key, error: message(err) });
      }
    }
    result.duration_ms = Math.round(performance.now() - started);
    const done = await finishFeed(services.db, feed.id, { error: null, result, etag: read.etag, lastModified: read.lastModified });
    return { feed: done, result };
  } catch (err) {
    await finishFeed(services.db, feed.id, { error: message(err), result: null }).catch(() => undefined);
    throw err;
  }
}

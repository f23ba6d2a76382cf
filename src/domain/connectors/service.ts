// Connector feed use cases behind the MCP tools: types, create, get, list, sync.
import type { Principal } from '../../auth/principal.js';
import type { Services } from '../../services.js';
import { DomainError, invalid } from '../errors.js';
import { resolveProject } from '../knowledge/items.js';
import { FetchRefusedError, vetHost } from '../platform/ssrf.js';
import { checkWebUrl } from '../web/guard.js';
import { CONNECTOR_TYPES, feedItems, feedResponse, insertFeed, listFeeds, requireFeed, type ConnectorType, type FeedOwner } from './feeds.js';
import { FOLDER_EXTENSIONS, folderPath, MAX_CHILD_SITEMAPS, XML_TYPES } from './sources.js';
import { syncFeed } from './sync.js';
import { iso } from '../../lib/time.js';

export const MAX_ITEMS_DEFAULT = 50;
export const MAX_ITEMS_LIMIT = 500;
export const MAX_INTERVAL_SECONDS = 7 * 24 * 3600;

export function connectorTypes(services: Services) {
  const web = services.config.web;
  return {
    types: [
      { type: 'rss', available: true, source: 'https URL of an RSS 2.0, RSS 1.0 or Atom feed', content_types: [...XML_TYPES], item_key: 'guid, else id, else link', change_detection: 'ETag / Last-Modified (304), then content hash per item' },
      { type: 'sitemap', available: true, source: 'https URL of an XML sitemap (urlset) or sitemap index', content_types: [...XML_TYPES], item_key: 'page URL (loc)', change_detection: `lastmod, then content hash of the extracted page; up to ${MAX_CHILD_SITEMAPS} child sitemaps per index` },
      {
        type: 'folder', available: web.folderRoot !== null, source: 'path relative to the server\'s connector folder root (CONNECTOR_FOLDER_ROOT)',
        extensions: [...FOLDER_EXTENSIONS], item_key: 'path relative to the feed folder', change_detection: 'content hash per file',
        ...(web.folderRoot === null ? { unavailable_reason: 'CONNECTOR_FOLDER_ROOT is not set on this server' } : {}),
      },
    ],
    max_items: { default: MAX_ITEMS_DEFAULT, max: MAX_ITEMS_LIMIT },
    interval_seconds: { min: web.minIntervalSeconds, max: MAX_INTERVAL_SECONDS },
    limits: { max_bytes: web.maxBytes, timeout_ms: web.timeoutMs },
  };
}

async function owner(services: Services, principal: Principal): Promise<FeedOwner> {
  const project = await resolveProject(services.db, principal, principal.projectId!).catch(() => null);
  if (!project) throw new DomainError('forbidden', 'The project this key is bound to no longer exists', { code: 'no_project_selected' });
  return { userId: principal.userId, projectId: project.id };
}

/** Refuses at creation what can never be fetched; a name that does not resolve yet is re-vetted at every sync. */
async function checkSourceUrl(services: Services, raw: string): Promise<string> {
  try {
    const { url, allowed } = checkWebUrl(services.config.web, raw, 'source');
    if (!allowed) await vetHost(url.hostname);
    return url.toString();
  } catch (err) {
    if (err instanceof FetchRefusedError && err.reason === 'network') return raw;
    if (err instanceof FetchRefusedError) throw invalid(`fetch_refused (${err.reason}): source: ${err.message}`, { code: 'fetch_refused', extra: { reason: err.reason } });
    throw err;
  }
}

export interface CreateFeedInput {
  type: string;
  source: string;
  name?: string | null;
  max_items?: number;
  interval_seconds?: number | null;
}

export async function createFeed(services: Services, principal: Principal, input: CreateFeedInput) {
  const o = await owner(services, principal);
  if (!(CONNECTOR_TYPES as readonly string[]).includes(input.type)) {
    throw invalid(`unknown_connector_type: '${input.type}'. Valid types: ${CONNECTOR_TYPES.join(', ')} (list_connector_types)`, { code: 'unknown_connector_type' });
  }
  const type = input.type as ConnectorType;
  const web = services.config.web;
  const interval = input.interval_seconds ?? null;
  if (interval !== null && (interval < web.minIntervalSeconds || interval > MAX_INTERVAL_SECONDS)) {
    throw invalid(`interval_seconds must be between ${web.minIntervalSeconds} and ${MAX_INTERVAL_SECONDS}, or omitted for manual syncs only`);
  }
  let source: string;
  if (type === 'folder') {
    await folderPath(web, input.source);
    source = input.source;
  } else {
    source = await checkSourceUrl(services, input.source);
  }
  const row = await insertFeed(services.db, {
    ...o, keyId: principal.keyId, type, source,
    name: input.name?.trim() || source.slice(0, 200),
    maxItems: input.max_items ?? MAX_ITEMS_DEFAULT,
    scheduleSeconds: interval,
  });
  return feedResponse(row, 0);
}

export async function getFeed(services: Services, principal: Principal, feedId: string, itemLimit: number) {
  const feed = await requireFeed(services.db, await owner(services, principal), feedId);
  const items = await feedItems(services.db, feed.id);
  return {
    ...feedResponse(feed, items.length),
    items: items.slice(0, itemLimit).map((i) => ({ item_key: i.item_key, kb_item_id: i.kb_item_id, content_hash: i.content_hash, lastmod: i.lastmod, updated_at: iso(i.updated_at) })),
  };
}

export async function listConnectorFeeds(services: Services, principal: Principal, limit: number, type?: string) {
  if (type !== undefined && !(CONNECTOR_TYPES as readonly string[]).includes(type)) {
    throw invalid(`unknown_connector_type: '${type}'. Valid types: ${CONNECTOR_TYPES.join(', ')}`, { code: 'unknown_connector_type' });
  }
  const { feeds, total } = await listFeeds(services.db, await owner(services, principal), limit, type as ConnectorType | undefined);
  return { feeds: feeds.map((f) => feedResponse(f, f.item_count)), total };
}

export async function syncConnectorFeed(services: Services, principal: Principal, feedId: string) {
  const feed = await requireFeed(services.db, await owner(services, principal), feedId);
  const { feed: done, result } = await syncFeed(services, feed.id);
  return { ...result, feed: feedResponse(done) };
}

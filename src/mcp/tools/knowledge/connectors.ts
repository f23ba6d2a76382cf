import { z } from 'zod';
import { connectorTypes, createFeed, getFeed, listConnectorFeeds, MAX_INTERVAL_SECONDS, MAX_ITEMS_LIMIT, syncConnectorFeed } from '../../../domain/connectors/service.js';
import { defineTool } from '../../tool.js';
import { int } from '../outputs.js';

const feedId = z.string().min(1).max(100).describe('feed_id from create_connector_feed or list_connector_feeds');

/** A feed as every connector tool returns it (feedResponse); item_count where the feed's items were counted. */
const feedShape = {
  feed_id: z.string(),
  type: z.string(),
  name: z.string(),
  source: z.string(),
  max_items: int,
  interval_seconds: int.nullable(),
  next_sync_at: z.string().nullable(),
  status: z.string(),
  last_synced_at: z.string().nullable(),
  last_error: z.string().nullable(),
  last_result: z.unknown(),
  sync_count: int,
  item_count: int.optional(),
  created_at: z.string(),
  updated_at: z.string(),
};
const feedOut = z.looseObject(feedShape);

export const connectorTools = [
  defineTool({
    name: 'list_connector_types',
    advisory: true,
    readOnly: true,
    description: 'The connector feed types (rss, sitemap, folder): what each takes as source, how changes are detected, whether it is available on this server, and the limits (max_items, interval_seconds, size, time).',
    output: z.looseObject({
      types: z.array(z.looseObject({ type: z.string(), available: z.boolean(), source: z.string() })),
      max_items: z.looseObject({ default: int, max: int }),
      interval_seconds: z.looseObject({ min: int, max: int }),
      limits: z.looseObject({ max_bytes: int, timeout_ms: int }),
    }),
    input: z.object({}).strict(),
    handler(_args, ctx) {
      return { result: connectorTypes(ctx.services) };
    },
  }),
  defineTool({
    name: 'create_connector_feed',
    scope: 'mcp:write',
    needsProject: true,
    advisory: true,
    description:
      "Creates a connector feed whose items are ingested into the key's project Knowledge Hub by sync_connector_feed, and, with interval_seconds, automatically on that schedule. Types: rss (RSS/Atom URL), sitemap (XML sitemap URL), folder (path under the server's connector root). URLs are https and pass the SSRF guard.",
    output: feedOut,
    input: z
      .object({
        type: z.string().min(1).max(40).describe('rss, sitemap or folder (list_connector_types)'),
        source: z.string().min(1).max(4096).describe('Feed or sitemap URL, or folder path relative to the connector root'),
        name: z.string().max(200).optional(),
        max_items: z.number().int().min(1).max(MAX_ITEMS_LIMIT).optional().describe('Items read per sync (default 50)'),
        interval_seconds: z.number().int().min(1).max(MAX_INTERVAL_SECONDS).optional().describe('Sync automatically every this many seconds (server minimum applies)'),
      })
      .strict(),
    async handler(args, ctx) {
      return { result: await createFeed(ctx.services, ctx.principal, args) };
    },
  }),
  defineTool({
    name: 'get_connector_feed',
    scope: 'mcp:read',
    needsProject: true,
    advisory: true,
    readOnly: true,
    description: 'One of your connector feeds: source, schedule, status, last sync result and error, and the items it ingested (item key, Knowledge Hub item id, content hash).',
    output: z.looseObject({ ...feedShape, items: z.array(z.looseObject({ item_key: z.string(), kb_item_id: z.string().nullable(), content_hash: z.string().nullable() })) }),
    input: z.object({ feed_id: feedId, item_limit: z.number().int().min(0).max(1000).default(100) }).strict(),
    async handler(args, ctx) {
      return { result: await getFeed(ctx.services, ctx.principal, args.feed_id, args.item_limit) };
    },
  }),
  defineTool({
    name: 'list_connector_feeds',
    scope: 'mcp:read',
    needsProject: true,
    advisory: true,
    readOnly: true,
    description: "Your connector feeds in the key's project, newest first, optionally of one type.",
    output: z.looseObject({ feeds: z.array(feedOut), total: int }),
    input: z.object({ type: z.string().max(40).optional(), limit: z.number().int().min(1).max(200).default(50) }).strict(),
    async handler(args, ctx) {
      return { result: await listConnectorFeeds(ctx.services, ctx.principal, args.limit, args.type) };
    },
  }),
  defineTool({
    name: 'sync_connector_feed',
    scope: 'mcp:write',
    needsProject: true,
    advisory: true,
    description:
      'Syncs a connector feed now: new items are ingested into the Knowledge Hub, changed ones get a new version, unchanged ones (same content hash, sitemap lastmod or HTTP 304) are skipped, so a repeated sync ingests nothing. Returns the counts and per-item errors.',
    output: z.looseObject({
      feed_id: z.string(),
      not_modified: z.boolean(),
      items_seen: int,
      ingested: int,
      updated: int,
      unchanged: int,
      failed: int,
      errors: z.array(z.looseObject({ key: z.string(), error: z.string() })),
      kb_item_ids: z.array(z.string()),
      duration_ms: int,
      feed: feedOut,
    }),
    input: z.object({ feed_id: feedId }).strict(),
    async handler(args, ctx) {
      return { result: await syncConnectorFeed(ctx.services, ctx.principal, args.feed_id) };
    },
  }),
];

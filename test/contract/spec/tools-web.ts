// Spec: "Tool catalogue > Pro tools": platform: web (gc_web_lookup: fetch URL, compress, query-relevant
// skeleton; gc_web_search: caller supplies own search-provider key, passed through only, never logged,
// stored or returned) and the general connector tools (create_connector_feed, get_connector_feed,
// list_connector_feeds, list_connector_types, sync_connector_feed). The spec names no fields for these;
// the checked names are the ones docs/web-and-connectors.md documents. The local site and search
// provider the entries fetch from are allowed for this suite's server the way WEB_ALLOWED_HOSTS allows them.
import { LocalSearchServer } from '../../../src/providers/search/localServer.js';
import { articlePage, GARDEN, LocalSite, rss } from '../../web/site.js';
import { t, type ContractFile } from '../contract.js';

const NO_FIELDS = 'The spec lists the tool without response fields; the checked names are the ones docs/web-and-connectors.md uses.';
const SEARCH_KEY = 'contract-search-key-0123456789abcdef';
const FEED_FIELDS = {
  feed_id: t.uuid, type: t.enum('rss', 'sitemap', 'folder'), name: t.string, source: t.string, max_items: t.integer,
  interval_seconds: t.nullable(t.integer), status: t.enum('idle', 'syncing', 'error'), sync_count: t.integer, created_at: t.timestamp,
};

export default {
  area: 'MCP tools: platform web and connector feeds',
  setup: async (c) => {
    const site = (await new LocalSite().start()).unref();
    site.set('/article', { body: articlePage('Growing tomatoes', GARDEN) });
    site.set('/feed.xml', { type: 'application/rss+xml', body: rss([{ guid: 'c-1', title: 'Contract item', body: '<p>The contract suite checks connector feeds.</p>' }]) });
    const search = new LocalSearchServer([{ title: 'Pruning tomato suckers', url: 'https://garden.example/pruning', text: 'Remove suckers between the main stem and branches.' }], { requiredKey: SEARCH_KEY });
    await search.start();
    search.unref();
    const web = c.server.app.services.config.web;
    web.allowedHosts.push(site.hostPort, search.hostPort);
    web.searchBaseUrl = search.url;
    c.fx.web_site = site.url;
    c.fx.connector_feed_id = (await c.tool('create_connector_feed', { type: 'rss', source: `${site.url}/feed.xml`, name: 'contract feed' }, 'project')).feed_id;
  },
  tools: [
    {
      tool: 'gc_web_lookup',
      spec: 'platform: web | gc_web_lookup (fetch URL, compress, query-relevant skeleton)',
      args: (c) => ({ url: `${c.fx.web_site}/article`, query: 'pruning suckers' }),
      note: NO_FIELDS,
      fields: {
        url: t.string, final_url: t.string, title: t.nullable(t.string), content_type: t.string, skeleton: t.string,
        selection_mode: t.enum('query_guided', 'baseline'), original_tokens: t.integer, compressed_tokens: t.integer,
      },
    },
    {
      tool: 'gc_web_search',
      spec: 'platform: web | gc_web_search (caller supplies own search-provider key; never returned)',
      args: { query: 'pruning tomato suckers', api_key: SEARCH_KEY },
      note: NO_FIELDS,
      fields: { provider: t.const('brave'), query: t.string, 'results[].title': t.string, 'results[].url': t.string, 'results[].snippet': t.string, 'results[].score': t.number, context: t.string },
      check: (data) => {
        if (JSON.stringify(data).includes(SEARCH_KEY)) throw new Error('the search key came back in the result');
      },
    },
    {
      tool: 'list_connector_types',
      spec: 'general | list_connector_types',
      args: {},
      note: NO_FIELDS,
      fields: { 'types[].type': t.enum('rss', 'sitemap', 'folder'), 'types[].available': t.boolean, 'types[].source': t.string },
    },
    {
      tool: 'create_connector_feed',
      spec: 'general | create_connector_feed',
      args: (c) => ({ type: 'rss', source: `${c.fx.web_site}/feed.xml` }),
      key: 'project',
      note: NO_FIELDS,
      fields: FEED_FIELDS,
    },
    {
      tool: 'get_connector_feed',
      spec: 'general | get_connector_feed',
      args: (c) => ({ feed_id: c.fx.connector_feed_id }),
      key: 'project',
      note: NO_FIELDS,
      fields: { ...FEED_FIELDS, item_count: t.integer, items: t.array },
    },
    {
      tool: 'list_connector_feeds',
      spec: 'general | list_connector_feeds',
      args: {},
      key: 'project',
      note: `${NO_FIELDS} The list container is not named by the spec.`,
      fields: { 'feeds[].feed_id': t.uuid, 'feeds[].type': t.string, total: t.integer },
    },
    {
      tool: 'sync_connector_feed',
      spec: 'general | sync_connector_feed',
      args: (c) => ({ feed_id: c.fx.connector_feed_id }),
      key: 'project',
      note: NO_FIELDS,
      fields: { feed_id: t.uuid, items_seen: t.integer, ingested: t.integer, updated: t.integer, unchanged: t.integer, failed: t.integer, not_modified: t.boolean, kb_item_ids: t.array },
    },
  ],
} satisfies ContractFile;

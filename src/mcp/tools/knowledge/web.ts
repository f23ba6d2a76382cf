import { z } from 'zod';
import { FIDELITIES } from '../../../../workers/shared/fidelity.js';
import { webLookup } from '../../../domain/web/lookup.js';
import { SEARCH_PROVIDERS, webSearch } from '../../../domain/web/search.js';
import { BRAVE_MAX_COUNT } from '../../../providers/search/brave.js';
import { defineToolGroup } from '../../tool.js';
import { connectorTools } from './connectors.js';
import { fidelity, int, tokenFigures } from '../outputs.js';

/** Both fetch from the public web. */
const onTheWeb = defineToolGroup({ hints: { openWorldHint: true } });

const lookupTools = [
  onTheWeb({
    name: 'gc_web_lookup',
    readOnly: true,
    description:
      'Fetches a web page (https; every redirect re-checked; private, loopback and metadata addresses refused; size, time and content-type limits), extracts its main content (Readability), converts it to markdown and returns a compressed skeleton, query-guided when a query is given. Errors: fetch_refused (with reason), unsupported_content_type, empty_page.',
    input: z
      .object({
        url: z.string().min(1).max(4096).describe('https URL of the page'),
        query: z.string().max(2000).optional().describe('What you are looking for: the skeleton keeps the passages relevant to it'),
        fidelity: z.enum(FIDELITIES).default('balanced').describe('How much of the page the skeleton keeps'),
        include_markdown: z.boolean().default(false).describe('Also return the full extracted markdown'),
      })
      .strict(),
    output: z.looseObject({
      url: z.string(),
      final_url: z.string(),
      title: z.string().nullable(),
      content_type: z.string(),
      extraction: z.enum(['readability', 'full_body', 'none']),
      selection_mode: z.enum(['query_guided', 'baseline']),
      skeleton: z.string(),
      ...tokenFigures,
      fidelity,
      original_id: z.string().nullable(),
      markdown: z.string().optional(),
    }),
    async handler(args, ctx) {
      return { result: await webLookup(ctx.call, { url: args.url, query: args.query ?? null, fidelity: args.fidelity, include_markdown: args.include_markdown }) };
    },
  }),
  onTheWeb({
    name: 'gc_web_search',
    readOnly: true,
    description:
      "Searches the web with the caller's own search-provider key (Brave Search API format; the key is passed through to the provider only: never logged, stored or returned). Results are re-ranked for the query (BM25 fused with the provider's order) and compressed into one query-guided context block.",
    input: z
      .object({
        query: z.string().min(1).max(400),
        api_key: z.string().min(1).max(512).describe("Your search provider's API key (Brave: X-Subscription-Token); used for this one request"),
        provider: z.enum(SEARCH_PROVIDERS).default('brave'),
        count: z.number().int().min(1).max(BRAVE_MAX_COUNT).default(10),
        fidelity: z.enum(FIDELITIES).default('detailed').describe('Fidelity of the compressed context block'),
      })
      .strict(),
    output: z.looseObject({
      provider: z.string(),
      query: z.string(),
      result_count: int,
      results: z.array(z.looseObject({ rank: int, title: z.string(), url: z.string(), snippet: z.string(), score: z.number() })),
      context: z.string(),
      ...tokenFigures,
    }),
    async handler(args, ctx) {
      return { result: await webSearch(ctx.call, { query: args.query, api_key: args.api_key, count: args.count, fidelity: args.fidelity }) };
    },
  }),
];

/** The web area's tools: page lookup, web search, and the connector feeds (src/mcp/tools/knowledge/connectors.ts). */
export const webTools = [...lookupTools, ...connectorTools];

import { z } from 'zod';
import { docsCoverage, LOOKUP_DEFAULT_LIMIT, lookupDocs, MAX_LIMIT, MAX_QUERY_CHARS, readDoc, SEARCH_DEFAULT_LIMIT, searchDocs } from '../../../domain/docs/lookup.js';
import { seenChunks } from '../../../domain/docs/sessionSeen.js';
import { defineTool } from '../../tool.js';
import { int } from '../outputs.js';

const query = z.string().min(1).max(MAX_QUERY_CHARS).describe('A developer question or keywords, e.g. "How do I add a hook before the handler in Fastify?"');
const frameworks = z
  .array(z.string().min(1).max(64))
  .max(9)
  .optional()
  .describe('Only these frameworks (ids from gc_docs_coverage: fastify, undici, pino, axios, ioredis, postgres, commander, piscina, mcp-sdk). Default: all, or the ones the query names.');

export const docsLookupTools = [
  defineTool({
    name: 'gc_lookup',
    advisory: true,
    readOnly: true,
    description:
      'Documentation chunks from nine indexed frameworks (Fastify, Undici, Pino, Axios, ioredis, Postgres.js, Commander.js, Piscina, MCP TypeScript SDK; pinned versions) ranked by similarity to the query (BM25 and embeddings fused). Each chunk: title, official url (page and section at the version tag), content, score. dedup (default true): a chunk already returned in this MCP session is not returned again; dedup=false repeats it.',
    output: z.looseObject({
      query: z.string(),
      results: z.array(z.looseObject({ chunk_id: z.string(), doc_id: z.string(), framework: z.string(), version: z.string(), title: z.string(), url: z.string(), score: z.number(), content: z.string(), tokens: int })),
      count: int,
      dedup: z.boolean(),
      withheld: int,
      tokens: int,
    }),
    input: z
      .object({
        query,
        frameworks,
        limit: z.number().int().min(1).max(MAX_LIMIT).default(LOOKUP_DEFAULT_LIMIT).describe('Chunks to return'),
        dedup: z.boolean().default(true).describe('Withhold chunks this session has already received'),
      })
      .strict(),
    async handler(args, ctx) {
      return { result: await lookupDocs(ctx.call, args, seenChunks(ctx.session)) };
    },
  }),
  defineTool({
    name: 'gc_search_docs',
    advisory: true,
    readOnly: true,
    description:
      'Ranked documentation results (title, snippet, url, score, doc_id) across the nine indexed frameworks; gc_read_doc opens a result page by its doc_id.',
    output: z.looseObject({
      query: z.string(),
      results: z.array(z.looseObject({ title: z.string(), snippet: z.string(), url: z.string(), score: z.number(), doc_id: z.string(), framework: z.string(), version: z.string() })),
      count: int,
    }),
    input: z
      .object({ query, frameworks, limit: z.number().int().min(1).max(MAX_LIMIT).default(SEARCH_DEFAULT_LIMIT).describe('Results to return') })
      .strict(),
    async handler(args, ctx) {
      return { result: await searchDocs(ctx.call, args) };
    },
  }),
  defineTool({
    name: 'gc_read_doc',
    advisory: true,
    readOnly: true,
    description:
      'One indexed documentation page as Markdown, with source_url (the official page at the version tag) and length_tokens. Give doc_id (from gc_search_docs or gc_lookup) or the page url.',
    output: z.looseObject({ doc_id: z.string(), framework: z.string(), version: z.string(), title: z.string(), source_url: z.string(), markdown: z.string(), length_tokens: int }),
    input: z
      .object({
        doc_id: z.string().min(1).max(300).optional().describe('e.g. fastify/docs/Reference/Hooks'),
        url: z.string().min(1).max(1000).optional().describe('The page URL from a result (an anchor is ignored)'),
      })
      .strict(),
    async handler(args, ctx) {
      return { result: await readDoc(ctx.call, args) };
    },
  }),
  defineTool({
    name: 'gc_docs_coverage',
    advisory: true,
    readOnly: true,
    description:
      'What the documentation lookup indexes: each framework with its npm package, pinned version, official source, page, chunk and token counts and its pages; totals; the embedding model.',
    output: z.looseObject({
      frameworks: z.array(z.looseObject({ id: z.string(), version: z.string(), docs: z.array(z.looseObject({ doc_id: z.string(), title: z.string(), url: z.string() })) })),
      totals: z.looseObject({ frameworks: int, pages: int, chunks: int, tokens: int }),
      embedding_model: z.string(),
    }),
    input: z.object({}).strict(),
    async handler(_args, ctx) {
      return { result: await docsCoverage(ctx.call) };
    },
  }),
];

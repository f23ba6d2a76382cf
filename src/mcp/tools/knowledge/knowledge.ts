import { z } from 'zod';
import {
  itemResponse, LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, listItems, decodeCursor, requireVisibleItem, resolveProject, VISIBILITIES,
} from '../../../domain/knowledge/items.js';
import { insufficiency, QUERY_LIMIT_DEFAULT, QUERY_LIMIT_MAX, queryKnowledge } from '../../../domain/knowledge/query.js';
import {
  checkVisibility, currentContent, deleteItem, diffVersions, editAndIngest, ingestItem, MAX_CONTENT_CHARS,
} from '../../../domain/knowledge/service.js';
import { grantShare, shareResponse } from '../../../domain/knowledge/shares.js';
import { DomainError, invalidInput } from '../../../domain/errors.js';
import { defaultProjectId } from '../../../domain/identity/projects.js';
import { defineTool, type ToolContext } from '../../tool.js';
import { anyObject, int } from '../outputs.js';

const itemId = z.string().uuid().describe('item_id returned by gc_kb_ingest or gc_kb_list');
const metadata = z.record(z.string(), z.unknown());

/** An item as itemResponse gives it. */
const itemOutput = z.looseObject({
  item_id: z.string(),
  project_id: z.string(),
  name: z.string(),
  type: z.string(),
  status: z.enum(['pending', 'indexing', 'ready', 'FAILED']),
  current_version_id: z.string().nullable(),
  version_number: int.nullable(),
  chunk_count: int,
  metadata: anyObject,
  mcp_exposed: z.boolean(),
  visibility: z.enum(VISIBILITIES),
  source: z.string(),
  source_url: z.string().nullable(),
  error: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

/** The key's project (needsProject guarantees one is bound); it must still be the caller's. */
async function boundProject(ctx: ToolContext): Promise<string> {
  const project = await resolveProject(ctx.services.db, ctx.principal, ctx.principal.projectId!).catch(() => null);
  if (!project) throw new DomainError('forbidden', 'The project this key is bound to no longer exists', { code: 'no_project_selected' });
  return project.id;
}


/** An item's visibility on ingest (gc_kb_ingest, batch_ingest_documents). */
export const visibilityArg = z.enum(VISIBILITIES).optional().describe('private or project (default); org and external are not implemented');
export const knowledgeTools = [
  defineTool({
    name: 'gc_kb_ingest',
    scope: 'mcp:write',
    needsProject: true,
    description:
      "Adds a document to the key's project Knowledge Hub: content (text) or an https url; a name alone creates an empty placeholder. Chunking and embedding run asynchronously: status moves pending → indexing → ready (or FAILED).",
    input: z
      .object({
        name: z.string().trim().min(1).max(200).optional(),
        content: z.string().max(MAX_CONTENT_CHARS).optional(),
        url: z.string().url().max(2048).optional(),
        type: z.string().trim().min(1).max(50).optional().describe('Item type, e.g. document or plan'),
        metadata: metadata.optional(),
        visibility: visibilityArg,
        mcp_exposed: z.boolean().optional(),
      })
      .strict()
      .refine((a) => !(a.content !== undefined && a.url !== undefined), { message: 'Give content or url, not both', path: ['url'] })
      .refine((a) => a.name !== undefined || a.content !== undefined || a.url !== undefined, { message: 'Give content, url or a name', path: ['content'] }),
    output: itemOutput.extend({ version_id: z.string() }),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      const { item, version } = await ingestItem(ctx.services, ctx.principal, project, { ...args, text: args.content });
      return { result: { ...itemResponse(item), version_id: version.id } };
    },
  }),
  defineTool({
    name: 'gc_kb_get',
    scope: 'mcp:read',
    needsProject: true,
    description: 'Returns one Knowledge Hub item with its current version id, status, chunk count and (by default) its content.',
    output: itemOutput.extend({ content: z.string().optional() }),
    input: z.object({ item_id: itemId, include_content: z.boolean().default(true) }).strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      const item = await requireVisibleItem(ctx.services.db, ctx.principal, project, args.item_id);
      return { result: { ...itemResponse(item), ...(args.include_content ? { content: await currentContent(ctx.services, item) } : {}) } };
    },
  }),
  defineTool({
    name: 'gc_kb_list',
    scope: 'mcp:read',
    needsProject: true,
    description: `Lists the project's Knowledge Hub items, newest first: limit 1-${LIST_LIMIT_MAX} (default ${LIST_LIMIT_DEFAULT}), opaque cursor, metadata_filter (JSON containment).`,
    input: z
      .object({
        limit: z.number().int().min(1).max(LIST_LIMIT_MAX).default(LIST_LIMIT_DEFAULT),
        cursor: z.string().max(500).optional(),
        metadata_filter: metadata.optional(),
      })
      .strict(),
    output: z.looseObject({ items: z.array(itemOutput), next_cursor: z.string().nullable(), total: int }),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      const cursor = args.cursor ? decodeCursor(args.cursor) : null;
      if (args.cursor && !cursor) throw invalidInput('invalid cursor', [{ loc: ['cursor'], msg: 'invalid cursor', type: 'value_error.cursor' }]);
      const page = await listItems(ctx.services.db, ctx.principal, project, { limit: args.limit, cursor, metadataFilter: args.metadata_filter ?? null });
      return { result: { items: page.items.map(itemResponse), next_cursor: page.nextCursor, total: page.total } };
    },
  }),
  defineTool({
    name: 'gc_kb_edit',
    scope: 'mcp:write',
    needsProject: true,
    description:
      'Edits an item. content creates a new version and needs base_version_id (the version you read): a stale base returns stale_base with current_version_id. name, metadata or mcp_exposed alone keep the version.',
    input: z
      .object({
        item_id: itemId,
        name: z.string().trim().min(1).max(200).optional(),
        content: z.string().max(MAX_CONTENT_CHARS).optional(),
        base_version_id: z.string().uuid().optional(),
        mcp_exposed: z.boolean().optional(),
        metadata: metadata.optional(),
      })
      .strict()
      .refine((a) => a.content === undefined || a.base_version_id !== undefined, { message: 'base_version_id is required with content', path: ['base_version_id'] }),
    output: itemOutput.extend({ new_version: z.boolean() }),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      const { item, newVersion } = await editAndIngest(ctx.services, ctx.principal, project, args.item_id, {
        name: args.name,
        content: args.content,
        baseVersionId: args.base_version_id,
        mcpExposed: args.mcp_exposed,
        metadata: args.metadata,
      });
      return { result: { ...itemResponse(item), new_version: newVersion !== null } };
    },
  }),
  defineTool({
    name: 'gc_kb_delete',
    scope: 'mcp:write',
    needsProject: true,
    description: 'Soft-deletes an item: gone from queries and listings at once, kept for audit.',
    output: z.looseObject({ item_id: z.string(), deleted: z.literal(true) }),
    input: z.object({ item_id: itemId }).strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      const item = await deleteItem(ctx.services, ctx.principal, project, args.item_id);
      return { result: { item_id: item.id, deleted: true } };
    },
  }),
  defineTool({
    name: 'gc_kb_query',
    scope: 'mcp:read',
    needsProject: true,
    description:
      "Hybrid search (vector + BM25, fused by RRF) over the project's MCP-exposed items: chunks with raw_text, a skeleton text view ([HIDDEN] and [ANCHOR] markers), item_id and score.",
    input: z
      .object({
        query: z.string().trim().min(1).max(10_000),
        limit: z.number().int().min(1).max(QUERY_LIMIT_MAX).default(QUERY_LIMIT_DEFAULT),
        metadata_filter: metadata.optional(),
        item_ids: z.array(z.string().uuid()).max(100).optional(),
      })
      .strict(),
    output: z.looseObject({
      query: z.string(),
      results: z.array(z.looseObject({ chunk_id: z.string(), item_id: z.string(), item_name: z.string(), heading: z.string().nullable(), raw_text: z.string(), text: z.string(), score: z.number() })),
      total: int,
    }),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      const out = await queryKnowledge(ctx.services, ctx.principal, project, {
        query: args.query, limit: args.limit, metadataFilter: args.metadata_filter ?? null, itemIds: args.item_ids ?? null, mcpExposedOnly: true,
      }, ctx.signal);
      return { result: { query: args.query, results: out.results, total: out.results.length } };
    },
  }),
  defineTool({
    name: 'gc_kb_diff',
    scope: 'mcp:read',
    needsProject: true,
    description: "Both versions' full content and a unified diff between them.",
    output: z.looseObject({
      item_id: z.string(),
      from_version_id: z.string(),
      to_version_id: z.string(),
      from_content: z.string(),
      to_content: z.string(),
      unified_diff: z.string(),
      added_lines: int,
      removed_lines: int,
    }),
    input: z.object({ item_id: itemId, from_version_id: z.string().uuid(), to_version_id: z.string().uuid() }).strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      return { result: await diffVersions(ctx.call, project, args.item_id, args.from_version_id, args.to_version_id) };
    },
  }),
  defineTool({
    name: 'gc_kb_set_visibility',
    scope: 'mcp:write',
    needsProject: true,
    description: 'Sets an item private (only the creating key; an identity-provider owner is unrestricted) or project (any key of the project). org and external return not_implemented.',
    output: itemOutput,
    input: z.object({ item_id: itemId, visibility: z.enum(VISIBILITIES) }).strict(),
    async handler(args, ctx) {
      const visibility = checkVisibility(args.visibility);
      const project = await boundProject(ctx);
      const { item } = await editAndIngest(ctx.services, ctx.principal, project, args.item_id, { visibility });
      return { result: itemResponse(item) };
    },
  }),
  defineTool({
    name: 'gc_kb_share',
    scope: 'mcp:write',
    needsProject: true,
    description:
      "Shares an item of the key's own project with one of your registered A2A peers (peer_id from GET /v1/agents/a2a-peers; an unknown peer is not_found). Idempotent: the same item and peer give the same share_id, the grant listed by /v1/projects/{project_id}/shares. Private items are refused with cannot_share_private.",
    output: z.looseObject({ share_id: z.string(), project_id: z.string(), item_id: z.string(), peer_id: z.string(), created: z.boolean() }),
    input: z.object({ item_id: itemId, peer_id: z.string().trim().min(1).max(200).describe('A registered A2A peer id (UUID, GET /v1/agents/a2a-peers)') }).strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      const { share, created } = await grantShare(ctx.services.db, ctx.principal, project, args.item_id, args.peer_id);
      return { result: { ...shareResponse(share), created } };
    },
  }),
  defineTool({
    name: 'search_semantic',
    scope: 'mcp:read',
    description:
      "Vector search over your ingested Knowledge Hub chunks (the key's project, or your Default project for an unbound key): ranked node ids (item_id#chunk) with scores. evidence_aware adds an insufficiency verdict (low similarity, query terms no chunk covers).",
    input: z
      .object({
        query: z.string().trim().min(1).max(10_000),
        top_k: z.number().int().min(1).max(QUERY_LIMIT_MAX).default(QUERY_LIMIT_DEFAULT),
        evidence_aware: z.boolean().default(false),
        min_score: z.number().min(-1).max(1).optional().describe('Similarity below which evidence counts as insufficient when query terms are also missing (default 0.2)'),
      })
      .strict(),
    // Core toolset: kept small.
    output: z.looseObject({
      query: z.string(),
      project_id: z.string().nullable(),
      node_ids: z.array(z.string()),
      results: z.array(z.looseObject({ node_id: z.string(), item_id: z.string(), score: z.number() })),
      evidence: z.looseObject({ insufficient: z.boolean(), reasons: z.array(z.string()) }).optional(),
    }),
    async handler(args, ctx) {
      let project = ctx.principal.projectId;
      if (project) project = await boundProject(ctx);
      else project = await defaultProjectId(ctx.services.db, ctx.principal.userId);
      const out = project
        ? await queryKnowledge(ctx.services, ctx.principal, project, { query: args.query, limit: args.top_k, mcpExposedOnly: true }, ctx.signal)
        : { results: [] };
      const results = out.results.map((r, i) => ({
        node_id: r.chunk_id,
        rank: i + 1,
        item_id: r.item_id,
        item_name: r.item_name,
        heading: r.heading,
        score: r.score,
        preview: r.raw_text.slice(0, 200),
      }));
      return {
        result: {
          query: args.query,
          project_id: project,
          node_ids: results.map((r) => r.node_id),
          results,
          ...(args.evidence_aware ? { evidence: insufficiency(args.query, out.results, args.min_score) } : {}),
        },
      };
    },
  }),
];

import { z } from 'zod';
import {
  decodeCursor, itemResponse, LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, listItems, requireVisibleItem, resolveProject,
} from '../domain/knowledge/items.js';
import { QUERY_LIMIT_DEFAULT, QUERY_LIMIT_MAX, queryKnowledge } from '../domain/knowledge/query.js';
import {
  checkVisibility, currentContent, deleteItem, diffVersions, editAndIngest, ingestItem, MAX_CONTENT_CHARS, reindexItem,
} from '../domain/knowledge/service.js';
import { completeUpload, issueUpload, receiveUpload, UPLOAD_MAX_BYTES, uploadResponse } from '../domain/knowledge/uploads.js';
import { invalidInput } from '../domain/errors.js';
import { publicBaseUrl } from '../http/publicUrl.js';
import { defineRoute, type RequestContext } from '../http/route.js';
import { int, isoTime, namedValues } from './schemas.js';
import { isoOrNull } from '../lib/time.js';

const P = '/v1/projects/:project_id/knowledge';

const metadata = z.record(z.string(), z.unknown());
const visibility = namedValues(z.string().min(1).max(20), ['private', 'project', 'org', 'external'], 'org and external are 501 (not implemented), any other value is a 400');

const IngestBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    text: z.string().max(MAX_CONTENT_CHARS).optional(),
    content: z.string().max(MAX_CONTENT_CHARS).optional(),
    url: z.string().url().max(2048).optional(),
    type: z.string().trim().min(1).max(50).optional(),
    metadata: metadata.optional(),
    mcp_exposed: z.boolean().optional(),
    visibility: visibility.optional(),
  })
  .strict()
  .refine((b) => !(b.text !== undefined && b.content !== undefined), { message: 'Give text or content, not both', path: ['content'] })
  .refine((b) => !(b.url !== undefined && (b.text ?? b.content) !== undefined), { message: 'Give text or url, not both', path: ['url'] })
  .refine((b) => b.name !== undefined || b.url !== undefined || (b.text ?? b.content) !== undefined, {
    message: 'Give text, url, or at least a name (which creates an empty placeholder)',
    path: ['text'],
  });

const EditBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    content: z.string().max(MAX_CONTENT_CHARS).optional(),
    base_version_id: z.string().uuid().optional(),
    mcp_exposed: z.boolean().optional(),
    metadata: metadata.optional(),
    visibility: visibility.optional(),
  })
  .strict()
  .refine((b) => b.content === undefined || b.base_version_id !== undefined, {
    message: 'base_version_id is required with content (optimistic concurrency)',
    path: ['base_version_id'],
  });

const ITEM_STATUSES = ['pending', 'indexing', 'ready', 'FAILED'] as const;

/** itemResponse (domain/knowledge/items.ts). */
const Item = z.object({
  item_id: z.string(),
  project_id: z.string(),
  name: z.string(),
  type: z.string(),
  status: z.enum(ITEM_STATUSES),
  current_version_id: z.string().nullable(),
  version_number: int.nullable(),
  chunk_count: int,
  metadata,
  mcp_exposed: z.boolean(),
  visibility: z.enum(['private', 'project']),
  source: z.enum(['text', 'url', 'upload', 'empty']),
  source_url: z.string().nullable(),
  error: z.string().nullable(),
  created_by_key_id: z.string().nullable(),
  created_at: isoTime,
  updated_at: isoTime,
});
/** uploadResponse (domain/knowledge/uploads.ts). */
const Upload = z.object({
  upload_id: z.string(),
  idempotency_key: z.string(),
  name: z.string(),
  status: z.enum(['issued', 'uploaded', 'completed']),
  max_bytes: int,
  size_bytes: int.nullable(),
  item_id: z.string().nullable(),
  expires_at: isoTime,
});
const Chunk = z.object({
  chunk_id: z.string(),
  item_id: z.string(),
  item_name: z.string(),
  version_id: z.string(),
  chunk_index: int,
  heading: z.string().nullable(),
  raw_text: z.string(),
  text: z.string(),
  score: z.number(),
  rank_score: z.number(),
  vector_rank: int.nullable(),
  lexical_rank: int.nullable(),
  tokens: int,
  metadata,
});
const Diff = z.object({
  item_id: z.string(),
  from_version_id: z.string(),
  to_version_id: z.string(),
  from_version_number: int,
  to_version_number: int,
  from_content: z.string(),
  to_content: z.string(),
  unified_diff: z.string(),
  added_lines: int,
  removed_lines: int,
});

const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(LIST_LIMIT_MAX).default(LIST_LIMIT_DEFAULT),
  cursor: z.string().max(500).optional(),
  metadata_filter: z.string().max(10_000).optional(),
  status: z.enum(ITEM_STATUSES).optional(),
});

const QueryBody = z
  .object({
    query: z.string().trim().min(1).max(10_000),
    limit: z.number().int().min(1).max(QUERY_LIMIT_MAX).optional(),
    top_k: z.number().int().min(1).max(QUERY_LIMIT_MAX).optional(),
    metadata_filter: metadata.optional(),
    item_ids: z.array(z.string().uuid()).max(100).optional(),
  })
  .strict();

const DiffQuery = z.object({ from_version_id: z.string().uuid(), to_version_id: z.string().uuid() });

const IssueUploadBody = z
  .object({
    idempotency_key: z.string().min(1).max(200),
    name: z.string().trim().min(1).max(200),
    type: z.string().trim().min(1).max(50).optional(),
    content_type: z.string().min(1).max(100).optional(),
    size_bytes: z.number().int().min(1).max(UPLOAD_MAX_BYTES).optional(),
    metadata: metadata.optional(),
    visibility: visibility.optional(),
  })
  .strict();

const UploadContentBody = z.object({ content: z.string() }).strict();
const UploadContentQuery = z.object({ expires: z.string().optional(), signature: z.string().optional() });
const CompleteBody = z.object({ name: z.string().trim().min(1).max(200).optional(), metadata: metadata.optional() }).strict().optional();

function parseFilter(raw: string | undefined, where: 'query' | 'body'): Record<string, unknown> | null {
  if (raw === undefined || raw === '') return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw invalidInput('Invalid input', [{ loc: [where, 'metadata_filter'], msg: 'metadata_filter must be URL-encoded JSON', type: 'value_error.json' }]);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidInput('Invalid input', [{ loc: [where, 'metadata_filter'], msg: 'metadata_filter must be a JSON object', type: 'value_error.object' }]);
  }
  return value as Record<string, unknown>;
}

async function project(ctx: RequestContext<any, any>) {
  return resolveProject(ctx.services.db, ctx.principal, ctx.params.project_id!);
}

export const knowledgeRoutes = [
  defineRoute({
    method: 'POST',
    path: `${P}/items`,
    auth: 'key',
    response: Item.extend({ version_id: z.string() }),
    doc: { status: 201 },
    body: IngestBody,
    async handler(ctx) {
      const p = await project(ctx);
      const { body } = ctx;
      checkVisibility(body.visibility);
      const { item, version } = await ingestItem(ctx.services, ctx.principal, p.id, { ...body, text: body.text ?? body.content });
      return { status: 201, body: { ...itemResponse(item), version_id: version.id } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: `${P}/items`,
    auth: 'key',
    response: z.object({ items: z.array(Item), next_cursor: z.string().nullable(), has_more: z.boolean(), total: int, limit: int }),
    query: ListQuery,
    async handler(ctx) {
      const p = await project(ctx);
      const { query } = ctx;
      const cursor = query.cursor ? decodeCursor(query.cursor) : null;
      if (query.cursor && !cursor) throw invalidInput('Invalid input', [{ loc: ['query', 'cursor'], msg: 'invalid cursor', type: 'value_error.cursor' }]);
      const page = await listItems(ctx.services.db, ctx.principal, p.id, {
        limit: query.limit,
        cursor,
        metadataFilter: parseFilter(query.metadata_filter, 'query'),
        status: query.status ?? null,
      });
      return { body: { items: page.items.map(itemResponse), next_cursor: page.nextCursor, has_more: page.nextCursor !== null, total: page.total, limit: query.limit } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: `${P}/items/:item_id`,
    auth: 'key',
    response: Item.extend({ content: z.string() }),
    async handler(ctx) {
      const p = await project(ctx);
      const item = await requireVisibleItem(ctx.services.db, ctx.principal, p.id, ctx.params.item_id!);
      return { body: { ...itemResponse(item), content: await currentContent(ctx.services, item) } };
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: `${P}/items/:item_id`,
    auth: 'key',
    response: Item.extend({ new_version: z.boolean() }),
    body: EditBody,
    async handler(ctx) {
      const p = await project(ctx);
      const { body } = ctx;
      const { item, newVersion } = await editAndIngest(ctx.services, ctx.principal, p.id, ctx.params.item_id!, {
        name: body.name,
        content: body.content,
        baseVersionId: body.base_version_id,
        mcpExposed: body.mcp_exposed,
        metadata: body.metadata,
        visibility: checkVisibility(body.visibility),
      });
      return { body: { ...itemResponse(item), new_version: newVersion !== null } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: `${P}/items/:item_id`,
    auth: 'key',
    response: z.object({ item_id: z.string(), deleted: z.literal(true), deleted_at: isoTime.nullable() }),
    async handler(ctx) {
      const p = await project(ctx);
      const item = await deleteItem(ctx.services, ctx.principal, p.id, ctx.params.item_id!);
      return { body: { item_id: item.id, deleted: true, deleted_at: isoOrNull(item.deleted_at) } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: `${P}/query`,
    auth: 'key',
    response: z.object({ query: z.string(), results: z.array(Chunk), total: int, limit: int }),
    body: QueryBody,
    async handler(ctx) {
      const p = await project(ctx);
      const { body } = ctx;
      const limit = body.limit ?? body.top_k ?? QUERY_LIMIT_DEFAULT;
      const out = await queryKnowledge(
        ctx.services,
        ctx.principal,
        p.id,
        { query: body.query, limit, metadataFilter: body.metadata_filter ?? null, itemIds: body.item_ids ?? null },
        ctx.signal,
      );
      return { body: { query: body.query, results: out.results, total: out.results.length, limit } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: `${P}/items/:item_id/diff`,
    auth: 'key',
    response: Diff,
    query: DiffQuery,
    async handler(ctx) {
      const p = await project(ctx);
      const body = await diffVersions(ctx.call, p.id, ctx.params.item_id!, ctx.query.from_version_id, ctx.query.to_version_id);
      return { body };
    },
  }),
  defineRoute({
    method: 'POST',
    path: `${P}/items/:item_id/reindex`,
    auth: 'key',
    response: z.object({ item_id: z.string(), version_id: z.string(), version_number: int, status: z.enum(ITEM_STATUSES) }),
    doc: { status: 202 },
    async handler(ctx) {
      const p = await project(ctx);
      const { item, version } = await reindexItem(ctx.services, ctx.principal, p.id, ctx.params.item_id!);
      return { status: 202, body: { item_id: item.id, version_id: version.id, version_number: version.number, status: item.status } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: `${P}/uploads`,
    auth: 'key',
    response: Upload.extend({ upload_url: z.string(), method: z.literal('PUT'), headers: z.record(z.string(), z.string()), body_format: z.string(), created: z.boolean() }),
    doc: { status: 201 },
    body: IssueUploadBody,
    async handler(ctx) {
      const p = await project(ctx);
      const out = await issueUpload(ctx.services, ctx.principal, p.id, ctx.body, publicBaseUrl(ctx.services.config, ctx.headers));
      return {
        status: 201,
        body: {
          ...uploadResponse(out.row),
          upload_url: out.uploadUrl,
          method: 'PUT',
          headers: { 'content-type': 'application/json' },
          body_format: '{"content": "<the document text>"}',
          created: out.created,
        },
      };
    },
  }),
  defineRoute({
    method: 'PUT',
    path: `${P}/uploads/:upload_id/content`,
    auth: 'public',
    response: Upload,
    body: UploadContentBody,
    query: UploadContentQuery,
    async handler(ctx) {
      const row = await receiveUpload(ctx.services, ctx.params.project_id!, ctx.params.upload_id!, ctx.query, ctx.body.content);
      return { body: uploadResponse(row) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: `${P}/uploads/:upload_id/complete`,
    auth: 'key',
    response: Upload.extend({ item: Item, version_id: z.string().nullable() }),
    body: CompleteBody,
    async handler(ctx) {
      const p = await project(ctx);
      const { row, item } = await completeUpload(ctx.services, ctx.principal, p.id, ctx.params.upload_id!, {
        name: ctx.body?.name,
        metadata: ctx.body?.metadata,
      });
      return { body: { ...uploadResponse(row), item: itemResponse(item), version_id: item.current_version_id } };
    },
  }),
];

import { z } from 'zod';
import { FIDELITIES } from '../../../../workers/shared/fidelity.js';
import { deleteDocument, documentStats, getNodes, listDocuments, REGION_LEVELS, type DocumentRow, type NodeRow } from '../../../domain/compression/documents.js';
import { ingestDocument, MAX_DOCUMENT_CHARS, modulateRegion, ownedDocument, readSkeleton } from '../../../domain/compression/skeletons.js';
import { invalidInput, notFound } from '../../../domain/errors.js';
import { expandMarkers, MAX_EXPAND_IDS } from '../../../domain/compression/expand.js';
import { documentLevels, LEVELS, multiLevel } from '../../../domain/compression/multilevel.js';
import { defineTool } from '../../tool.js';
import { int, rows } from '../outputs.js';
import { iso } from '../../../lib/time.js';

const fileId = z.string().uuid().describe('file_id returned by ingest_context');
const markerIds = z.array(z.string().min(1).max(64)).min(1).max(MAX_EXPAND_IDS);

/** Output shapes: a stored document (describeDoc), a text at several fidelities (multiLevel). */
const docOut = z.looseObject({ file_id: z.string(), name: z.string().nullable(), node_count: int, total_tokens: int, ingested_at: z.string(), updated_at: z.string() });
/** The exact texts behind elision markers (expandMarkers). */
const expansions = z.array(z.looseObject({ id: z.string(), text: z.string() }));
const levelsOut = z.array(z.looseObject({ fidelity: z.enum(FIDELITIES), text: z.string(), tokens: int, savings_percent: z.number() }));

function describeDoc(d: DocumentRow) {
  return {
    file_id: d.id,
    name: d.name,
    file_path: d.file_path,
    source: d.source,
    source_url: d.source_url,
    metadata: d.metadata,
    node_count: d.node_count,
    total_tokens: d.total_tokens,
    ingested_at: iso(d.created_at),
    updated_at: iso(d.updated_at),
  };
}

function outline(nodes: NodeRow[]) {
  return nodes.map((n) => ({ id: n.node_id, heading: n.heading, level: n.level, tokens: n.tokens }));
}

export const documentTools = [
  defineTool({
    name: 'ingest_context',
    scope: 'mcp:write',
    advisory: true,
    description:
      'Ingests a document (inline text, or an HTTPS file_url fetched with SSRF protection), splits it into nodes by headings or blank-line blocks, stores it for you, and returns its skeleton. file_path enables sync tracking: re-ingesting the same path replaces that document.',
    output: z.looseObject({
      file_id: z.string(),
      status: z.enum(['created', 'updated', 'unchanged']),
      node_count: int,
      total_tokens: int,
      skeleton: z.string(),
      skeleton_tokens: int,
      original_id: z.string().nullable(),
      nodes: rows,
    }),
    input: z
      .object({
        text: z.string().min(1).max(MAX_DOCUMENT_CHARS).optional().describe('The document itself'),
        file_url: z.string().min(1).max(2048).optional().describe('An https URL to fetch instead of text'),
        file_path: z.string().min(1).max(1024).optional().describe('Path of the file in your workspace, for sync tracking'),
        name: z.string().min(1).max(256).optional(),
        metadata: z.record(z.string(), z.union([z.string().max(1000), z.number(), z.boolean(), z.null()])).optional(),
        fidelity: z.enum(FIDELITIES).default('balanced').describe('Fidelity of the returned skeleton'),
        query: z.string().max(2000).optional().describe('Optional query guiding the skeleton'),
      })
      .strict()
      .refine((a) => (a.text === undefined) !== (a.file_url === undefined), { message: 'Give exactly one of text or file_url', path: ['text'] }),
    async handler(args, { call }) {
      const { row, status, skeleton, nodes } = await ingestDocument(call, {
        text: args.text,
        fileUrl: args.file_url,
        filePath: args.file_path,
        name: args.name,
        metadata: args.metadata,
        fidelity: args.fidelity,
        query: args.query,
      });
      return {
        result: {
          ...describeDoc(row),
          status,
          skeleton: skeleton.compressed_text,
          skeleton_tokens: skeleton.compressed_tokens,
          fidelity: args.fidelity,
          savings_percent: skeleton.savings_percent,
          original_id: skeleton.original_id,
          nodes,
        },
      };
    },
  }),
  defineTool({
    name: 'list_documents',
    scope: 'mcp:read',
    advisory: true,
    description: 'Your ingested documents, newest first: file_id, metadata, node and token counts, ingestion time.',
    output: z.looseObject({ documents: z.array(docOut), total: int, limit: int, offset: int, next_offset: int.nullable() }),
    input: z.object({ limit: z.number().int().min(1).max(200).default(50), offset: z.number().int().min(0).default(0) }).strict(),
    async handler({ limit, offset }, ctx) {
      const { rows, total } = await listDocuments(ctx.services.db, ctx.principal.userId, limit, offset);
      return { result: { documents: rows.map(describeDoc), total, limit, offset, next_offset: offset + rows.length < total ? offset + rows.length : null } };
    },
  }),
  defineTool({
    name: 'get_stats',
    scope: 'mcp:read',
    advisory: true,
    description: 'Statistics of your ingested documents; with file_id, the statistics of that document and its nodes.',
    // All documents' statistics, or with file_id one document's (one object: MCP lists an outputSchema of type object).
    output: z.looseObject({
      document_count: int.optional(),
      node_count: int.optional(),
      total_tokens: int.optional(),
      document: docOut.optional(),
      node_tokens: z.looseObject({ min: int, median: int, max: int }).optional(),
      nodes: rows.optional(),
    }),
    input: z.object({ file_id: fileId.optional() }).strict(),
    async handler({ file_id }, ctx) {
      if (!file_id) return { result: { ...(await documentStats(ctx.services.db, ctx.principal.userId)) } };
      const doc = await ownedDocument(ctx.call, file_id);
      const nodes = await getNodes(ctx.services.db, ctx.principal.userId, file_id);
      const sorted = nodes.map((n) => n.tokens).sort((a, b) => a - b);
      return {
        result: {
          document: describeDoc(doc),
          node_tokens: {
            min: sorted[0] ?? 0,
            median: sorted.length ? sorted[(sorted.length - 1) >> 1]! : 0,
            max: sorted[sorted.length - 1] ?? 0,
          },
          headed_nodes: nodes.filter((n) => n.heading !== null).length,
          nodes: outline(nodes),
        },
      };
    },
  }),
  defineTool({
    name: 'delete_document',
    scope: 'mcp:write',
    advisory: true,
    description: 'Permanently deletes one of your ingested documents and its nodes.',
    output: z.looseObject({ file_id: z.string(), deleted: z.literal(true) }),
    input: z.object({ file_id: fileId }).strict(),
    async handler({ file_id }, ctx) {
      if (!(await deleteDocument(ctx.services.db, ctx.principal.userId, file_id))) throw notFound(`No document ${file_id}`);
      return { result: { file_id, deleted: true } };
    },
  }),
  defineTool({
    name: 'read_skeleton',
    scope: 'mcp:read',
    description:
      'Skeleton of an ingested document. selection_mode: auto (default; query_guided when a query is given, else baseline), baseline, query_guided, or evidence_aware (query-guided plus evidence_insufficient when no node covers at least half of the query\'s content terms).',
    output: z.looseObject({
      file_id: z.string(),
      selection_mode_resolved: z.string(),
      skeleton: z.string(),
      original_tokens: int,
      skeleton_tokens: int,
      original_id: z.string().nullable(),
      evidence_insufficient: z.boolean().optional(),
      nodes: rows,
    }),
    input: z
      .object({
        file_id: fileId,
        selection_mode: z.enum(['auto', 'baseline', 'query_guided', 'evidence_aware']).default('auto'),
        query: z.string().min(1).max(2000).optional(),
        fidelity: z.enum(FIDELITIES).default('balanced'),
      })
      .strict(),
    async handler(args, { call }) {
      const r = await readSkeleton(call, { fileId: args.file_id, mode: args.selection_mode, query: args.query, fidelity: args.fidelity });
      return {
        result: {
          file_id: r.doc.id,
          selection_mode: args.selection_mode,
          selection_mode_resolved: r.resolved,
          query: r.query,
          fidelity: args.fidelity,
          skeleton: r.skeleton.compressed_text,
          original_tokens: r.skeleton.original_tokens,
          skeleton_tokens: r.skeleton.compressed_tokens,
          savings_percent: r.skeleton.savings_percent,
          original_id: r.skeleton.original_id,
          ...(r.evidence ? { evidence_insufficient: r.evidence.evidence_insufficient, evidence: r.evidence } : {}),
          nodes: outline(r.nodes),
        },
      };
    },
  }),
  defineTool({
    name: 'multilevel_encode',
    description:
      'A text at every fidelity (abstract, outline, balanced, detailed) in one call, each with its tokens and savings, so an agent can pick the level that fits and step up when it needs more. Give levels to get fewer.',
    output: z.looseObject({ original_tokens: int, levels: levelsOut }),
    input: z
      .object({
        text: z.string().min(1).max(MAX_DOCUMENT_CHARS),
        levels: z.array(z.enum(LEVELS as [typeof LEVELS[number], ...typeof LEVELS[number][]])).min(1).max(4).optional(),
      })
      .strict(),
    async handler(args, { call }) {
      return { result: await multiLevel(call, args.text, args.levels ? [...new Set(args.levels)] : undefined) };
    },
  }),
  defineTool({
    name: 'get_multi_level_skeleton',
    scope: 'mcp:read',
    description:
      'Every fidelity of an ingested document (file_id from ingest_context) in one call; each level is addressable as file_id + fidelity, which read_skeleton answers the same way.',
    output: z.looseObject({ file_id: z.string(), name: z.string().nullable(), original_tokens: int, levels: levelsOut }),
    input: z
      .object({
        file_id: fileId,
        levels: z.array(z.enum(LEVELS as [typeof LEVELS[number], ...typeof LEVELS[number][]])).min(1).max(4).optional(),
      })
      .strict(),
    async handler(args, { call }) {
      return { result: await documentLevels(call, args.file_id, args.levels ? [...new Set(args.levels)] : undefined) };
    },
  }),
  defineTool({
    name: 'modulate_region',
    scope: 'mcp:read',
    description:
      'Retrieves nodes of an ingested document at a fidelity: ABSTRACT (~10 tokens per node), OUTLINE (~30), STRUCTURE (~50), DETAILED (~100) or RAW (the full original). Pick nodes by node_ids, or page through all with offset/limit. marker_ids (the "#<ref>.<n>" ending an elision marker in a skeleton) returns exactly the text each marker hides, at RAW.',
    // Nodes at a fidelity, or with marker_ids the markers' texts at RAW (one object: MCP lists an outputSchema of type object).
    output: z.looseObject({
      file_id: z.string().optional(),
      fidelity: z.enum(REGION_LEVELS),
      markers: expansions.optional(),
      nodes: z.array(z.looseObject({ id: z.string(), tokens: int, method: z.string(), text: z.string() })).optional(),
      original_tokens: int.optional(),
      output_tokens: int.optional(),
      savings_percent: z.number().optional(),
      next_offset: int.nullable().optional(),
    }),
    input: z
      .object({
        file_id: fileId.optional().describe('file_id returned by ingest_context (required unless marker_ids is given)'),
        marker_ids: markerIds.optional().describe('Ids of elision markers: returns the exact text each one hides'),
        fidelity: z.preprocess((v) => (typeof v === 'string' ? v.toUpperCase() : v), z.enum(REGION_LEVELS)).default('STRUCTURE'),
        node_ids: z.array(z.string().min(1).max(32)).min(1).max(500).optional(),
        offset: z.number().int().min(0).default(0),
        limit: z.number().int().min(1).max(500).default(100),
      })
      .strict(),
    async handler(args, ctx) {
      if (args.marker_ids) {
        if (args.node_ids) throw invalidInput('Give node_ids or marker_ids, not both', [{ loc: ['marker_ids'], msg: 'node_ids given too', type: 'value_error' }]);
        const markers = await expandMarkers(ctx.services, ctx.principal.userId, args.marker_ids, 'marker_ids');
        return { result: { ...(args.file_id ? { file_id: args.file_id } : {}), fidelity: 'RAW', markers: markers.map((m) => ({ ...m, method: 'raw' })) } };
      }
      if (!args.file_id) throw invalidInput('file_id is required (or marker_ids)', [{ loc: ['file_id'], msg: 'Required', type: 'invalid_type' }]);
      const { db } = ctx.services;
      const doc = await ownedDocument(ctx.call, args.file_id);
      let nodes: NodeRow[];
      let nextOffset: number | null = null;
      if (args.node_ids) {
        nodes = await getNodes(db, ctx.principal.userId, args.file_id, args.node_ids);
        const found = new Set(nodes.map((n) => n.node_id));
        const missing = args.node_ids.filter((id) => !found.has(id));
        if (missing.length) throw notFound(`Unknown node ids: ${missing.slice(0, 10).join(', ')}`, { missing_node_ids: missing });
      } else {
        const all = await getNodes(db, ctx.principal.userId, args.file_id);
        nodes = all.slice(args.offset, args.offset + args.limit);
        nextOffset = args.offset + nodes.length < all.length ? args.offset + nodes.length : null;
      }
      const r = await modulateRegion(ctx.call, doc, nodes, args.fidelity);
      return {
        result: {
          file_id: doc.id,
          fidelity: args.fidelity,
          tokens_per_node_target: r.budget,
          nodes: nodes.map((n, i) => ({ id: n.node_id, heading: n.heading, level: n.level, original_tokens: n.tokens, tokens: r.outs[i]!.tokens, method: r.outs[i]!.method, text: r.outs[i]!.text })),
          original_tokens: r.originalTokens,
          output_tokens: r.outputTokens,
          savings_percent: r.savingsPercent,
          node_total: doc.node_count,
          next_offset: nextOffset,
          pool_tasks: r.poolTasks,
        },
      };
    },
  }),
  defineTool({
    name: 'expand_markers',
    scope: 'mcp:read',
    advisory: true,
    description:
      'The exact original text behind elision markers: give the ids from markers like "[… Install, Usage +3 more: 310 tokens #482913650271.0]" in any compressed output of yours (REST POST /v1/expand does the same).',
    output: z.looseObject({ expansions }),
    input: z.object({ ids: markerIds.describe('Marker ids (<ref>.<n>)') }).strict(),
    async handler({ ids }, ctx) {
      return { result: { expansions: await expandMarkers(ctx.services, ctx.principal.userId, ids) } };
    },
  }),
];

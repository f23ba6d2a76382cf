import { z } from 'zod';
import { FIDELITIES } from '../../../workers/shared/fidelity.js';
import {
  deleteDocument, documentStats, evidenceFor, getDocument, getDocumentContent, getNodes, listDocuments, planNode,
  REGION_BUDGET, REGION_LEVELS, saveDocument, splitIntoNodes, trimToBudget, type DocumentRow, type NodeRow,
} from '../../domain/compression/documents.js';
import { FetchRefusedError, fetchPublicHttps } from '../../domain/platform/ssrf.js';
import { defineTool, ToolError, type ToolContext } from '../tool.js';
import { savingsPercent } from '../../../workers/shared/stats.js';
import { countMany, countManyTasks } from './pooled.js';

/** Largest document accepted, inline or fetched (characters / bytes). */
export const MAX_DOCUMENT_CHARS = 2_000_000;
export const FETCH_TIMEOUT_MS = 10_000;

const LEVEL_FIDELITY = { ABSTRACT: 'abstract', OUTLINE: 'outline', STRUCTURE: 'balanced', DETAILED: 'detailed', RAW: 'raw' } as const;

const fileId = z.string().uuid().describe('file_id returned by ingest_context');

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
    ingested_at: new Date(d.created_at).toISOString(),
    updated_at: new Date(d.updated_at).toISOString(),
  };
}

function outline(nodes: NodeRow[]) {
  return nodes.map((n) => ({ id: n.node_id, heading: n.heading, level: n.level, tokens: n.tokens }));
}

async function ownedDocument(ctx: ToolContext, id: string): Promise<DocumentRow> {
  const doc = await getDocument(ctx.services.db, ctx.principal.userId, id);
  if (!doc) throw new ToolError('not_found', `No document ${id}`);
  return doc;
}

/** A display name for a fetched document: the last path segment, else the host. */
function urlName(raw: string): string {
  const url = new URL(raw);
  const last = url.pathname.split('/').filter(Boolean).pop();
  try {
    return last ? decodeURIComponent(last) : url.hostname;
  } catch {
    return last ?? url.hostname;
  }
}

async function fetchDocument(url: string): Promise<{ text: string; contentType: string | null; finalUrl: string }> {
  try {
    return await fetchPublicHttps(url, { maxBytes: MAX_DOCUMENT_CHARS, timeoutMs: FETCH_TIMEOUT_MS, maxRedirects: 3 });
  } catch (err) {
    if (err instanceof FetchRefusedError) throw new ToolError('fetch_refused', err.message, { reason: err.reason });
    throw err;
  }
}

export const documentTools = [
  defineTool({
    name: 'ingest_context',
    scope: 'mcp:write',
    category: 'ingestion',
    plan: 'free',
    advisory: true,
    description:
      'Ingests a document (inline text, or an HTTPS file_url fetched with SSRF protection), splits it into nodes by headings or blank-line blocks, stores it for you, and returns its skeleton. file_path enables sync tracking: re-ingesting the same path replaces that document.',
    input: z
      .object({
        text: z.string().min(1).max(MAX_DOCUMENT_CHARS).optional().describe('The document itself'),
        file_url: z.string().min(1).max(2048).optional().describe('An https URL to fetch instead of text'),
        file_path: z.string().min(1).max(1024).optional().describe('Path of the file in your workspace, for sync tracking'),
        name: z.string().min(1).max(256).optional(),
        metadata: z.record(z.union([z.string().max(1000), z.number(), z.boolean(), z.null()])).optional(),
        fidelity: z.enum(FIDELITIES).default('balanced').describe('Fidelity of the returned skeleton'),
        query: z.string().max(2000).optional().describe('Optional query guiding the skeleton'),
      })
      .strict()
      .refine((a) => (a.text === undefined) !== (a.file_url === undefined), { message: 'Give exactly one of text or file_url', path: ['text'] }),
    async handler(args, ctx) {
      let text: string;
      let source: 'inline' | 'url' = 'inline';
      let sourceUrl: string | null = null;
      const metadata: Record<string, unknown> = { ...(args.metadata ?? {}) };
      if (args.file_url !== undefined) {
        const fetched = await fetchDocument(args.file_url);
        text = fetched.text;
        source = 'url';
        sourceUrl = fetched.finalUrl;
        if (fetched.contentType) metadata.content_type = fetched.contentType;
      } else {
        text = args.text!;
      }
      const split = splitIntoNodes(text);
      if (split.length === 0) throw new ToolError('validation_error', 'The document is empty', { issues: [{ loc: ['text'], msg: 'only whitespace', type: 'custom' }] });
      const tokens = await countMany(ctx, split.map((n) => n.text));
      const { row, status } = await saveDocument(ctx.services.db, {
        userId: ctx.principal.userId,
        keyId: ctx.principal.keyId,
        projectId: ctx.principal.projectId,
        name: args.name ?? args.file_path?.split(/[\\/]/).pop() ?? (sourceUrl ? urlName(sourceUrl) : null),
        source,
        sourceUrl,
        filePath: args.file_path ?? null,
        content: text,
        metadata,
        nodes: split.map((n, i) => ({ ...n, tokens: tokens[i]! })),
      });
      const skeleton = await ctx.services.pool.run('compress', { text, fidelity: args.fidelity, query: args.query ?? null, model: null }, ctx.signal);
      return {
        result: {
          ...describeDoc(row),
          status,
          skeleton: skeleton.compressed_text,
          skeleton_tokens: skeleton.compressed_tokens,
          fidelity: args.fidelity,
          savings_percent: skeleton.savings_percent,
          nodes: split.map((n, i) => ({ id: n.id, heading: n.heading, level: n.level, tokens: tokens[i]! })),
        },
        usage: { inputTokens: skeleton.original_tokens, outputTokens: skeleton.compressed_tokens, fidelity: args.fidelity, inputText: text },
      };
    },
  }),
  defineTool({
    name: 'list_documents',
    scope: 'mcp:read',
    category: 'general',
    plan: 'free',
    advisory: true,
    description: 'Your ingested documents, newest first: file_id, metadata, node and token counts, ingestion time.',
    input: z.object({ limit: z.number().int().min(1).max(200).default(50), offset: z.number().int().min(0).default(0) }).strict(),
    async handler({ limit, offset }, ctx) {
      const { rows, total } = await listDocuments(ctx.services.db, ctx.principal.userId, limit, offset);
      return { result: { documents: rows.map(describeDoc), total, limit, offset, next_offset: offset + rows.length < total ? offset + rows.length : null } };
    },
  }),
  defineTool({
    name: 'get_stats',
    scope: 'mcp:read',
    category: 'general',
    plan: 'free',
    advisory: true,
    description: 'Statistics of your ingested documents; with file_id, the statistics of that document and its nodes.',
    input: z.object({ file_id: fileId.optional() }).strict(),
    async handler({ file_id }, ctx) {
      if (!file_id) return { result: { ...(await documentStats(ctx.services.db, ctx.principal.userId)) } };
      const doc = await ownedDocument(ctx, file_id);
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
    category: 'general',
    plan: 'free',
    advisory: true,
    description: 'Permanently deletes one of your ingested documents and its nodes.',
    input: z.object({ file_id: fileId }).strict(),
    async handler({ file_id }, ctx) {
      if (!(await deleteDocument(ctx.services.db, ctx.principal.userId, file_id))) throw new ToolError('not_found', `No document ${file_id}`);
      return { result: { file_id, deleted: true } };
    },
  }),
  defineTool({
    name: 'read_skeleton',
    scope: 'mcp:read',
    category: 'ingestion',
    plan: 'free',
    description:
      'Skeleton of an ingested document. selection_mode: auto (default; query_guided when a query is given, else baseline), baseline, query_guided, or evidence_aware (query-guided plus evidence_insufficient when no node covers at least half of the query\'s content terms).',
    input: z
      .object({
        file_id: fileId,
        selection_mode: z.enum(['auto', 'baseline', 'query_guided', 'evidence_aware']).default('auto'),
        query: z.string().min(1).max(2000).optional(),
        fidelity: z.enum(FIDELITIES).default('balanced'),
      })
      .strict(),
    async handler(args, ctx) {
      const resolved = args.selection_mode === 'auto' ? (args.query ? 'query_guided' : 'baseline') : args.selection_mode;
      if (resolved !== 'baseline' && !args.query) {
        throw new ToolError('validation_error', `selection_mode ${resolved} needs a query`, { issues: [{ loc: ['query'], msg: 'Required', type: 'invalid_type' }] });
      }
      const doc = await ownedDocument(ctx, args.file_id);
      const [content, nodes] = await Promise.all([
        getDocumentContent(ctx.services.db, ctx.principal.userId, args.file_id),
        getNodes(ctx.services.db, ctx.principal.userId, args.file_id),
      ]);
      if (content === null) throw new ToolError('not_found', `No document ${args.file_id}`);
      const query = resolved === 'baseline' ? null : args.query!;
      const skeleton = await ctx.services.pool.run('compress', { text: content, fidelity: args.fidelity, query, model: null }, ctx.signal);
      const evidence = resolved === 'evidence_aware' ? evidenceFor(query!, nodes) : null;
      return {
        result: {
          file_id: doc.id,
          selection_mode: args.selection_mode,
          selection_mode_resolved: resolved,
          query,
          fidelity: args.fidelity,
          skeleton: skeleton.compressed_text,
          original_tokens: skeleton.original_tokens,
          skeleton_tokens: skeleton.compressed_tokens,
          savings_percent: skeleton.savings_percent,
          ...(evidence ? { evidence_insufficient: evidence.evidence_insufficient, evidence } : {}),
          nodes: outline(nodes),
        },
        usage: { inputTokens: skeleton.original_tokens, outputTokens: skeleton.compressed_tokens, fidelity: args.fidelity, inputText: query ?? doc.name },
      };
    },
  }),
  defineTool({
    name: 'modulate_region',
    scope: 'mcp:read',
    category: 'general',
    plan: 'free',
    description:
      'Retrieves nodes of an ingested document at a fidelity: ABSTRACT (~10 tokens per node), OUTLINE (~30), STRUCTURE (~50), DETAILED (~100) or RAW (the full original). Pick nodes by node_ids, or page through all with offset/limit.',
    input: z
      .object({
        file_id: fileId,
        fidelity: z.preprocess((v) => (typeof v === 'string' ? v.toUpperCase() : v), z.enum(REGION_LEVELS)).default('STRUCTURE'),
        node_ids: z.array(z.string().min(1).max(32)).min(1).max(500).optional(),
        offset: z.number().int().min(0).default(0),
        limit: z.number().int().min(1).max(500).default(100),
      })
      .strict(),
    async handler(args, ctx) {
      const doc = await ownedDocument(ctx, args.file_id);
      let nodes: NodeRow[];
      let nextOffset: number | null = null;
      if (args.node_ids) {
        nodes = await getNodes(ctx.services.db, ctx.principal.userId, args.file_id, args.node_ids);
        const found = new Set(nodes.map((n) => n.node_id));
        const missing = args.node_ids.filter((id) => !found.has(id));
        if (missing.length) throw new ToolError('not_found', `Unknown node ids: ${missing.slice(0, 10).join(', ')}`, { missing_node_ids: missing });
      } else {
        const all = await getNodes(ctx.services.db, ctx.principal.userId, args.file_id);
        nodes = all.slice(args.offset, args.offset + args.limit);
        nextOffset = args.offset + nodes.length < all.length ? args.offset + nodes.length : null;
      }
      const level = args.fidelity;
      const budget = level === 'RAW' ? null : REGION_BUDGET[level];
      type Out = { text: string; tokens: number; method: 'raw' | 'verbatim' | 'compressed' | 'trimmed' };
      const outs: Out[] = new Array(nodes.length);
      const toTrim: number[] = [];
      const toCompress: { i: number; fidelity: (typeof FIDELITIES)[number] }[] = [];
      let poolTasks = 0;
      nodes.forEach((n, i) => {
        if (budget === null) outs[i] = { text: n.content, tokens: n.tokens, method: 'raw' };
        else {
          const plan = planNode(n.tokens, budget);
          if (plan.kind === 'verbatim') outs[i] = { text: n.content, tokens: n.tokens, method: 'verbatim' };
          else if (plan.kind === 'trim') toTrim.push(i);
          else toCompress.push({ i, fidelity: plan.fidelity });
        }
      });
      // Engine compressions: one batched task when the worker has 'compressMany', else one task per node
      // that needs it, several in flight at once.
      const items = toCompress.map(({ i, fidelity }) => ({ text: nodes[i]!.content, fidelity, query: null, model: null }));
      if (items.length > 0) {
        const compressed = await ctx.services.pool.run('compressMany', { items }, ctx.signal);
        poolTasks++;
        toCompress.forEach(({ i }, k) => (outs[i] = { text: compressed[k]!.compressed_text, tokens: compressed[k]!.compressed_tokens, method: 'compressed' }));
      }
      // Trims: cheap string cuts sized by the node's own characters per token, then counted exactly;
      // one correction pass when the estimate overshot by more than 30%.
      if (toTrim.length && budget !== null) {
        const ratio = (i: number) => Math.max(1, nodes[i]!.content.length / Math.max(1, nodes[i]!.tokens));
        let texts = toTrim.map((i) => trimToBudget(nodes[i]!.content, nodes[i]!.heading, budget, ratio(i)));
        const counted = await countManyTasks(ctx, texts);
        let counts = counted.tokens;
        poolTasks += counted.tasks;
        const over = counts.map((c, k) => (c > budget * 1.3 ? k : -1)).filter((k) => k >= 0);
        if (over.length) {
          const fixed = over.map((k) => trimToBudget(nodes[toTrim[k]!]!.content, nodes[toTrim[k]!]!.heading, budget, (ratio(toTrim[k]!) * budget) / counts[k]!));
          const fixedCounted = await countManyTasks(ctx, fixed);
          const fixedCounts = fixedCounted.tokens;
          poolTasks += fixedCounted.tasks;
          texts = texts.slice();
          counts = counts.slice();
          over.forEach((k, j) => {
            texts[k] = fixed[j]!;
            counts[k] = fixedCounts[j]!;
          });
        }
        toTrim.forEach((i, k) => (outs[i] = { text: texts[k]!, tokens: counts[k]!, method: 'trimmed' }));
      }
      const originalTokens = nodes.reduce((s, n) => s + n.tokens, 0);
      const outputTokens = outs.reduce((s, o) => s + o.tokens, 0);
      return {
        result: {
          file_id: doc.id,
          fidelity: level,
          tokens_per_node_target: budget,
          nodes: nodes.map((n, i) => ({ id: n.node_id, heading: n.heading, level: n.level, original_tokens: n.tokens, tokens: outs[i]!.tokens, method: outs[i]!.method, text: outs[i]!.text })),
          original_tokens: originalTokens,
          output_tokens: outputTokens,
          savings_percent: savingsPercent(originalTokens, outputTokens),
          node_total: doc.node_count,
          next_offset: nextOffset,
          pool_tasks: poolTasks,
        },
        usage: { inputTokens: originalTokens, outputTokens, fidelity: LEVEL_FIDELITY[level], inputText: doc.name },
      };
    },
  }),
];

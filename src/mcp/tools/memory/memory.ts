import { z } from 'zod';
import { contextBlock, recoverSession, summarizeMemory, userProfile } from '../../../domain/memory/context.js';
import { factHistory, invalidateFact } from '../../../domain/memory/facts.js';
import {
  addMemory, deleteMemory, factResponse, LIST_LIMIT_MAX, listMemories, MAX_MEMORY_CHARS, MEMORY_KINDS, memoriesByIds, memoryResponse,
  recentIndex, scopeOf, searchMemories,
} from '../../../domain/memory/memories.js';
import { invalidInput } from '../../../domain/errors.js';
import { afmSessionMessages } from '../../../domain/memory/afm.js';
import { defineTool } from '../../tool.js';
import { int } from '../outputs.js';
import { iso } from '../../../lib/time.js';

const memoryId = z.string().uuid().describe('memory_id returned by add_memory or list_memories');
const factId = z.string().uuid().describe('fact_id returned by add_memory, get_user_profile or list_fact_history');
const sessionId = z.string().trim().min(1).max(200);
const tag = z.string().trim().min(1).max(100);
const isoDate = z.string().datetime({ offset: true });
const SCOPE_NOTE = "Scoped to the caller and the key's project (an unbound key uses the user's own scope).";

/** memoryResponse and factResponse as results (timestamps are ISO strings there). */
const memoryOut = z.looseObject({
  memory_id: z.string(),
  title: z.string(),
  content: z.string(),
  kind: z.enum(MEMORY_KINDS),
  tags: z.array(z.string()),
  session_id: z.string().nullable(),
  tokens: int,
  created_at: z.string(),
});
// A preference or fact stored without a key is listed in this shape with fact_id and key null.
const factOut = z.looseObject({
  fact_id: z.string().nullable(),
  key: z.string().nullable(),
  value: z.string(),
  kind: z.string(),
  memory_id: z.string().nullable(),
  valid_from: z.string().nullable(),
  valid_to: z.string().nullable(),
  invalidated_at: z.string().nullable(),
  superseded_by: z.string().nullable(),
  current: z.boolean(),
});
const facts = z.array(factOut);
const topTags = z.array(z.looseObject({ tag: z.string(), count: int }));

function decodeOffset(cursor: string | undefined): number {
  if (!cursor) return 0;
  const raw = Buffer.from(cursor, 'base64url').toString('utf8');
  const n = /^\d{1,8}$/.test(raw) ? Number(raw) : -1;
  if (!Number.isInteger(n) || n < 0 || n > 10_000_000) throw invalidInput('invalid cursor', [{ loc: ['cursor'], msg: 'invalid cursor', type: 'value_error.cursor' }]);
  return n;
}

export const memoryTools = [
  defineTool({
    name: 'add_memory',
    scope: 'mcp:write',
    advisory: true,
    description:
      `Stores a memory (note, preference, fact or event) with its embedding, for search_memory and get_context_block. With key (kind preference or fact) it also records a bi-temporal fact: a newer value for the same key ends the older one (valid_to, superseded_by). session_id defaults to this MCP session. ${SCOPE_NOTE}`,
    input: z
      .object({
        content: z.string().trim().min(1).max(MAX_MEMORY_CHARS),
        title: z.string().trim().max(200).optional(),
        kind: z.enum(MEMORY_KINDS).default('note'),
        tags: z.array(tag).max(20).optional(),
        key: z.string().trim().min(1).max(200).optional().describe('Fact or preference key, e.g. "editor"; stores a fact whose value is value or the content'),
        value: z.string().trim().min(1).max(2000).optional().describe('The fact value (default: the content)'),
        valid_from: isoDate.optional().describe('When the fact started to hold (default now)'),
        session_id: sessionId.optional(),
      })
      .strict()
      .refine((a) => a.key === undefined || a.kind === 'preference' || a.kind === 'fact', { message: 'key needs kind preference or fact', path: ['key'] })
      .refine((a) => (a.value === undefined && a.valid_from === undefined) || a.key !== undefined, { message: 'value and valid_from need key', path: ['key'] }),
    output: memoryOut.extend({ fact_id: z.string().nullable(), superseded_fact_id: z.string().nullable() }),
    async handler(args, ctx) {
      const s = scopeOf(ctx.principal);
      const { memory, fact, superseded } = await addMemory(ctx.call, s, {
        content: args.content,
        title: args.title,
        kind: args.kind,
        tags: args.tags,
        sessionId: args.session_id ?? ctx.session.id,
        factKey: args.key,
        factValue: args.value,
        validFrom: args.valid_from,
      });
      return { result: { ...memoryResponse(memory), fact_id: fact?.id ?? null, superseded_fact_id: superseded } };
    },
  }),
  defineTool({
    name: 'list_memories',
    scope: 'mcp:read',
    advisory: true,
    readOnly: true,
    description: `Lists memories newest first: limit 1-${LIST_LIMIT_MAX} (default 20), opaque cursor, optional kind and session_id filters. ${SCOPE_NOTE}`,
    input: z
      .object({
        limit: z.number().int().min(1).max(LIST_LIMIT_MAX).default(20),
        cursor: z.string().max(100).optional(),
        kind: z.enum(MEMORY_KINDS).optional(),
        session_id: sessionId.optional(),
      })
      .strict(),
    output: z.looseObject({ memories: z.array(memoryOut), total: int, next_cursor: z.string().nullable() }),
    async handler(args, ctx) {
      const offset = decodeOffset(args.cursor);
      const { rows, total } = await listMemories(ctx.services.db, scopeOf(ctx.principal), { limit: args.limit, offset, kind: args.kind, sessionId: args.session_id });
      const next = offset + rows.length < total ? Buffer.from(String(offset + rows.length)).toString('base64url') : null;
      return { result: { memories: rows.map(memoryResponse), total, next_cursor: next } };
    },
  }),
  defineTool({
    name: 'delete_memory',
    scope: 'mcp:write',
    advisory: true,
    description: 'Deletes a memory permanently. Facts it recorded stay in their history (memory_id becomes null); use invalidate_fact to end a fact.',
    output: z.looseObject({ memory_id: z.string(), deleted: z.literal(true) }),
    input: z.object({ memory_id: memoryId }).strict(),
    async handler(args, ctx) {
      const id = await deleteMemory(ctx.services.db, scopeOf(ctx.principal), args.memory_id);
      return { result: { memory_id: id, deleted: true } };
    },
  }),
  defineTool({
    name: 'search_memory',
    scope: 'mcp:read',
    advisory: true,
    readOnly: true,
    description:
      `Hybrid search over memories: BM25 and embedding similarity fused by reciprocal rank fusion as the Knowledge Hub fuses (k = 60, lexical weight 1; dense weight 0.1, chosen on a labelled dev split). mode bm25 or dense uses one ranking alone. Filters: kind, session_id, tags (all must match). ${SCOPE_NOTE}`,
    input: z
      .object({
        query: z.string().trim().min(1).max(4000),
        limit: z.number().int().min(1).max(50).default(10),
        mode: z.enum(['hybrid', 'bm25', 'dense']).default('hybrid'),
        kind: z.enum(MEMORY_KINDS).optional(),
        session_id: sessionId.optional(),
        tags: z.array(tag).max(20).optional(),
      })
      .strict(),
    output: z.looseObject({
      query: z.string(),
      mode: z.enum(['hybrid', 'bm25', 'dense']),
      results: z.array(memoryOut.extend({ score: z.number() })),
      searched: int,
    }),
    async handler(args, ctx) {
      const s = scopeOf(ctx.principal);
      const { hits, corpus } = await searchMemories(ctx.call, s, args.query, args.limit, args.mode, { kind: args.kind, sessionId: args.session_id, tags: args.tags });
      const rows = await memoriesByIds(ctx.services.db, s, hits.map((h) => h.memory_id));
      const byId = new Map(rows.map((r) => [r.id, r]));
      const results = hits
        .filter((h) => byId.has(h.memory_id))
        .map((h) => ({ ...memoryResponse(byId.get(h.memory_id)!), score: h.score, similarity: h.similarity, lexical_rank: h.lexical_rank, vector_rank: h.vector_rank }));
      return { result: { query: args.query, mode: args.mode, results, searched: corpus.ids.length } };
    },
  }),
  defineTool({
    name: 'search_memory_index',
    scope: 'mcp:read',
    advisory: true,
    readOnly: true,
    description:
      'Compact memory index: entries with memory_id, title, tokens, kind and created_at only (no content), ranked by the hybrid search when query is given, else newest first. Fetch the few you need with search_memory or list_memories.',
    input: z
      .object({
        query: z.string().trim().min(1).max(4000).optional(),
        limit: z.number().int().min(1).max(200).default(50),
        kind: z.enum(MEMORY_KINDS).optional(),
      })
      .strict(),
    output: z.looseObject({
      entries: z.array(z.looseObject({ memory_id: z.string(), title: z.string(), tokens: int, kind: z.string(), created_at: z.string(), score: z.number().optional() })),
      total: int,
      index_tokens: int,
    }),
    async handler(args, ctx) {
      const s = scopeOf(ctx.principal);
      const compact = (r: { id: string; title: string; tokens: number; kind: string; created_at: Date | string }) => ({
        memory_id: r.id,
        title: r.title,
        tokens: r.tokens,
        kind: r.kind,
        created_at: iso(r.created_at),
      });
      if (args.query) {
        const { hits, corpus } = await searchMemories(ctx.call, s, args.query, args.limit, 'hybrid', { kind: args.kind });
        const entries = hits.map((h) => ({ ...compact(corpus.rows[h.index]!), score: h.score }));
        return { result: { entries, total: corpus.ids.length, index_tokens: entries.reduce((n, e) => n + e.tokens, 0) } };
      }
      const { rows, total } = await recentIndex(ctx.services.db, s, args.kind ? Number.MAX_SAFE_INTEGER : args.limit);
      const entries = rows.filter((r) => !args.kind || r.kind === args.kind).slice(0, args.limit).map(compact);
      return { result: { entries, total, index_tokens: entries.reduce((n, e) => n + e.tokens, 0) } };
    },
  }),
  defineTool({
    name: 'invalidate_fact',
    scope: 'mcp:write',
    advisory: true,
    description:
      'Ends a fact or preference: sets valid_to (default now) and invalidated_at with the reason. Nothing is deleted: list_fact_history still shows it. An already invalidated fact answers already_invalidated.',
    input: z
      .object({
        fact_id: factId,
        reason: z.string().trim().min(1).max(1000).optional(),
        valid_to: isoDate.optional().describe('When the fact stopped holding (default now)'),
      })
      .strict(),
    output: factOut,
    async handler(args, ctx) {
      const f = await invalidateFact(ctx.services.db, scopeOf(ctx.principal), args.fact_id, { reason: args.reason, validTo: args.valid_to });
      return { result: factResponse(f) };
    },
  }),
  defineTool({
    name: 'list_fact_history',
    scope: 'mcp:read',
    advisory: true,
    readOnly: true,
    description:
      'Bi-temporal history of a fact key (or of the key of fact_id), oldest first: every value with valid_from, valid_to, recorded_at, invalidated_at and superseded_by; current marks the one holding now. Neither key nor fact_id: every fact of the scope.',
    input: z
      .object({
        key: z.string().trim().min(1).max(200).optional(),
        fact_id: factId.optional(),
        limit: z.number().int().min(1).max(500).default(100),
      })
      .strict()
      .refine((a) => !(a.key && a.fact_id), { message: 'Give key or fact_id, not both', path: ['fact_id'] }),
    output: z.looseObject({ key: z.string().nullable(), facts }),
    async handler(args, ctx) {
      const { key, facts } = await factHistory(ctx.services.db, scopeOf(ctx.principal), { key: args.key, factId: args.fact_id, limit: args.limit });
      return { result: { key, facts: facts.map(factResponse) } };
    },
  }),
  defineTool({
    name: 'get_context_block',
    scope: 'mcp:read',
    advisory: true,
    readOnly: true,
    description:
      "A context block within budget_tokens (o200k_base, measured on the block): current facts and preferences, then memories ranked for query (hybrid search; newest without query) alternating with the key's project Knowledge Hub chunks (MCP-exposed items). Items that do not fit are skipped; tokens is never above the budget.",
    input: z
      .object({
        budget_tokens: z.number().int().min(1).max(200_000),
        query: z.string().trim().min(1).max(4000).optional(),
        include_knowledge: z.boolean().default(true),
        include_facts: z.boolean().default(true),
      })
      .strict(),
    output: z.looseObject({
      block: z.string(),
      tokens: int,
      budget_tokens: int,
      items: z.array(z.looseObject({ source: z.string(), id: z.string(), tokens: int })),
      omitted: int,
      candidates: int,
    }),
    async handler(args, ctx) {
      const r = await contextBlock(ctx.call, scopeOf(ctx.principal), {
        query: args.query,
        budgetTokens: args.budget_tokens,
        includeKnowledge: args.include_knowledge,
        includeFacts: args.include_facts,
      });
      return { result: r };
    },
  }),
  defineTool({
    name: 'get_user_profile',
    scope: 'mcp:read',
    advisory: true,
    readOnly: true,
    description: `The user's profile derived from memories: current preferences and facts (bi-temporal, holding now), memory and session counts, top tags. ${SCOPE_NOTE}`,
    output: z.looseObject({
      user_id: z.string(),
      project_id: z.string().nullable(),
      preferences: facts,
      facts,
      memory_count: int,
      session_count: int,
      top_tags: topTags,
      updated_at: z.string().nullable(),
    }),
    input: z.object({}).strict(),
    async handler(_args, ctx) {
      return { result: await userProfile(ctx.call, scopeOf(ctx.principal)) };
    },
  }),
  defineTool({
    name: 'summarize_user_memory',
    scope: 'mcp:read',
    advisory: true,
    readOnly: true,
    description: 'A short summary of what is remembered: counts by kind, current preferences and facts, top tags and the most recent memory titles, with its token count.',
    output: z.looseObject({
      summary: z.string(),
      tokens: int,
      memory_count: int,
      session_count: int,
      by_kind: z.record(z.string(), int),
      top_tags: topTags,
      preferences: facts,
      facts,
      recent: z.array(z.looseObject({ memory_id: z.string(), title: z.string(), kind: z.string(), created_at: z.string().nullable() })),
    }),
    input: z.object({ recent: z.number().int().min(0).max(50).default(10) }).strict(),
    async handler(args, ctx) {
      return { result: await summarizeMemory(ctx.call, scopeOf(ctx.principal), args.recent) };
    },
  }),
  defineTool({
    name: 'recover_session',
    scope: 'mcp:read',
    advisory: true,
    readOnly: true,
    description:
      "Restores a session's context from stored history: its memories in order, the facts they recorded, its adaptive-memory conversation (afm_* messages, when any), and one context text to paste into a new session. Unknown session: not_found.",
    output: z.looseObject({
      session_id: z.string(),
      memories: z.array(memoryOut),
      facts,
      messages: z.array(z.looseObject({ role: z.string(), content: z.string() })),
      context: z.string(),
      tokens: int,
      memory_count: int,
    }),
    input: z.object({ session_id: sessionId }).strict(),
    async handler(args, ctx) {
      const s = scopeOf(ctx.principal);
      const afm = await afmSessionMessages(ctx.services.db, s, args.session_id);
      return { result: await recoverSession(ctx.call, s, args.session_id, { afm }) };
    },
  }),
];

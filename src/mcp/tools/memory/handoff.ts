import { z } from 'zod';
import { AFM_MAX_MESSAGE_CHARS, afmAdd } from '../../../domain/memory/afm.js';
import { invalid } from '../../../domain/errors.js';
import { createBundle, getBundle, listBundles, markReplayed } from '../../../domain/memory/handoff.js';
import { scopeOf } from '../../../domain/memory/memories.js';
import { defineTool } from '../../tool.js';
import { anyObject, int } from '../outputs.js';

/** A bundle as listed (bundleSummary); create and get add the bundle itself. */
const summary = z.looseObject({
  bundle_id: z.string(),
  title: z.string(),
  session_id: z.string().nullable(),
  content_hash: z.string(),
  tokens: int,
  created_at: z.string().nullable(),
  replayed_count: int,
});

const bundleId = z.string().uuid().describe('bundle_id returned by create_handoff_bundle or list_handoff_bundles');
const PROFILES = ['minimal', 'summary', 'balanced', 'detailed', 'full'];

export const handoffTools = [
  defineTool({
    name: 'create_handoff_bundle',
    output: summary.extend({ bundle: anyObject }),
    scope: 'mcp:write',
    advisory: true,
    description:
      "Bundles this session for another agent: session state (compression profile, recent tool calls, your notes and state object), key memories (this session's first) and current facts, and the adaptive-memory conversation compressed to history_budget_tokens. Stored as canonical JSON with its SHA-256 content_hash; replay_handoff_bundle restores it in another session.",
    input: z
      .object({
        title: z.string().trim().min(1).max(200).optional(),
        notes: z.string().max(20_000).optional().describe('What the next agent should know: goal, progress, open questions'),
        state: z.record(z.string(), z.unknown()).optional().describe('Any JSON state to carry over'),
        session_id: z.string().trim().min(1).max(200).optional().describe('Session whose memories lead (default: this one)'),
        conversation_id: z.string().trim().min(1).max(200).optional().describe('afm_* conversation to compress (default: the session id)'),
        memory_limit: z.number().int().min(0).max(200).default(20),
        history_budget_tokens: z.number().int().min(1).max(100_000).default(2000),
      })
      .strict(),
    async handler(args, ctx) {
      const sessionId = args.session_id ?? ctx.session.id ?? 'default';
      const r = await createBundle(ctx.call, scopeOf(ctx.principal), {
        title: args.title,
        notes: args.notes,
        state: args.state,
        sessionId,
        conversationId: args.conversation_id ?? sessionId,
        memoryLimit: args.memory_limit,
        historyBudgetTokens: args.history_budget_tokens,
        session: ctx.session,
      });
      return { result: r };
    },
  }),
  defineTool({
    name: 'get_handoff_bundle',
    output: summary.extend({ verified: z.boolean(), bundle: anyObject }),
    scope: 'mcp:read',
    advisory: true,
    readOnly: true,
    description: 'Returns a handoff bundle with its content_hash; verified says the stored content still hashes to it.',
    input: z.object({ bundle_id: bundleId }).strict(),
    async handler(args, ctx) {
      return { result: await getBundle(ctx.services.db, scopeOf(ctx.principal), args.bundle_id) };
    },
  }),
  defineTool({
    name: 'list_handoff_bundles',
    output: z.looseObject({ bundles: z.array(summary), total: int }),
    scope: 'mcp:read',
    advisory: true,
    readOnly: true,
    description: 'Lists handoff bundles newest first (bundle_id, title, session_id, content_hash, tokens, created_at, replayed_count).',
    input: z.object({ limit: z.number().int().min(1).max(100).default(20) }).strict(),
    async handler(args, ctx) {
      return { result: await listBundles(ctx.services.db, scopeOf(ctx.principal), args.limit) };
    },
  }),
  defineTool({
    name: 'replay_handoff_bundle',
    output: z.looseObject({
      bundle_id: z.string(),
      content_hash: z.string(),
      session_id: z.string().nullable(),
      conversation_id: z.string(),
      message_id: z.string(),
      restored: z.looseObject({ profile: z.string(), overrides: anyObject, memories: int, facts: int, history_tokens: int }),
      context: z.string(),
      tokens: int,
      replayed_count: int,
    }),
    scope: 'mcp:write',
    advisory: true,
    description:
      "Restores a handoff bundle into this MCP session: the compression profile and overrides, and the bundle's context (notes, state, facts, key memories, compressed conversation) as a CRITICAL message of this session's afm_* conversation, so afm_build_context and recover_session carry it. Returns the context to read now. A bundle whose content no longer matches its hash answers invalid_request.",
    input: z.object({ bundle_id: bundleId }).strict(),
    async handler(args, ctx) {
      const s = scopeOf(ctx.principal);
      const b = await getBundle(ctx.services.db, s, args.bundle_id);
      if (!b.verified) throw invalid('The stored bundle does not match its content_hash');
      const state = b.bundle.session_state ?? {};
      if (typeof state.profile === 'string' && PROFILES.includes(state.profile)) ctx.session.profile = state.profile;
      if (state.overrides && typeof state.overrides === 'object') ctx.session.overrides = { ...state.overrides };
      const conversationId = ctx.session.id ?? 'default';
      const context = String(b.bundle.context ?? '');
      // One conversation message holds at most AFM_MAX_MESSAGE_CHARS (the whole context is still returned).
      const held = context.length > AFM_MAX_MESSAGE_CHARS ? `${context.slice(0, AFM_MAX_MESSAGE_CHARS - 40)}\n[... cut; get_handoff_bundle has it all]` : context;
      const message = await afmAdd(ctx.call, s, conversationId, {
        role: 'system',
        content: held,
        importance: 'CRITICAL',
        reason: `handoff bundle ${b.bundle_id} (${b.content_hash.slice(0, 12)})`,
      });
      const replayed = await markReplayed(ctx.services.db, b.bundle_id);
      return {
        result: {
          bundle_id: b.bundle_id,
          content_hash: b.content_hash,
          session_id: ctx.session.id,
          conversation_id: conversationId,
          message_id: message.id,
          restored: {
            profile: ctx.session.profile,
            overrides: ctx.session.overrides,
            memories: (b.bundle.memories ?? []).length,
            facts: (b.bundle.facts ?? []).length,
            history_tokens: b.bundle.history?.tokens ?? 0,
          },
          context,
          tokens: b.tokens,
          replayed_count: replayed,
        },
      };
    },
  }),
];

import { z } from 'zod';
import {
  AFM_FORMAT, AFM_IMPORTANCE, AFM_MAX_MESSAGE_CHARS, AFM_MAX_MESSAGES, afmAdd, afmBuild, afmClear, afmExport, afmImport, afmStats, messageResponse,
} from '../../../domain/memory/afm.js';
import { scopeOf } from '../../../domain/memory/memories.js';
import { defineTool, type ToolContext } from '../../tool.js';
import { int, rows } from '../outputs.js';

const conversationId = z.string().trim().min(1).max(200).optional().describe('Conversation id (default: this MCP session id)');

function conversationOf(args: { conversation_id?: string }, ctx: ToolContext): string {
  return args.conversation_id ?? ctx.session.id ?? 'default';
}

const exportedMessage = z
  .object({
    seq: z.number().int().min(1).max(1_000_000_000),
    role: z.string().trim().min(1).max(50),
    content: z.string().min(1).max(AFM_MAX_MESSAGE_CHARS),
    importance: z.enum(AFM_IMPORTANCE),
    reason: z.string().max(1000).nullable(),
    tokens: z.number().int().min(0).max(10_000_000),
    created_at: z.string().datetime({ offset: true }),
  })
  .strict();

export const afmTools = [
  defineTool({
    name: 'afm_add_message',
    scope: 'mcp:write',
    advisory: true,
    description:
      'Adds a message to an adaptive-memory conversation with its importance: CRITICAL, RELEVANT or TRIVIAL, and the reason. Without importance it is classed by rules (system messages, requirements and decisions are CRITICAL; acknowledgements TRIVIAL) and the reason names the rule.',
    output: z.looseObject({
      conversation_id: z.string(),
      message_id: z.string(),
      seq: int,
      role: z.string(),
      importance: z.enum(AFM_IMPORTANCE),
      reason: z.string().nullable(),
      tokens: int,
      created_at: z.string(),
    }),
    input: z
      .object({
        conversation_id: conversationId,
        role: z.enum(['user', 'assistant', 'system', 'tool']),
        content: z.string().min(1).max(AFM_MAX_MESSAGE_CHARS),
        importance: z.enum(AFM_IMPORTANCE).optional(),
        reason: z.string().trim().min(1).max(1000).optional(),
      })
      .strict(),
    async handler(args, ctx) {
      const conv = conversationOf(args, ctx);
      const m = await afmAdd(ctx.call, scopeOf(ctx.principal), conv, args);
      return { result: { conversation_id: conv, ...messageResponse(m) } };
    },
  }),
  defineTool({
    name: 'afm_build_context',
    scope: 'mcp:read',
    advisory: true,
    readOnly: true,
    description:
      'Packs the conversation into budget_tokens (o200k_base, measured on the context): each message FULL, COMPRESSED (first sentence) or PLACEHOLDER, in order. CRITICAL messages are FULL first (never dropped while the budget allows; critical_full_tokens is the budget that keeps them all FULL), then the rest newest first.',
    output: z.looseObject({
      conversation_id: z.string(),
      context: z.string(),
      tokens: int,
      budget_tokens: int,
      items: rows,
      forms: z.looseObject({ FULL: int, COMPRESSED: int, PLACEHOLDER: int }),
      dropped: z.array(int),
      critical_total: int,
      critical_full: int,
      critical_full_tokens: int,
    }),
    input: z.object({ conversation_id: conversationId, budget_tokens: z.number().int().min(1).max(1_000_000) }).strict(),
    async handler(args, ctx) {
      return { result: await afmBuild(ctx.call, scopeOf(ctx.principal), conversationOf(args, ctx), args.budget_tokens) };
    },
  }),
  defineTool({
    name: 'afm_get_stats',
    scope: 'mcp:read',
    advisory: true,
    readOnly: true,
    description: 'Counts and tokens of a conversation by importance, and critical_full_tokens: the budget afm_build_context needs to keep every CRITICAL message FULL.',
    output: z.looseObject({
      conversation_id: z.string(),
      message_count: int,
      by_importance: z.record(z.string(), int),
      tokens_by_importance: z.record(z.string(), int),
      total_tokens: int,
      critical_full_tokens: int,
      first_at: z.string().nullable(),
      last_at: z.string().nullable(),
    }),
    input: z.object({ conversation_id: conversationId }).strict(),
    async handler(args, ctx) {
      return { result: await afmStats(ctx.call, scopeOf(ctx.principal), conversationOf(args, ctx)) };
    },
  }),
  defineTool({
    name: 'afm_clear_history',
    scope: 'mcp:write',
    advisory: true,
    description: "Deletes a conversation's messages (export it first to keep them).",
    output: z.looseObject({ conversation_id: z.string(), deleted: int }),
    input: z.object({ conversation_id: conversationId }).strict(),
    async handler(args, ctx) {
      return { result: await afmClear(ctx.services.db, scopeOf(ctx.principal), conversationOf(args, ctx)) };
    },
  }),
  defineTool({
    name: 'afm_export_history',
    scope: 'mcp:read',
    advisory: true,
    readOnly: true,
    description: `Exports a conversation as ${AFM_FORMAT}: every message with seq, role, content, importance, reason, tokens and created_at, and a SHA-256 content_hash. afm_import_history takes it back exactly.`,
    output: z.looseObject({ format: z.string(), conversation_id: z.string(), message_count: int, content_hash: z.string(), messages: rows }),
    input: z.object({ conversation_id: conversationId }).strict(),
    async handler(args, ctx) {
      return { result: await afmExport(ctx.services.db, scopeOf(ctx.principal), conversationOf(args, ctx)) };
    },
  }),
  defineTool({
    name: 'afm_import_history',
    scope: 'mcp:write',
    advisory: true,
    description: `Imports an afm_export_history result into a conversation (its messages exactly: a new export equals the old). A wrong format, repeated seq or content_hash mismatch answers invalid_history; a conversation with messages answers conflict unless replace is true. At most ${AFM_MAX_MESSAGES} messages.`,
    output: z.looseObject({ conversation_id: z.string(), imported: int, replaced: int }),
    input: z
      .object({
        conversation_id: conversationId,
        history: z
          .object({
            format: z.string().max(50),
            conversation_id: z.string().max(200).optional(),
            message_count: z.number().int().min(0).optional(),
            content_hash: z.string().max(128).optional(),
            messages: z.array(exportedMessage).min(1).max(AFM_MAX_MESSAGES),
          })
          .strict(),
        replace: z.boolean().default(false),
      })
      .strict(),
    async handler(args, ctx) {
      const conv = conversationOf(args, ctx);
      return { result: await afmImport(ctx.services.db, scopeOf(ctx.principal), conv, args.history, args.replace) };
    },
  }),
];

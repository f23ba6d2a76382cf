import { z } from 'zod';
import { FIDELITIES, FIDELITY_BUDGET } from '../../../workers/shared/fidelity.js';
import { contextWindowFor, recommendForTokens } from '../../../workers/text/recommend.js';
import { compressForCaller } from '../../domain/compression/text.js';
import { defineTool, ToolError, type ToolContext } from '../tool.js';
import { countInPool } from './tokens.js';

async function compressFor(ctx: ToolContext, text: string, fidelity: (typeof FIDELITIES)[number], query: string | undefined, model: string | undefined) {
  const response = await compressForCaller(ctx.services, ctx.principal, { text, fidelity, query: query ?? null, model: model ?? null }, ctx.signal);
  return {
    result: { ...response },
    usage: { inputTokens: response.original_tokens, outputTokens: response.compressed_tokens, fidelity, model: model ?? null, inputText: text },
  };
}

export const textTools = [
  defineTool({
    name: 'optimize_for_model',
    category: 'general',
    plan: 'pro',
    description: "Compresses text for a target model: that model's tokenizer, and a fidelity chosen from its context window unless given.",
    input: z
      .object({
        text: z.string().min(1),
        model: z.string().min(1).max(100),
        fidelity: z.enum(FIDELITIES).optional(),
        query: z.string().max(10_000).optional(),
      })
      .strict(),
    async handler({ text, model, fidelity, query }, ctx) {
      let level = fidelity;
      if (!level) {
        const { tokens } = await countInPool(ctx, text, model);
        level = recommendForTokens(tokens, contextWindowFor(model)).fidelity;
      }
      return compressFor(ctx, text, level, query, model);
    },
  }),
  defineTool({
    name: 'adapt_to_context_window',
    category: 'general',
    plan: 'pro',
    description: 'Compresses text just enough to fit the room left in a context window (context_window minus used_tokens, with a reserve).',
    input: z
      .object({
        text: z.string().min(1),
        context_window: z.number().int().positive().optional(),
        model: z.string().max(100).optional(),
        used_tokens: z.number().int().min(0).default(0),
        reserve_tokens: z.number().int().min(0).default(1024),
        query: z.string().max(10_000).optional(),
      })
      .strict(),
    async handler(args, ctx) {
      const window = args.context_window ?? contextWindowFor(args.model);
      if (!window) throw new ToolError('validation_error', 'Give context_window, or a model whose window is known');
      const room = window - args.used_tokens - args.reserve_tokens;
      if (room <= 0) throw new ToolError('context_full', 'No room left in the context window; clear it first', { room_tokens: room });
      const { tokens } = await countInPool(ctx, args.text, args.model);
      // The least aggressive level whose budget fits the room.
      const level = [...FIDELITIES].reverse().find((f) => Math.ceil(tokens * FIDELITY_BUDGET[f]) <= room) ?? 'abstract';
      const outcome = await compressFor(ctx, args.text, level, args.query, args.model);
      return { ...outcome, result: { ...outcome.result, room_tokens: room, fits: (outcome.result.compressed_tokens as number) <= room } };
    },
  }),
];

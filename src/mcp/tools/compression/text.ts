import { z } from 'zod';
import { FIDELITIES, FIDELITY_BUDGET } from '../../../../workers/shared/fidelity.js';
import { contextWindowFor, recommendForTokens } from '../../../../workers/shared/recommend.js';
import { compressResponse } from '../../../domain/compression/response.js';
import { compressText, pruneByRelevance } from '../../../domain/compression/text.js';
import { countTokens } from '../../../domain/compression/tokens.js';
import { invalidInput, invalid } from '../../../domain/errors.js';
import { defineTool } from '../../tool.js';

export const textTools = [
  defineTool({
    name: 'prune_by_relevance',
    description:
      'Keeps what a text says about a query within a firm token budget (default: balanced, 20%): sentences, rows and code parts ranked by the query (BM25 and embeddings fused) are kept verbatim in order, the rest elided with markers.',
    input: z
      .object({
        text: z.string().min(1).max(2_000_000),
        query: z.string().trim().min(1).max(10_000),
        budget_tokens: z.number().int().min(16).max(1_000_000).optional(),
        model: z.string().min(1).max(100).optional(),
      })
      .strict(),
    output: z.looseObject({
      pruned_text: z.string(),
      budget_tokens: z.number().int().nullable(),
      original_tokens: z.number().int(),
      pruned_tokens: z.number().int(),
      tokens_saved: z.number().int(),
      savings_percent: z.number(),
      units_total: z.number().int(),
      units_kept: z.number().int(),
      original_id: z.string().nullable(),
    }),
    async handler(args, ctx) {
      return { result: await pruneByRelevance(ctx.call, args) };
    },
  }),
  defineTool({
    name: 'optimize_for_model',
    description: "Compresses text for a target model: that model's tokenizer, and a fidelity chosen from its context window unless given.",
    output: compressResponse,
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
        const { tokens } = await countTokens(ctx.call, text, model);
        level = recommendForTokens(tokens, contextWindowFor(model)).fidelity;
      }
      return { result: { ...(await compressText(ctx.call, { text, fidelity: level, query, model })) } };
    },
  }),
  defineTool({
    name: 'adapt_to_context_window',
    description: 'Compresses text just enough to fit the room left in a context window (context_window minus used_tokens, with a reserve).',
    output: compressResponse.extend({ room_tokens: z.number().int(), fits: z.boolean() }),
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
      if (!window) throw invalidInput('Give context_window, or a model whose window is known', [{ loc: ['context_window'], msg: 'Required for this model', type: 'missing' }]);
      const room = window - args.used_tokens - args.reserve_tokens;
      if (room <= 0) throw invalid('No room left in the context window; clear it first', { code: 'context_full', extra: { room_tokens: room } });
      const { tokens } = await countTokens(ctx.call, args.text, args.model);
      // The least aggressive level whose budget fits the room.
      const level = [...FIDELITIES].reverse().find((f) => Math.ceil(tokens * FIDELITY_BUDGET[f]) <= room) ?? 'abstract';
      const response = await compressText(ctx.call, { text: args.text, fidelity: level, query: args.query, model: args.model });
      return { result: { ...response, room_tokens: room, fits: response.compressed_tokens <= room } };
    },
  }),
];

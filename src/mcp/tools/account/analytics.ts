import { z } from 'zod';
import { defineTool } from '../../tool.js';
import { int, rows } from '../outputs.js';
import { countTokens } from '../../../domain/compression/tokens.js';
import { estimateModelCost } from '../../../domain/platform/costs.js';
import { calculateRoi, compressionInsights, discoverSavings, savingsInline, savingsReport } from '../../../domain/analytics/savings.js';

const days = z.number().int().min(1).max(365).default(30);
const pricingModel = z.string().min(1).max(100).optional().describe('Price tokens at this model (default: your most used priced model)');
import { FIDELITIES } from '../../../../workers/shared/fidelity.js';

/** The model and list price dollars are figured at (savings reports, discover_savings, calculate_roi). */
const pricedAt = z.looseObject({ model: z.string(), input_usd_per_mtok: z.number(), price_table_as_of: z.string() });

const COMPRESSIBLE = FIDELITIES.filter((f) => f !== 'raw') as [Exclude<(typeof FIDELITIES)[number], 'raw'>, ...Exclude<(typeof FIDELITIES)[number], 'raw'>[]];

export const analyticsTools = [
  defineTool({
    name: 'estimate_tokens',
    readOnly: true,
    advisory: true,
    description: 'Accurate BPE token count, fast estimate (bytes/4), JSON estimate (bytes/2) and raw byte count.',
    output: z.looseObject({
      accurate_tokens: z.number().int(),
      tokenizer: z.string(),
      fast_estimate: z.number().int(),
      json_estimate: z.number().int(),
      bytes: z.number().int(),
    }),
    input: z.object({ text: z.string(), model: z.string().max(100).optional() }).strict(),
    async handler({ text, model }, ctx) {
      const bytes = Buffer.byteLength(text, 'utf8');
      const accurate = await countTokens(ctx.call, text, model);
      return {
        result: {
          accurate_tokens: accurate.tokens,
          tokenizer: accurate.tokenizer,
          fast_estimate: Math.ceil(bytes / 4),
          json_estimate: Math.ceil(bytes / 2),
          bytes,
        },
      };
    },
  }),
  defineTool({
    name: 'estimate_model_cost',
    readOnly: true,
    advisory: true,
    description:
      'Cost of a prompt per model at list prices from a dated price table (input and output, times calls), cheapest first; with fidelity, also the cost with the input compressed to that level. Give text or input_tokens.',
    output: z.looseObject({
      price_table_as_of: z.string(),
      calls: int,
      models: z.array(z.looseObject({ model: z.string(), input_tokens: int, output_tokens: int, total_usd: z.number(), compressed: z.looseObject({ total_usd: z.number(), savings_usd: z.number() }).optional() })),
      unpriced: z.array(z.string()),
      cheapest: z.string().nullable(),
    }),
    input: z
      .object({
        text: z.string().max(2_000_000).optional(),
        input_tokens: z.number().int().min(0).max(100_000_000).optional(),
        output_tokens: z.number().int().min(0).max(10_000_000).default(0).describe('Expected output tokens per call'),
        models: z.array(z.string().min(1).max(100)).max(30).optional().describe('Default: every priced model'),
        fidelity: z.enum(COMPRESSIBLE).optional(),
        calls: z.number().int().min(1).max(100_000_000).default(1),
      })
      .strict()
      .refine((a) => (a.text === undefined) !== (a.input_tokens === undefined), { message: 'Give exactly one of text or input_tokens', path: ['text'] }),
    async handler(args, ctx) {
      return { result: await estimateModelCost(ctx.call, ctx.services.llm.prices, args) };
    },
  }),
  defineTool({
    name: 'get_savings_report',
    scope: 'mcp:read',
    readOnly: true,
    advisory: true,
    description: 'What compression saved you over the last days: totals, dollars at a model\'s list input price, by fidelity, by model, top tools and per day.',
    output: z.looseObject({
      days: int,
      totals: z.looseObject({ calls: int, original_tokens: int, compressed_tokens: int, tokens_saved: int, savings_percent: z.number() }),
      priced_at: pricedAt,
      usd_saved: z.number(),
      by_fidelity: rows,
      by_model: rows,
      top_tools: rows,
      daily: z.array(z.looseObject({ date: z.string(), calls: int, tokens_saved: int })),
    }),
    input: z.object({ days, model: pricingModel }).strict(),
    async handler(args, ctx) {
      return { result: await savingsReport(ctx.services.db, ctx.services.llm.prices, ctx.principal.userId, args.days, args.model) };
    },
  }),
  defineTool({
    name: 'get_savings_inline',
    scope: 'mcp:read',
    readOnly: true,
    advisory: true,
    description: 'One sentence on what compression saved you lately (tokens, percent, calls, dollars), to quote in a reply, with its figures.',
    output: z.looseObject({ text: z.string(), days: int, calls: int, tokens_saved: int, savings_percent: z.number(), usd_saved: z.number(), model: z.string() }),
    input: z.object({ days: z.number().int().min(1).max(365).default(7), model: pricingModel }).strict(),
    async handler(args, ctx) {
      return { result: await savingsInline(ctx.services.db, ctx.services.llm.prices, ctx.principal.userId, args.days, args.model) };
    },
  }),
  defineTool({
    name: 'discover_savings',
    scope: 'mcp:read',
    readOnly: true,
    advisory: true,
    description: 'Where your traffic would save most: calls at a higher fidelity than needed, tools whose calls save nothing, cache misses; each with calls and an estimated monthly saving.',
    output: z.looseObject({
      days: int,
      priced_at: pricedAt,
      opportunities: z.array(z.looseObject({ kind: z.string(), detail: z.string(), calls: int, est_monthly_tokens_saved: int, est_monthly_usd_saved: z.number() })),
    }),
    input: z.object({ days, model: pricingModel }).strict(),
    async handler(args, ctx) {
      return { result: await discoverSavings(ctx.services.db, ctx.services.llm.prices, ctx.principal.userId, args.days, args.model) };
    },
  }),
  defineTool({
    name: 'get_compression_insights',
    scope: 'mcp:read',
    readOnly: true,
    advisory: true,
    description: 'Where your savings come from: by fidelity, model, surface (REST, MCP, batch) and client, the cache, and plain findings drawn from them.',
    output: z.looseObject({
      days: int,
      by_fidelity: rows,
      by_model: rows,
      by_surface: rows,
      by_client: rows,
      cache: z.looseObject({ hits: int, misses: int, tokens_saved_hits: int }),
      findings: z.array(z.string()),
    }),
    input: z.object({ days }).strict(),
    async handler(args, ctx) {
      return { result: await compressionInsights(ctx.services.db, ctx.principal.userId, args.days) };
    },
  }),
  defineTool({
    name: 'calculate_roi',
    scope: 'mcp:read',
    readOnly: true,
    advisory: true,
    description: 'Monthly return on compression: provider input cost without and with it at a model\'s list price, less the service\'s cost. Defaults come from your last 30 days.',
    output: z.looseObject({
      monthly_input_tokens: int,
      savings_percent: z.number(),
      source: z.looseObject({ monthly_input_tokens: z.string(), savings_percent: z.string() }),
      priced_at: pricedAt,
      monthly_cost_without_usd: z.number(),
      monthly_cost_with_usd: z.number(),
      monthly_gross_saving_usd: z.number(),
      monthly_service_cost_usd: z.number(),
      monthly_net_saving_usd: z.number(),
      roi_percent: z.number().nullable(),
    }),
    input: z
      .object({
        monthly_input_tokens: z.number().int().min(0).max(1e12).optional(),
        model: pricingModel,
        savings_percent: z.number().min(0).max(100).optional(),
        monthly_service_cost_usd: z.number().min(0).max(1e9).default(0),
      })
      .strict(),
    async handler(args, ctx) {
      return { result: await calculateRoi(ctx.services.db, ctx.services.llm.prices, ctx.principal.userId, args) };
    },
  }),
];

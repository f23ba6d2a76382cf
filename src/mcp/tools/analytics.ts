import { z } from 'zod';
import { defineTool } from '../tool.js';
import { countTokens } from '../../domain/compression/tokens.js';
import { estimateModelCost } from '../../domain/platform/costs.js';
import { calculateRoi, compressionInsights, discoverSavings, savingsInline, savingsReport } from '../../domain/accounts/savings.js';

const days = z.number().int().min(1).max(365).default(30);
const pricingModel = z.string().min(1).max(100).optional().describe('Price tokens at this model (default: your most used priced model)');
import { FIDELITIES } from '../../../workers/shared/fidelity.js';

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

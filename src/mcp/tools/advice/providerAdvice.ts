import { z } from 'zod';
import { adviseContext, CONTEXT_ROLES } from '../../../domain/advice/context.js';
import { providerProfile } from '../../../domain/advice/providerProfile.js';
import { CACHE_PROVIDERS } from '../../../domain/cacheAdvisory/rules.js';
import { resourceHealth } from '../../../domain/health/resources.js';
import { defineTool } from '../../tool.js';
import { anyObject, fidelity, int } from '../outputs.js';

const level = z.enum(['ok', 'warning', 'critical']);

export const providerAdviceTools = [
  defineTool({
    name: 'get_provider_profile',
    output: z.looseObject({
      kind: z.enum(['model', 'provider']),
      provider: z.enum(CACHE_PROVIDERS),
      model: z.string().optional(),
      context_window: int.nullable().optional(),
      pricing: anyObject.nullable().optional(),
      models: z.array(z.looseObject({ model: z.string(), context_window: int.nullable() })).optional(),
      tokenizer: z.looseObject({ name: z.string(), exact: z.boolean() }),
      caching: anyObject,
    }),
    readOnly: true,
    advisory: true,
    description:
      "A provider's or model's profile from this service's data: context window, list prices (and cached-input prices), prompt-caching rules with their as-of date, and the tokenizer used to count for it. Give model, or provider for its known models.",
    input: z
      .object({ provider: z.enum(CACHE_PROVIDERS).optional(), model: z.string().trim().min(1).max(100).optional() })
      .strict()
      .refine((a) => a.provider !== undefined || a.model !== undefined, { message: 'Give provider or model', path: ['model'] }),
    handler(args, ctx) {
      return { result: providerProfile(ctx.services.llm.prices, args) };
    },
  }),
  defineTool({
    name: 'advise_context',
    output: z.looseObject({
      context_window: int,
      used_tokens: int,
      usage_percent: z.number(),
      level: z.string(),
      actions: z.array(
        z.looseObject({ index: int, id: z.string().nullable(), action: z.enum(['drop', 'compress', 'summarise']), fidelity: fidelity.nullable(), tokens_after: int, saves: int, reason: z.string() }),
      ),
      tokens_saved: int,
      projected_tokens: int,
      projected_percent: z.number(),
      recommendations: z.array(z.string()),
    }),
    readOnly: true,
    advisory: true,
    description:
      "What to drop, compress or summarise to bring a conversation back under 40% of the model's context window (check_context_budget's 40/60/75% thresholds), message by message: old tool outputs first, then large messages at the size rule's fidelity, then old turns. System messages and the last keep_last messages are kept.",
    input: z
      .object({
        model: z.string().trim().min(1).max(100).optional(),
        context_window: z.number().int().positive().max(100_000_000).optional(),
        messages: z
          .array(
            z
              .object({ role: z.enum(CONTEXT_ROLES), content: z.string().max(2_000_000).optional(), tokens: z.number().int().min(0).max(100_000_000).optional(), id: z.string().max(200).optional() })
              .strict()
              .refine((m) => (m.content === undefined) !== (m.tokens === undefined), { message: 'Give exactly one of content or tokens', path: ['content'] }),
          )
          .max(2000)
          .optional(),
        used_tokens: z.number().int().min(0).max(100_000_000).optional(),
        incoming_tokens: z.number().int().min(0).max(100_000_000).default(0),
        keep_last: z.number().int().min(0).max(100).default(2),
      })
      .strict()
      .refine((a) => (a.messages === undefined) !== (a.used_tokens === undefined), { message: 'Give exactly one of messages or used_tokens', path: ['messages'] }),
    async handler(args, ctx) {
      return { result: await adviseContext(ctx.call, args) };
    },
  }),
  defineTool({
    name: 'check_resource_health',
    output: z.looseObject({
      status: z.enum(['healthy', 'degraded', 'unhealthy']),
      serving: z.boolean(),
      version: z.string(),
      uptime_seconds: int,
      components: z.record(z.string(), z.looseObject({ level: level.optional() })),
      recommendations: z.array(z.string()),
      checked_at: z.string(),
    }),
    readOnly: true,
    advisory: true,
    description:
      "This service instance's own resources, each with a level (ok, warning, critical): database reachability and latency, compute pool (ping, utilisation, queue depth), Redis when configured, memory, disk; the same dependency checks as /health/readiness.",
    input: z.object({}).strict(),
    async handler(_args, ctx) {
      return { result: await resourceHealth(ctx.services) };
    },
  }),
];

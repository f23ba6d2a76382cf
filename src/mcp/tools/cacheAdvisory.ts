import { z } from 'zod';
import { auditCacheability, PROMPT_ROLES } from '../../domain/cacheAdvisory/audit.js';
import { assessCompatibility } from '../../domain/cacheAdvisory/compatibility.js';
import { diagnoseCacheMiss } from '../../domain/cacheAdvisory/diagnose.js';
import { CACHE_PROVIDERS } from '../../domain/cacheAdvisory/rules.js';
import { adviseCacheStrategy, CHANGE_RATES } from '../../domain/cacheAdvisory/strategy.js';
import { captureTelemetry, listPrefixCollisions } from '../../domain/cacheAdvisory/telemetry.js';
import { defineTool } from '../tool.js';

/** Longest prompt the cache tools take (characters); a few hundred thousand tokens. */
export const MAX_PROMPT_CHARS = 2_000_000;

const provider = z.enum(CACHE_PROVIDERS).optional().describe('anthropic, openai or google (default: from the model)');
const model = z.string().trim().min(1).max(100);
const prompt = z.string().min(1).max(MAX_PROMPT_CHARS);
const hash = z.string().regex(/^[A-Za-z0-9_:.-]{8,128}$/, '8-128 characters of letters, digits, _ : . -');
const RULES_NOTE = "Rules are the providers' published prompt-caching rules, kept as dated data (rules_as_of).";

export const cacheAdvisoryTools = [
  defineTool({
    name: 'diagnose_cache_miss',
    readOnly: true,
    advisory: true,
    description: `Why a prompt missed the cache: the first token where prompt_a and prompt_b differ, its character offset, line and column, the tokens around it, and whether the shared prefix reaches the provider's minimum cacheable length. ${RULES_NOTE}`,
    input: z
      .object({ prompt_a: prompt, prompt_b: prompt, provider, model: model.optional(), context_tokens: z.number().int().min(0).max(50).default(8) })
      .strict(),
    async handler(args, ctx) {
      return { result: await diagnoseCacheMiss(ctx.call, args) };
    },
  }),
  defineTool({
    name: 'audit_prompt_cacheability',
    readOnly: true,
    advisory: true,
    description: `Finds volatile content (timestamps, dates, UUIDs, request ids, epochs, long random numbers) that breaks a cached prefix, with its character offset, token index and message, and how much of the prompt stays cacheable. Give prompt, or messages in order (tools, system, then the conversation). ${RULES_NOTE}`,
    input: z
      .object({
        prompt: prompt.optional(),
        messages: z.array(z.object({ role: z.enum(PROMPT_ROLES), content: z.string().max(MAX_PROMPT_CHARS) }).strict()).min(1).max(500).optional(),
        provider,
        model: model.optional(),
        max_findings: z.number().int().min(1).max(500).default(50),
      })
      .strict()
      .refine((a) => (a.prompt === undefined) !== (a.messages === undefined), { message: 'Give exactly one of prompt or messages', path: ['prompt'] })
      .refine((a) => !a.messages || a.messages.reduce((n, m) => n + m.content.length, 0) <= MAX_PROMPT_CHARS, { message: `messages exceed ${MAX_PROMPT_CHARS} characters in all`, path: ['messages'] }),
    async handler(args, ctx) {
      return { result: await auditCacheability(ctx.call, args) };
    },
  }),
  defineTool({
    name: 'assess_cache_compatibility',
    readOnly: true,
    advisory: true,
    description: `Whether a prompt can be cached by a provider as set up: length against the model's minimum, breakpoint count and positions (Anthropic), TTL option; lists each rule checked and the provider's dated rules. ${RULES_NOTE}`,
    input: z
      .object({
        provider,
        model: model.optional(),
        prompt: prompt.optional(),
        prompt_tokens: z.number().int().min(0).max(10_000_000).optional(),
        breakpoints: z.array(z.number().int().min(1)).max(64).optional().describe('token positions where cache breakpoints end a prefix'),
        ttl_seconds: z.number().int().positive().optional(),
      })
      .strict()
      .refine((a) => (a.prompt === undefined) !== (a.prompt_tokens === undefined), { message: 'Give exactly one of prompt or prompt_tokens', path: ['prompt'] }),
    async handler(args, ctx) {
      return { result: await assessCompatibility(ctx.call, args) };
    },
  }),
  defineTool({
    name: 'advise_cache_strategy',
    readOnly: true,
    advisory: true,
    description: `Prompt-cache plan for a prompt made of segments (each with how often it changes): order (slowest-changing first), breakpoint placement, TTL, and expected cost with and without caching at the model's list price over the given traffic. ${RULES_NOTE}`,
    input: z
      .object({
        provider,
        model,
        segments: z
          .array(
            z
              .object({ name: z.string().trim().min(1).max(100), text: z.string().max(MAX_PROMPT_CHARS).optional(), tokens: z.number().int().min(0).max(10_000_000).optional(), changes: z.enum(CHANGE_RATES).default('never') })
              .strict()
              .refine((s) => (s.text === undefined) !== (s.tokens === undefined), { message: 'Give exactly one of text or tokens', path: ['text'] }),
          )
          .min(1)
          .max(50),
        requests: z.number().int().min(1).max(1e9).default(100),
        interval_seconds: z.number().min(0).max(86_400 * 30).default(60).describe('average time between requests'),
        input_usd_per_mtok: z.number().min(0).max(10_000).optional().describe('base input price when the model has no list price here'),
      })
      .strict(),
    async handler(args, ctx) {
      return { result: await adviseCacheStrategy(ctx.call, ctx.services.llm.prices, args) };
    },
  }),
  defineTool({
    name: 'capture_cache_telemetry',
    scope: 'mcp:write',
    advisory: true,
    description:
      'Records one provider call\'s cache figures (input and cached tokens) under the caller, keyed by a hash of the prompt\'s prefix: give the prompt (hashed here, not stored) or your own prefix_hash and continuation_hash. Feeds list_prefix_collisions. Only the caller sees their telemetry.',
    input: z
      .object({
        provider,
        model,
        input_tokens: z.number().int().min(0).max(100_000_000),
        cached_tokens: z.number().int().min(0).max(100_000_000).default(0),
        cache_write_tokens: z.number().int().min(0).max(100_000_000).default(0),
        prompt: prompt.optional(),
        prefix_hash: hash.optional(),
        continuation_hash: hash.optional(),
        prefix_tokens: z.number().int().min(1).max(10_000_000).optional().describe('tokens of the prompt the prefix hash covers (default: the model minimum)'),
        occurred_at: z.string().datetime({ offset: true }).optional(),
      })
      .strict()
      .refine((a) => (a.prompt === undefined) !== (a.prefix_hash === undefined), { message: 'Give exactly one of prompt or prefix_hash', path: ['prompt'] })
      .refine((a) => a.prompt === undefined || a.continuation_hash === undefined, { message: 'continuation_hash goes with prefix_hash, not prompt', path: ['continuation_hash'] }),
    async handler(args, ctx) {
      return { result: await captureTelemetry(ctx.call, ctx.principal.userId, args) };
    },
  }),
  defineTool({
    name: 'list_prefix_collisions',
    scope: 'mcp:read',
    readOnly: true,
    advisory: true,
    description:
      "From the caller's cache telemetry: prompt prefixes (by hash) seen with different continuations or with a low hit rate, with hit rates and advice. Only the caller's own telemetry is read.",
    input: z
      .object({
        days: z.number().int().min(1).max(365).default(7),
        provider,
        model: model.optional(),
        min_requests: z.number().int().min(1).max(1_000_000).default(2),
        max_hit_rate: z.number().min(0).max(1).default(0.5).describe('flag prefixes whose request hit rate is at or below this'),
        limit: z.number().int().min(1).max(200).default(50),
      })
      .strict(),
    async handler(args, ctx) {
      return { result: await listPrefixCollisions(ctx.call, ctx.principal.userId, args) };
    },
  }),
];

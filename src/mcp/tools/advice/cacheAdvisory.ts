import { z } from 'zod';
import { auditCacheability, PROMPT_ROLES } from '../../../domain/cacheAdvisory/audit.js';
import { assessCompatibility } from '../../../domain/cacheAdvisory/compatibility.js';
import { diagnoseCacheMiss } from '../../../domain/cacheAdvisory/diagnose.js';
import { CACHE_PROVIDERS } from '../../../domain/cacheAdvisory/rules.js';
import { adviseCacheStrategy, CHANGE_RATES } from '../../../domain/cacheAdvisory/strategy.js';
import { captureTelemetry, listPrefixCollisions } from '../../../domain/cacheAdvisory/telemetry.js';
import { defineTool } from '../../tool.js';
import { blob, int, rows } from '../outputs.js';

/** Longest prompt the cache tools take (characters); a few hundred thousand tokens. */
export const MAX_PROMPT_CHARS = 2_000_000;

const provider = z.enum(CACHE_PROVIDERS).optional().describe('anthropic, openai or google (default: from the model)');
const model = z.string().trim().min(1).max(100);
const prompt = z.string().min(1).max(MAX_PROMPT_CHARS);
const hash = z.string().regex(/^[A-Za-z0-9_:.-]{8,128}$/, '8-128 characters of letters, digits, _ : . -');
/** Per provider: whether a prefix of that many tokens reaches its minimum cacheable length. */
const verdicts = z.array(z.looseObject({ provider: z.enum(CACHE_PROVIDERS), min_cacheable_tokens: int, above_minimum: z.boolean(), cacheable_tokens: int }));
const RULES_NOTE = "Rules are the providers' published prompt-caching rules, kept as dated data (rules_as_of).";

export const cacheAdvisoryTools = [
  defineTool({
    name: 'diagnose_cache_miss',
    readOnly: true,
    advisory: true,
    description: `Why a prompt missed the cache: the first token where prompt_a and prompt_b differ, its character offset, line and column, the tokens around it, and whether the shared prefix reaches the provider's minimum cacheable length. ${RULES_NOTE}`,
    output: z.looseObject({
      identical: z.boolean(),
      first_diff_token: int.nullable(),
      first_diff_char_offset: int.nullable(),
      first_diff_line: int.nullable(),
      first_diff_column: int.nullable(),
      shared_prefix_tokens: int,
      tokens_a: int,
      tokens_b: int,
      tokens_before: rows,
      tokens_after_a: rows,
      tokens_after_b: rows,
      providers: verdicts,
      explanation: z.string(),
      tokenizer: z.string(),
      rules_as_of: z.string(),
    }),
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
    output: z.looseObject({
      total_tokens: int,
      findings: z.array(z.looseObject({ kind: z.string(), text: z.string(), char_offset: int, token_index: int, reason: z.string() })),
      findings_total: int,
      findings_truncated: z.boolean(),
      first_volatile_token: int.nullable(),
      stable_prefix_tokens: int,
      providers: verdicts,
      recommendations: z.array(z.string()),
      tokenizer: z.string(),
      rules_as_of: z.string(),
    }),
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
    output: z.looseObject({
      provider: z.enum(CACHE_PROVIDERS),
      model: z.string().nullable(),
      compatible: z.boolean(),
      prompt_tokens: int,
      token_count: z.enum(['given', 'exact', 'approximate']),
      min_cacheable_tokens: int,
      cacheable_tokens: int,
      checks: z.array(z.looseObject({ check: z.string(), ok: z.boolean(), detail: z.string() })),
      rules: blob,
    }),
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
    output: z.looseObject({
      provider: z.enum(CACHE_PROVIDERS),
      model: z.string(),
      segments: rows,
      recommended_order: z.array(z.string()),
      reorder_needed: z.boolean(),
      breakpoints: z.array(z.looseObject({ after_segment: z.string(), prefix_tokens: int, reason: z.string() })),
      min_cacheable_tokens: int,
      total_tokens: int,
      cached_prefix_tokens: int,
      ttl_seconds: int,
      expected: z.looseObject({ cost_without_cache_usd: z.number(), cost_with_cache_usd: z.number(), savings_usd: z.number(), savings_percent: z.number(), hit_rate: z.number() }),
      warnings: z.array(z.string()),
      recommendations: z.array(z.string()),
      rules_as_of: z.string(),
    }),
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
    output: z.looseObject({
      telemetry_id: z.string(),
      provider: z.enum(CACHE_PROVIDERS),
      model: z.string(),
      input_tokens: int,
      cached_tokens: int,
      cache_write_tokens: int,
      hit: z.boolean(),
      prefix_hash: z.string(),
      prefix_tokens: int.nullable(),
      continuation_hash: z.string().nullable(),
      occurred_at: z.string(),
      prefix_so_far: z.looseObject({ requests: int, token_hit_rate: z.number() }),
    }),
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
    output: z.looseObject({
      days: int,
      prefixes_seen: int,
      collisions: z.array(z.looseObject({ prefix_hash: z.string(), requests: int, request_hit_rate: z.number(), token_hit_rate: z.number(), issues: z.array(z.string()), advice: z.string() })),
      truncated: z.boolean(),
      thresholds: z.looseObject({ min_requests: int, max_hit_rate: z.number() }),
      rules_as_of: z.string(),
    }),
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

import { freemem, totalmem } from 'node:os';
import { z } from 'zod';
import { FIDELITIES } from '../../../../workers/shared/fidelity.js';
import { contextWindowFor, recommendForTokens } from '../../../../workers/shared/recommend.js';
import { invalidInput } from '../../../domain/errors.js';
import { dataDisk } from '../../../domain/health/readiness.js';
import { defineTool } from '../../tool.js';
import { contextLevel, MONTHLY_TOKEN_BUDGET } from './budget.js';
import { tokensOf } from '../compression/tokens.js';
import { blob, int } from '../outputs.js';
import { tokensUsed } from '../../../domain/metering/tokenBudget.js';
import { staleDocumentCount } from '../../../domain/compression/documents.js';

function windowOf(args: { context_window?: number; model?: string }): number {
  const window = args.context_window ?? contextWindowFor(args.model);
  if (!window) throw invalidInput('Give context_window, or a model whose window is known', [{ loc: ['context_window'], msg: 'Required for this model', type: 'missing' }]);
  return window;
}

export const advisoryTools = [
  defineTool({
    name: 'check_context_budget',
    readOnly: true,
    advisory: true,
    description: 'Context usage percentage and what to do at the 40%, 60% and 75% thresholds.',
    output: z.looseObject({
      used_tokens: z.number().int(),
      context_window: z.number().int(),
      usage_percent: z.number(),
      remaining_tokens: z.number().int(),
      level: z.string(),
      thresholds_percent: z.array(z.number()),
      recommendations: z.array(z.string()),
    }),
    input: z
      .object({ used_tokens: z.number().int().min(0), context_window: z.number().int().positive().optional(), model: z.string().max(100).optional() })
      .strict(),
    handler(args) {
      const window = windowOf(args);
      const ratio = args.used_tokens / window;
      const { level, advice } = contextLevel(ratio);
      return {
        result: {
          used_tokens: args.used_tokens,
          context_window: window,
          usage_percent: Math.round(ratio * 1000) / 10,
          remaining_tokens: Math.max(0, window - args.used_tokens),
          level,
          thresholds_percent: [40, 60, 75],
          recommendations: advice,
        },
      };
    },
  }),
  defineTool({
    name: 'gc_pre_flight',
    readOnly: true,
    advisory: true,
    description: 'Call first: verdict send_as_is, send_compressed, warn_context_limit or clear_first, plus a working mode.',
    output: z.looseObject({
      verdict: z.enum(['send_as_is', 'send_compressed', 'warn_context_limit', 'clear_first']),
      mode: z.string(),
      incoming_tokens: z.number().int(),
      used_tokens: z.number().int(),
      context_window: z.number().int(),
      usage_percent_after: z.number(),
      recommended_fidelity: z.enum(FIDELITIES),
      reason: z.string(),
    }),
    input: z
      .object({
        text: z.string().optional(),
        tokens: z.number().int().min(0).optional(),
        used_tokens: z.number().int().min(0).default(0),
        context_window: z.number().int().positive().optional(),
        model: z.string().max(100).optional(),
        intent: z.enum(['scout', 'read', 'write', 'idle']).optional(),
      })
      .strict(),
    async handler(args, ctx) {
      const window = args.context_window ?? contextWindowFor(args.model) ?? 128_000;
      const incoming = args.text === undefined && args.tokens === undefined ? 0 : await tokensOf(ctx, args);
      const usedShare = args.used_tokens / window;
      const afterShare = (args.used_tokens + incoming) / window;
      const rule = recommendForTokens(incoming, window - args.used_tokens);
      let verdict: 'send_as_is' | 'send_compressed' | 'warn_context_limit' | 'clear_first';
      if (usedShare >= 0.75) verdict = 'clear_first';
      else if (afterShare > 0.9 && rule.estimated + args.used_tokens > window * 0.9) verdict = 'warn_context_limit';
      else if (incoming >= 300 || afterShare > 0.4) verdict = 'send_compressed';
      else verdict = 'send_as_is';
      const mode = args.intent ?? (incoming === 0 ? 'idle' : verdict === 'send_compressed' ? 'compress' : verdict === 'send_as_is' ? 'read' : 'scout');
      return {
        result: {
          verdict,
          mode,
          incoming_tokens: incoming,
          used_tokens: args.used_tokens,
          context_window: window,
          usage_percent_after: Math.round(afterShare * 1000) / 10,
          recommended_fidelity: verdict === 'send_as_is' ? 'raw' : rule.fidelity,
          // The reason explains the fidelity recommended: raw for a small input, the size rule's otherwise.
          reason: verdict === 'send_as_is' ? sendAsIsReason(incoming, afterShare) : rule.reason,
        },
      };
    },
  }),
  defineTool({
    name: 'check_budget',
    scope: 'mcp:read',
    readOnly: true,
    advisory: true,
    description: 'Token budget status for the session, today or this month: used, alert level and projected usage.',
    output: z.looseObject({
      scope: z.enum(['session', 'daily', 'monthly']),
      budget_tokens: z.number().int().nullable(),
      used_tokens: z.number().int(),
      remaining_tokens: z.number().int().nullable(),
      usage_percent: z.number().nullable(),
      alert_level: z.enum(['none', 'ok', 'warning', 'critical', 'exceeded']),
      projected_tokens: z.number().int(),
      projected_over_budget: z.boolean(),
    }),
    // strict(): unknown fields such as the legacy `period` are validation errors.
    input: z
      .object({ scope: z.enum(['session', 'daily', 'monthly']).default('monthly'), budget_tokens: z.number().int().positive().optional() })
      .strict(),
    async handler(args, { services, principal, session }) {
      const monthly = MONTHLY_TOKEN_BUDGET[principal.plan];
      const budget = args.budget_tokens ?? (monthly === null ? null : args.scope === 'monthly' ? monthly : args.scope === 'daily' ? Math.round(monthly / 30) : Math.round(monthly / 100));
      const { used, elapsedShare } = await tokensUsed(services.db, principal.userId, args.scope === 'session' ? { scope: 'session', since: new Date(session.createdAt) } : { scope: args.scope });
      const projected = args.scope === 'session' ? used : Math.round(used / elapsedShare);
      const ratio = budget ? used / budget : 0;
      const alert = budget === null ? 'none' : ratio >= 1 ? 'exceeded' : ratio >= 0.9 ? 'critical' : ratio >= 0.75 ? 'warning' : 'ok';
      return {
        result: {
          scope: args.scope,
          budget_tokens: budget,
          used_tokens: used,
          remaining_tokens: budget === null ? null : Math.max(0, budget - used),
          usage_percent: budget ? Math.round(ratio * 1000) / 10 : null,
          alert_level: alert,
          projected_tokens: projected,
          projected_over_budget: budget !== null && projected > budget,
        },
      };
    },
  }),
  defineTool({
    name: 'check_environment',
    readOnly: true,
    advisory: true,
    description: 'Models loaded, memory, cache hit ratio, stale documents, disk space, and recommendations.',
    output: z.looseObject({
      models_loaded: blob,
      memory: z.looseObject({ rss_bytes: int, heap_used_bytes: int, system_free_bytes: int, system_total_bytes: int }),
      cache_hit_ratio: z.number().nullable(),
      stale_documents: int,
      disk: z.looseObject({ free_bytes: z.number(), total_bytes: z.number() }).nullable(),
      database: z.string(),
      recommendations: z.array(z.string()),
    }),
    input: z.object({}).strict(),
    async handler(_args, { services, principal }) {
      const disk = await dataDisk(services);
      const mem = process.memoryUsage();
      const hitRate = services.metrics.cacheHitRate();
      // A database that cannot answer leaves this one recommendation out, not the whole check.
      const stale = await staleDocumentCount(services.db, principal.userId).catch(() => 0);
      const freeDisk = disk ? disk.free_bytes : null;
      const recommendations: string[] = [];
      if (freeDisk !== null && freeDisk < 1024 ** 3) recommendations.push('Less than 1 GiB of disk left for the data folder.');
      if (freemem() / totalmem() < 0.1) recommendations.push('System memory is nearly exhausted; lower POOL_THREADS.');
      if (stale > 0) recommendations.push(`${stale} ingested documents are older than 7 days; refresh or delete them.`);
      if (hitRate !== null && hitRate < 0.1) recommendations.push('Cache hit ratio is low; reuse identical requests or a stable fidelity.');
      const pool = services.pool.stats();
      if (pool.queue_size > pool.threads * 8) recommendations.push('The compute queue is long; add instances or threads.');
      return {
        result: {
          models_loaded: { tokenizers: ['o200k_base', 'cl100k_base'], parsers: 'tree-sitter', pool_threads: pool.threads },
          memory: { rss_bytes: mem.rss, heap_used_bytes: mem.heapUsed, system_free_bytes: freemem(), system_total_bytes: totalmem() },
          cache_hit_ratio: hitRate,
          stale_documents: stale,
          disk,
          database: services.db.kind,
          recommendations: recommendations.length ? recommendations : ['Environment healthy.'],
        },
      };
    },
  }),
];

/** Why a small input is best sent raw (gc_pre_flight's send_as_is verdict). */
function sendAsIsReason(incoming: number, afterShare: number): string {
  const after = Math.round(afterShare * 1000) / 10;
  return incoming === 0
    ? 'Nothing to send: no compression needed (raw)'
    : `${incoming} tokens is under 300 and leaves the context ${after}% full: compressing would save little, send it raw`;
}

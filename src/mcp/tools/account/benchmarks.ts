import { z } from 'zod';
import { BENCHMARKS_PER_HOUR, publicBenchmark, submitBenchmark } from '../../../domain/platform/benchmarks.js';
import { DomainError } from '../../../domain/errors.js';
import { defineTool } from '../../tool.js';

const label = z.string().trim().min(1).max(200);

/**
 * The spec names this tool twice: gc_submit_benchmark (platform, Free) and submit_benchmark (general,
 * Pro). One definition serves both: same input, same store, same public page.
 */
function benchmarkTool(name: 'gc_submit_benchmark' | 'submit_benchmark') {
  return defineTool({
    name,
    scope: 'mcp:write',
    advisory: true,
    output: z.looseObject({
      benchmark_id: z.string(),
      public_url: z.string(),
      published: z.boolean(),
      model: z.string(),
      quantization: z.string(),
      hardware: z.string(),
      tokens_per_second: z.number(),
      notes: z.string().nullable(),
      submitted_at: z.string(),
    }),
    description: `Submits an inference benchmark run (model, quantization, hardware, tokens_per_second, optional notes); it is published immediately at public_url. At most ${BENCHMARKS_PER_HOUR} runs per hour per key.`,
    input: z
      .object({
        model: label.describe('Model name, e.g. llama-3.1-8b-instruct'),
        quantization: label.describe('e.g. Q4_K_M, fp16, int8'),
        hardware: label.describe('e.g. RTX 4090, M3 Max 64GB'),
        tokens_per_second: z.number().positive().max(1_000_000),
        notes: z.string().max(2000).optional(),
      })
      .strict(),
    async handler(args, ctx) {
      const outcome = await submitBenchmark(ctx.services.db, {
        userId: ctx.principal.userId,
        keyId: ctx.principal.keyId,
        model: args.model,
        quantization: args.quantization,
        hardware: args.hardware,
        tokensPerSecond: args.tokens_per_second,
        notes: args.notes ?? null,
      });
      if (outcome.kind === 'rate_limited') {
        throw new DomainError('rate_limited', `At most ${BENCHMARKS_PER_HOUR} benchmark runs per hour per key`, {
          retryAfter: outcome.retryAfterSeconds,
          extra: { limit_per_hour: BENCHMARKS_PER_HOUR },
        });
      }
      const row = outcome.row;
      return {
        result: {
          benchmark_id: row.id,
          public_url: `${ctx.baseUrl}/benchmarks/${row.id}`,
          published: true,
          ...publicBenchmark(row),
        },
      };
    },
  });
}

export const benchmarkTools = [benchmarkTool('gc_submit_benchmark'), benchmarkTool('submit_benchmark')];

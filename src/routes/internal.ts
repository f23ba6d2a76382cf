import { z } from 'zod';
import { aggregateBenchmarks, getBenchmark, internalTokenMatches, publicBenchmark } from '../domain/platform/benchmarks.js';
import { unauthorized } from '../http/errors.js';
import { notFound } from '../domain/errors.js';
import { defineRoute, type RouteSpec } from '../http/route.js';
import { int, isoTime } from './schemas.js';
import { nowIso } from '../lib/time.js';

const UUID = z.string().uuid();
const Aggregate = z.object({
  data: z.array(
    z.object({
      model: z.string(),
      quantization: z.string(),
      hardware: z.string(),
      runs: int,
      avg_tokens_per_second: z.number(),
      median_tokens_per_second: z.number(),
      max_tokens_per_second: z.number(),
      min_tokens_per_second: z.number(),
      last_submitted_at: isoTime,
    }),
  ),
  groups: int,
  runs: int,
  generated_at: isoTime,
});
const Benchmark = z.object({ id: z.string(), model: z.string(), quantization: z.string(), hardware: z.string(), tokens_per_second: z.number(), notes: z.string().nullable(), submitted_at: isoTime });

/** Routes behind X-Internal-Token (the benchmark aggregate), and the public page of a submitted benchmark. */
export const internalRoutes: RouteSpec<any, any>[] = [
  defineRoute({
    method: 'GET',
    path: '/internal/benchmark-aggregate',
    auth: 'public',
    response: Aggregate,
    async handler({ services, headers }) {
      if (!internalTokenMatches(headers['x-internal-token'], services.config.internalToken)) throw unauthorized('Missing or invalid X-Internal-Token');
      const rows = await aggregateBenchmarks(services.db);
      return { body: { data: rows, groups: rows.length, runs: rows.reduce((s, r) => s + r.runs, 0), generated_at: nowIso() } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/benchmarks/:benchmark_id',
    auth: 'public',
    response: Benchmark,
    async handler({ services, params }) {
      const id = params.benchmark_id ?? '';
      if (!UUID.safeParse(id).success) throw notFound('Benchmark not found');
      const row = await getBenchmark(services.db, id);
      if (!row) throw notFound('Benchmark not found');
      return {
        body: { id: row.id, ...publicBenchmark(row) },
      };
    },
  }),
];

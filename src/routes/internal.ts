import { z } from 'zod';
import { aggregateBenchmarks, getBenchmark, internalTokenMatches, publicBenchmark } from '../domain/platform/benchmarks.js';
import { unauthorized } from '../http/errors.js';
import { notFound } from '../domain/errors.js';
import { defineRoute, type RouteSpec } from '../http/route.js';

const UUID = z.string().uuid();

/** Routes behind X-Internal-Token (the benchmark aggregate), and the public page of a submitted benchmark. */
export const internalRoutes: RouteSpec<any, any>[] = [
  defineRoute({
    method: 'GET',
    path: '/internal/benchmark-aggregate',
    auth: 'public',
    async handler({ services, headers }) {
      if (!internalTokenMatches(headers['x-internal-token'], services.config.internalToken)) throw unauthorized('Missing or invalid X-Internal-Token');
      const rows = await aggregateBenchmarks(services.db);
      return { body: { data: rows, groups: rows.length, runs: rows.reduce((s, r) => s + r.runs, 0), generated_at: new Date().toISOString() } };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/benchmarks/:benchmark_id',
    auth: 'public',
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

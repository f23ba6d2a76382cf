import type { RouteSpec } from '../http/route.js';

/** Routes behind X-Internal-Token (the benchmark aggregate); filled by the benchmarks area. */
export const internalRoutes: RouteSpec<any, any>[] = [];

// `BENCH_SMOKE=1` runs a bench at its smallest configuration: every step once, on the least data, so
// test/docs/bench-smoke.test.ts can run every bench in a few seconds and check the checkout is unchanged.
// The numbers it prints then mean nothing; only that each step runs and nothing is written.

export const SMOKE = process.env.BENCH_SMOKE === '1';

/** The full value normally, the smoke value under BENCH_SMOKE=1. */
export function sized<T>(full: T, smoke: T): T {
  return SMOKE ? smoke : full;
}

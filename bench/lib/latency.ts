import * as hdr from 'hdr-histogram-js';

export interface LatencySummary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
}

/** Runs `fn` sequentially after a warm-up and summarises wall latency (ms) with an HDR histogram. */
export async function measure(fn: () => Promise<unknown>, n: number, warmup = Math.ceil(n / 10)): Promise<LatencySummary> {
  for (let i = 0; i < warmup; i++) await fn();
  const histogram = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: 3 });
  for (let i = 0; i < n; i++) {
    const start = process.hrtime.bigint();
    await fn();
    histogram.recordValue(Number((process.hrtime.bigint() - start) / 1000n)); // microseconds
  }
  const ms = (us: number) => Math.round(us) / 1000;
  const summary = {
    n,
    p50: ms(histogram.getValueAtPercentile(50)),
    p90: ms(histogram.getValueAtPercentile(90)),
    p99: ms(histogram.getValueAtPercentile(99)),
    mean: ms(histogram.mean),
  };
  histogram.destroy();
  return summary;
}

import * as hdr from 'hdr-histogram-js';

export interface LatencySummary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  mean: number;
}

/** Wall latencies in microseconds -> summary in ms (HDR histogram, 3 significant digits). */
function summarise(samples: number[]): LatencySummary {
  const histogram = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: 3 });
  for (const us of samples) histogram.recordValue(us);
  const ms = (us: number) => Math.round(us) / 1000;
  const summary = {
    n: samples.length,
    p50: ms(histogram.getValueAtPercentile(50)),
    p90: ms(histogram.getValueAtPercentile(90)),
    p99: ms(histogram.getValueAtPercentile(99)),
    mean: ms(histogram.mean),
  };
  histogram.destroy();
  return summary;
}

async function time(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number((process.hrtime.bigint() - start) / 1000n);
}

/** Runs `fn` sequentially after a warm-up and summarises wall latency (ms). */
export async function measure(fn: () => Promise<unknown>, n: number, warmup = Math.ceil(n / 10)): Promise<LatencySummary> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < n; i++) samples.push(await time(fn));
  return summarise(samples);
}

/**
 * Alternates `a` and `b` call by call (the order flipping every pair), so that load changing during
 * the run hits both alike; `diffP50` is the median of the per-pair differences b − a, in ms.
 */
export async function measurePair(a: () => Promise<unknown>, b: () => Promise<unknown>, n: number, warmup = Math.ceil(n / 10)): Promise<{ a: LatencySummary; b: LatencySummary; diffP50: number }> {
  for (let i = 0; i < warmup; i++) {
    await a();
    await b();
  }
  const as: number[] = [];
  const bs: number[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) {
      as.push(await time(a));
      bs.push(await time(b));
    } else {
      bs.push(await time(b));
      as.push(await time(a));
    }
  }
  const diffs = as.map((x, i) => bs[i]! - x).sort((p, q) => p - q);
  const mid = diffs.length >> 1;
  const median = diffs.length % 2 ? diffs[mid]! : (diffs[mid - 1]! + diffs[mid]!) / 2;
  return { a: summarise(as), b: summarise(bs), diffP50: Math.round(median) / 1000 };
}

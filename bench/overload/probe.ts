// Liveness probe in its own process, so the load generator's own event loop (busy sending large
// bodies) cannot inflate the figures: GET /health/liveness every 10 ms until told to stop (SIGTERM),
// then one JSON line with the latency percentiles in ms.
import * as hdr from 'hdr-histogram-js';

const url = process.env.PROBE_URL!;
const histogram = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: 3 });
let running = true;
process.on('SIGTERM', () => (running = false));
console.log('probing');
while (running) {
  const t0 = process.hrtime.bigint();
  await fetch(`${url}/health/liveness`).then((r) => r.arrayBuffer());
  histogram.recordValue(Math.max(1, Number((process.hrtime.bigint() - t0) / 1000n)));
  await new Promise((r) => setTimeout(r, 10));
}
const ms = (p: number) => Number((histogram.getValueAtPercentile(p) / 1000).toFixed(1));
console.log(JSON.stringify({ probes: histogram.totalCount, p50: ms(50), p99: ms(99), max: Number((histogram.maxValue / 1000).toFixed(1)) }));

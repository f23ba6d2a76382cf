// One thread of the engine baseline (bench/http/run.ts): the compression /v1/compress runs, called
// directly in a loop for `ms`, at the pool threads' nice value; posts how many it finished.
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { compressText } from '../../workers/text/index.js';

const { text, ms, nice } = workerData as { text: string; ms: number; nice: number };
if (nice > 0) {
  try {
    setPriority(0, nice);
  } catch {
    // Not permitted here: the pool's threads could not lower theirs either.
  }
}
const input = { text, fidelity: 'balanced' as const, query: null, model: null };
await compressText(input); // warm-up, as the pool's threads are warm
const end = performance.now() + ms;
let done = 0;
while (performance.now() < end) {
  await compressText(input);
  done++;
}
parentPort!.postMessage(done);

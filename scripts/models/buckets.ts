// Learns vectors for hashed character n-gram buckets so unknown words get a sensible vector:
// fit mean(bucket vectors of a word's n-grams) ~= its GloVe vector over the whole 341k-word
// GloVe list (most of which the trimmed vocabulary drops), by plain SGD.
import { charNgrams, fnv1a } from '../../workers/embed/tokenizer-static.js';
import type { Glove } from './glove.js';

export interface BucketOpts {
  min: number;
  max: number;
  buckets: number;
  epochs: number;
  lr: number;
}

const PLAIN = /^\p{L}[\p{L}\p{N}]{2,}$/u;

export function trainBuckets(g: Glove, o: BucketOpts): { table: Float32Array; heldOutCosine: number } {
  const D = g.dims;
  const table = new Float32Array(o.buckets * D);
  const train: { v: Float32Array; ids: Uint32Array }[] = [];
  const held: { v: Float32Array; ids: Uint32Array }[] = [];
  g.words.forEach((w, rank) => {
    const v = g.vectors.get(w);
    if (!v || !PLAIN.test(w)) return;
    const ids = Uint32Array.from(charNgrams(w, o.min, o.max), (s) => fnv1a(s) % o.buckets);
    // Hold out 1 in 50 rare words to measure how well unknown words are reconstructed.
    (rank > 50_000 && rank % 50 === 0 ? held : train).push({ v, ids });
  });
  const pred = new Float32Array(D);
  let seed = 12345;
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const order = train.map((_, i) => i);
  for (let ep = 0; ep < o.epochs; ep++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    const lr = o.lr * (1 - ep / o.epochs);
    for (const k of order) {
      const { v, ids } = train[k]!;
      pred.fill(0);
      for (const b of ids) for (let d = 0; d < D; d++) pred[d]! += table[b * D + d]!;
      const inv = 1 / ids.length;
      for (let d = 0; d < D; d++) pred[d] = (v[d]! - pred[d]! * inv) * lr; // scaled error
      for (const b of ids) for (let d = 0; d < D; d++) table[b * D + d]! += pred[d]!;
    }
  }
  let cos = 0;
  for (const { v, ids } of held) {
    pred.fill(0);
    for (const b of ids) for (let d = 0; d < D; d++) pred[d]! += table[b * D + d]!;
    let dot = 0, na = 0, nb = 0;
    for (let d = 0; d < D; d++) {
      dot += pred[d]! * v[d]!;
      na += pred[d]! * pred[d]!;
      nb += v[d]! * v[d]!;
    }
    cos += dot / Math.sqrt(na * nb || 1);
  }
  return { table, heldOutCosine: cos / Math.max(1, held.length) };
}

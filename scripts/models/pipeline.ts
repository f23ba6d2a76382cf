// Build pipeline for the shipped static model. Pure functions of the pinned packages and the
// committed common-component removal, so `npm run models:build` reproduces the committed files byte for byte.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { StaticWordTokenizer, type StaticTokenizerConfig } from '../../workers/embed/tokenizer-static.js';
import { trainBuckets } from './buckets.js';
import { collectSentences } from './corpus.js';
import { loadGlove, trimVocab, zipf, type Glove } from './glove.js';

export interface BuildOpts {
  vocabSize: number;
  buckets: number;
  ngramMin: number;
  ngramMax: number;
  ngramMinWordLength: number;
  bucketEpochs: number;
  /** SIF smoothing a in a / (a + p(w)). */
  sifA: number;
  /** Principal components removed from pooled vectors. */
  components: number;
  /** Fraction of each component removed (1 = full SIF removal). */
  removal: number;
  oovWeight: number;
  maxTokens: number;
  corpusSentences: number;
}

export const DEFAULT_OPTS: BuildOpts = {
  vocabSize: 150_000,
  buckets: 20_000,
  ngramMin: 3,
  ngramMax: 5,
  ngramMinWordLength: 4,
  bucketEpochs: 4,
  sifA: 1e-3,
  components: 2,
  removal: 1,
  oovWeight: 0.5,
  maxTokens: 1024,
  corpusSentences: 20_000,
};

export interface StaticModel {
  words: string[];
  tokenizer: StaticWordTokenizer;
  tokCfg: StaticTokenizerConfig;
  dims: number;
  rows: number;
  /** Dequantised float copy of `quantized` (used by the build's own JS pooling). */
  table: Float32Array;
  quantized: Int8Array;
  /** SIF weight per row (float table semantics). */
  weights: Float32Array;
  /** SIF weight x quantisation scale per row: what the graph multiplies int8 rows by. */
  rowWeights: Float32Array;
  /** dims x outDims, row-major */
  projection: Float32Array;
  outDims: number;
  stats: Record<string, number>;
  corpus: string[];
}

/** Weighted sum of token rows (the graph's pooling, before projection), in plain JS. */
export function poolJS(m: Pick<StaticModel, 'tokenizer' | 'table' | 'weights' | 'dims'>, text: string): Float32Array {
  const D = m.dims;
  const out = new Float32Array(D);
  const { ids, weights } = m.tokenizer.encode(text);
  ids.forEach((id, i) => {
    const w = m.weights[id]! * (weights?.[i] ?? 1);
    for (let d = 0; d < D; d++) out[d]! += w * m.table[id * D + d]!;
  });
  return out;
}

/** Top-k principal directions (uncentred, as in SIF) by power iteration with deflation. */
export function principalComponents(X: Float32Array[], D: number, k: number): Float32Array[] {
  const C = new Float64Array(D * D);
  for (const x of X) {
    let n = 0;
    for (let d = 0; d < D; d++) n += x[d]! * x[d]!;
    const s = n > 0 ? 1 / n : 0; // unit-normalise so long texts do not dominate
    for (let i = 0; i < D; i++) for (let j = 0; j < D; j++) C[i * D + j]! += x[i]! * x[j]! * s;
  }
  const pcs: Float32Array[] = [];
  for (let c = 0; c < k; c++) {
    let v = new Float64Array(D).fill(1 / Math.sqrt(D));
    for (let it = 0; it < 200; it++) {
      const nv = new Float64Array(D);
      for (let i = 0; i < D; i++) for (let j = 0; j < D; j++) nv[i]! += C[i * D + j]! * v[j]!;
      const n = Math.hypot(...nv);
      for (let i = 0; i < D; i++) nv[i]! /= n;
      v = nv;
    }
    let lambda = 0;
    for (let i = 0; i < D; i++) for (let j = 0; j < D; j++) lambda += v[i]! * C[i * D + j]! * v[j]!;
    for (let i = 0; i < D; i++) for (let j = 0; j < D; j++) C[i * D + j]! -= lambda * v[i]! * v[j]!;
    pcs.push(Float32Array.from(v));
  }
  return pcs;
}

/** I - sum u u^T as a row-major D x D matrix. */
export function removalMatrix(pcs: Float32Array[], D: number, amount = 1): Float32Array {
  const P = new Float32Array(D * D);
  for (let i = 0; i < D; i++) P[i * D + i] = 1;
  for (const u of pcs) for (let i = 0; i < D; i++) for (let j = 0; j < D; j++) P[i * D + j]! -= amount * u[i]! * u[j]!;
  return P;
}

/** Common-component removal as shipped: committed so rebuilds do not depend on which docs are installed. */
export interface Removal {
  dims: number;
  corpusSentences: number;
  /** dims x dims, row-major */
  projection: Float32Array;
}

const removalPath = (root: string): string => join(root, 'scripts', 'models', 'data', 'common-removal.json');

export function loadRemoval(root: string): Removal | null {
  const path = removalPath(root);
  if (!existsSync(path)) return null;
  const raw = JSON.parse(readFileSync(path, 'utf8')) as { dims: number; corpusSentences: number; projectionF32Base64: string };
  const bytes = Buffer.from(raw.projectionF32Base64, 'base64');
  const projection = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  if (projection.length !== raw.dims * raw.dims) throw new Error(`${path}: expected ${raw.dims}x${raw.dims} floats`);
  return { dims: raw.dims, corpusSentences: raw.corpusSentences, projection };
}

export function saveRemoval(root: string, r: Removal): void {
  const path = removalPath(root);
  mkdirSync(dirname(path), { recursive: true });
  const note = 'I - sum(u u^T) over the top principal components of pooled corpus sentences (float32 LE, row-major). Rebuilt only by `node dist/scripts/models/build.js --recompute-components`.';
  writeFileSync(path, JSON.stringify({ note, dims: r.dims, corpusSentences: r.corpusSentences, projectionF32Base64: Buffer.from(r.projection.buffer, r.projection.byteOffset, r.projection.byteLength).toString('base64') }, null, 1) + '\n');
}

/** `removal`: the committed common-component removal; null recomputes it from the pinned docs corpus. */
export function buildStatic(root: string, o: BuildOpts = DEFAULT_OPTS, glove: Glove = loadGlove(), removal: Removal | null = null): StaticModel {
  const D = glove.dims;
  const { words, ranks } = trimVocab(glove, o.vocabSize);
  const tokCfg: StaticTokenizerConfig = {
    kind: 'static-word',
    vocab: 'vocab.txt',
    ngram: { min: o.ngramMin, max: o.ngramMax, buckets: o.buckets, minWordLength: o.ngramMinWordLength },
    oovWeight: o.oovWeight,
    maxTokens: o.maxTokens,
  };
  const tokenizer = new StaticWordTokenizer(words, tokCfg);
  const rows = words.length + o.buckets;
  const table = new Float32Array(rows * D);
  words.forEach((w, i) => table.set(glove.vectors.get(w)!, i * D));
  const b = trainBuckets(glove, { min: o.ngramMin, max: o.ngramMax, buckets: o.buckets, epochs: o.bucketEpochs, lr: 0.5 });
  table.set(b.table, words.length * D);
  const { q, scale } = quantizeRows(table, rows, D);

  // SIF: a / (a + p(w)), p from the Zipf estimate of the word's GloVe frequency rank.
  // Unknown words are rare by definition: bucket rows get the weight of the rarest kept word.
  const p = zipf(glove.words.length);
  const weights = new Float32Array(rows);
  ranks.forEach((r, i) => (weights[i] = o.sifA / (o.sifA + p(r))));
  weights.fill(o.sifA / (o.sifA + p(ranks[ranks.length - 1]!)), words.length);

  let corpus: string[] = [];
  let projection: Float32Array;
  if (removal) {
    if (removal.dims !== D) throw new Error(`committed removal has ${removal.dims} dims, vectors have ${D}`);
    projection = removal.projection;
  } else {
    corpus = collectSentences(root, o.corpusSentences);
    const m = { tokenizer, table, weights, dims: D };
    const pcs = principalComponents(corpus.map((s) => poolJS(m, s)), D, o.components);
    projection = removalMatrix(pcs, D, o.removal);
  }
  const rowWeights = weights.map((w, i) => w * scale[i]!);
  return {
    quantized: q,
    rowWeights,
    words,
    tokenizer,
    tokCfg,
    dims: D,
    rows,
    table,
    weights,
    projection,
    outDims: D,
    corpus,
    stats: { bucketHeldOutCosine: b.heldOutCosine, corpusSentences: removal ? removal.corpusSentences : corpus.length },
  };
}

/**
 * Symmetric per-row int8 quantisation. Returns the int8 table and per-row scales; the float
 * table is overwritten with the dequantised values so later build steps see what ships.
 */
export function quantizeRows(table: Float32Array, rows: number, D: number): { q: Int8Array; scale: Float32Array } {
  const q = new Int8Array(rows * D);
  const scale = new Float32Array(rows);
  for (let r = 0; r < rows; r++) {
    let m = 0;
    for (let d = 0; d < D; d++) m = Math.max(m, Math.abs(table[r * D + d]!));
    const s = m > 0 ? m / 127 : 1;
    scale[r] = s;
    for (let d = 0; d < D; d++) {
      const v = Math.round(table[r * D + d]! / s);
      q[r * D + d] = v;
      table[r * D + d] = v * s;
    }
  }
  return { q, scale };
}

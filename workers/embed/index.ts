// Embeddings for the worker pool: one ONNX session per worker thread, created lazily once.
import { OnnxEmbedder } from './embedder.js';
import { modelDir } from './paths.js';
import type { Embedder } from './types.js';

export type { Embedder } from './types.js';
export { OnnxEmbedder } from './embedder.js';
export { modelDir, packageRoot } from './paths.js';

let shared: Promise<Embedder> | undefined;

/** The embedder for EMBEDDING_MODEL_DIR (default: the shipped model). */
export function getEmbedder(): Promise<Embedder> {
  if (!shared) {
    shared = OnnxEmbedder.load(modelDir());
    shared.catch(() => (shared = undefined)); // let a later call retry after a failure
  }
  return shared;
}

/** Cosine similarity; equals the dot product for the embedder's L2-normalised vectors. */
export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

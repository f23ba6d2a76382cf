// Embeddings for the worker pool: one ONNX session per worker thread, created lazily once.
import { OnnxEmbedder } from './embedder.js';
import { modelDir } from './paths.js';
import type { Embedder } from './types.js';

export type { Embedder } from './types.js';
export { OnnxEmbedder } from './embedder.js';
export { modelDir, packageRoot } from './paths.js';
export { cosine } from '../shared/vectors.js';

let shared: Promise<Embedder> | undefined;

/** Forgets the loaded embedder, so the next getEmbedder() reads EMBEDDING_MODEL_DIR again (tests that change it). */
export function forgetEmbedder(): void {
  shared = undefined;
}

/** The embedder for EMBEDDING_MODEL_DIR (default: the shipped model). */
export function getEmbedder(): Promise<Embedder> {
  if (!shared) {
    shared = OnnxEmbedder.load(modelDir());
    shared.catch(() => (shared = undefined)); // let a later call retry after a failure
  }
  return shared;
}


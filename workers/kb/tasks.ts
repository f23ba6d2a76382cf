// Knowledge Hub compute run in the Piscina pool: chunking (+ skeleton views), chunk embedding,
// diffs, and the brute-force cosine search the benchmark compares HNSW against.
import { getEmbedder } from '../embed/index.js';
import { chunkText, embeddingText, type Chunk } from './chunk.js';
import { unifiedDiff, type DiffInput } from './diff.js';

export interface KbPrepareInput {
  text: string;
  /** false: skip the skeleton view (text = raw_text). */
  withSkeleton?: boolean;
}

export interface KbPrepareOutput {
  chunks: Omit<Chunk, 'start' | 'end'>[];
  dims: number;
  model: string;
  /** Row-major, chunks.length x dims, L2-normalised. */
  vectors: Float32Array;
}

/** Texts are embedded in slices so one huge document does not hold a worker for long. */
const EMBED_SLICE = 256;

export const kbTasks = {
  /** Chunk one version's content and embed every chunk: the CPU half of an ingest. */
  kbPrepare: async (input: KbPrepareInput): Promise<KbPrepareOutput> => {
    const chunks = await chunkText(input.text, { withSkeleton: input.withSkeleton !== false });
    const embedder = await getEmbedder();
    const vectors = new Float32Array(chunks.length * embedder.dims);
    for (let i = 0; i < chunks.length; i += EMBED_SLICE) {
      const slice = chunks.slice(i, i + EMBED_SLICE);
      const vecs = await embedder.embed(slice.map(embeddingText));
      vecs.forEach((v, j) => vectors.set(v, (i + j) * embedder.dims));
    }
    return {
      chunks: chunks.map(({ start: _s, end: _e, ...c }) => c),
      dims: embedder.dims,
      model: embedder.modelId,
      vectors,
    };
  },
  /** Embeds pre-cut chunk texts (bench and tests). */
  kbEmbedTexts: async (input: { texts: string[] }): Promise<{ dims: number; model: string; vectors: Float32Array }> => {
    const embedder = await getEmbedder();
    const vectors = new Float32Array(input.texts.length * embedder.dims);
    for (let i = 0; i < input.texts.length; i += EMBED_SLICE) {
      const vecs = await embedder.embed(input.texts.slice(i, i + EMBED_SLICE));
      vecs.forEach((v, j) => vectors.set(v, (i + j) * embedder.dims));
    }
    return { dims: embedder.dims, model: embedder.modelId, vectors };
  },
  kbDiff: (input: DiffInput) => unifiedDiff(input),
};

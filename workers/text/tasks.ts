import { getEmbedder } from '../embed/index.js';
import { explainCompression, type ExplainInput } from './explain.js';
import { compressText, recommendFidelity } from './index.js';
import type { CompressTextInput, CompressTextOptions, RecommendInput } from './index.js';
import { taskFailure } from '../shared/taskFailure.js';

// Query-guided mode fuses the sentence-embedding model into relevance (bench/quality: +1.7 points of
// answer retention at abstract, equal elsewhere). QUERY_EMBEDDINGS=off keeps it lexical only.
const QUERY_OPTIONS: CompressTextOptions =
  process.env.QUERY_EMBEDDINGS === 'off' ? {} : { embed: async (texts) => (await getEmbedder()).embed(texts) };

// Merged by the worker entry into the Piscina task registry; inputs/outputs are plain data.
const compress = (input: CompressTextInput) => compressText(input, input.query ? QUERY_OPTIONS : {});

/** One outcome per item, in order: one item that fails (its input) fails alone. */
async function compressEach({ items }: { items: CompressTextInput[] }) {
  const out = [];
  for (const item of items) {
    try {
      out.push({ ok: true as const, value: await compress(item) });
    } catch (err) {
      out.push({ ok: false as const, error: taskFailure(err) });
    }
  }
  return out;
}

export const textTasks = {
  compress,
  /** Several small documents in one hand-off (a batch request's): the pool's per-task cost is paid once. */
  compressEach,
  recommend: (input: RecommendInput) => recommendFidelity(input),
  explainCompression: (input: ExplainInput) => explainCompression(input, input.query ? QUERY_OPTIONS : {}),
};

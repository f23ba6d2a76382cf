import { getEmbedder } from '../embed/index.js';
import { explainCompression, type ExplainInput } from './explain.js';
import { compressText, recommendFidelity } from './index.js';
import type { CompressTextInput, CompressTextOptions, RecommendInput } from './index.js';

// Query-guided mode fuses the sentence-embedding model into relevance (bench/quality: +1.7 points of
// answer retention at abstract, equal elsewhere). QUERY_EMBEDDINGS=off keeps it lexical only.
const QUERY_OPTIONS: CompressTextOptions =
  process.env.QUERY_EMBEDDINGS === 'off' ? {} : { embed: async (texts) => (await getEmbedder()).embed(texts) };

// Merged by the worker entry into the Piscina task registry; inputs/outputs are plain data.
export const textTasks = {
  compress: (input: CompressTextInput) => compressText(input, input.query ? QUERY_OPTIONS : {}),
  recommend: (input: RecommendInput) => recommendFidelity(input),
  explainCompression: (input: ExplainInput) => explainCompression(input, input.query ? QUERY_OPTIONS : {}),
};

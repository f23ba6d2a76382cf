import { compressText, recommendFidelity } from './index.js';
import type { CompressTextInput, RecommendInput } from './index.js';

// Merged by the worker entry into the Piscina task registry; inputs/outputs are plain data.
export const textTasks = {
  compress: (input: CompressTextInput) => compressText(input),
  recommend: (input: RecommendInput) => recommendFidelity(input),
};

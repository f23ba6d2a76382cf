import type { RecommendInput } from '../../../workers/text/index.js';
import type { Call } from '../call.js';

/** Exact token count of one text, counted in the pool (never on the event loop). */
export async function countTokens(call: Call, text: string, model?: string | null): Promise<{ tokens: number; tokenizer: string }> {
  return call.compute('countTokens', { text, model: model ?? null });
}

/** Exact token counts of many texts in one pool task. */
export async function countTokensMany(call: Call, texts: readonly string[], model?: string | null): Promise<number[]> {
  if (texts.length === 0) return [];
  return (await call.compute('countTokensMany', { texts: [...texts], model: model ?? null })).tokens;
}

/** The spec's fidelity recommendation (REST /v1/recommend). */
export async function recommendFidelity(call: Call, input: RecommendInput) {
  return call.compute('recommend', input);
}

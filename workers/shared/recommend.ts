// Fidelity recommendation (spec Limits, priority order) and a table of common context windows.
import { FIDELITY_BUDGET } from './fidelity.js';
import type { Fidelity } from './fidelity.js';

/**
 * Context windows (input tokens) of common models, from the vendors' published model pages.
 * Keys are matched as prefixes of the lower-cased model id (longest wins), then as substrings,
 * so "gpt-4o-2024-08-06" -> gpt-4o and "meta-llama/Meta-Llama-3.1-8B" -> llama-3.1.
 */
export const MODEL_CONTEXT_WINDOWS: Record<string, number> = {
  'gpt-3.5-turbo': 16_385,
  'gpt-4': 8_192,
  'gpt-4-32k': 32_768,
  'gpt-4-turbo': 128_000,
  'gpt-4o': 128_000,
  'gpt-4o-mini': 128_000,
  'gpt-4.1': 1_047_576,
  'gpt-4.1-mini': 1_047_576,
  'gpt-4.1-nano': 1_047_576,
  'gpt-4.5': 128_000,
  'gpt-5': 400_000,
  o1: 200_000,
  'o1-mini': 128_000,
  o3: 200_000,
  'o3-mini': 200_000,
  'o4-mini': 200_000,
  claude: 200_000,
  'claude-2': 100_000,
  'claude-2.1': 200_000,
  'claude-instant': 100_000,
  'claude-3': 200_000,
  'claude-3-5': 200_000,
  'claude-3-7': 200_000,
  'claude-sonnet-4': 200_000,
  'claude-opus-4': 200_000,
  'claude-haiku-4': 200_000,
  'gemini-1.5-pro': 2_097_152,
  'gemini-1.5-flash': 1_048_576,
  'gemini-2.0-flash': 1_048_576,
  'gemini-2.5-pro': 1_048_576,
  'gemini-2.5-flash': 1_048_576,
  'llama-2': 4_096,
  'llama-3': 8_192,
  'llama-3.1': 131_072,
  'llama-3.2': 131_072,
  'llama-3.3': 131_072,
  'llama-4': 1_048_576,
  mistral: 32_768,
  'mistral-large': 131_072,
  'mistral-small': 32_768,
  mixtral: 32_768,
  'command-r': 128_000,
  'deepseek-chat': 65_536,
  'deepseek-coder': 16_384,
  'qwen2.5': 32_768,
  'phi-3': 4_096,
};

const ORDER: Fidelity[] = ['abstract', 'outline', 'balanced', 'detailed'];
/** Step up when the compressed output would exceed this share of the context window. */
export const CONTEXT_SHARE = 0.7;

export function contextWindowFor(model: string | null | undefined): number | null {
  if (!model) return null;
  const name = model.trim().toLowerCase().replace(/^.*\//, '').replace(/[_\s]+/g, '-').replace(/^meta-/, '');
  let best: string | null = null;
  for (const key of Object.keys(MODEL_CONTEXT_WINDOWS)) {
    if (name.startsWith(key) && (!best || key.length > best.length)) best = key;
  }
  if (!best) {
    for (const key of Object.keys(MODEL_CONTEXT_WINDOWS)) {
      if (key.length >= 4 && name.includes(key) && (!best || key.length > best.length)) best = key;
    }
  }
  return best ? MODEL_CONTEXT_WINDOWS[best]! : null;
}

/** Size rule alone: <500 detailed; 500-2,000 balanced; 2,001-10,000 outline; >10,000 abstract. */
export function fidelityForSize(tokens: number): Fidelity {
  if (tokens < 500) return 'detailed';
  if (tokens <= 2_000) return 'balanced';
  if (tokens <= 10_000) return 'outline';
  return 'abstract';
}

export function estimateCompressed(tokens: number, fidelity: Fidelity): number {
  return Math.ceil(tokens * FIDELITY_BUDGET[fidelity]);
}

export interface FidelityRule {
  fidelity: Fidelity;
  estimated: number;
  reason: string;
}

/** The pure rule on a token count and an optional context window. */
export function recommendForTokens(tokens: number, contextWindow: number | null): FidelityRule {
  let fidelity = fidelityForSize(tokens);
  const band =
    fidelity === 'detailed' ? 'under 500 tokens' : fidelity === 'balanced' ? '500-2,000 tokens' : fidelity === 'outline' ? '2,001-10,000 tokens' : 'over 10,000 tokens';
  let reason = `${tokens} tokens (${band}): ${fidelity}`;
  let estimated = estimateCompressed(tokens, fidelity);
  if (contextWindow && contextWindow > 0) {
    const limit = Math.floor(contextWindow * CONTEXT_SHARE);
    const start = fidelity;
    while (estimated > limit && fidelity !== 'abstract') {
      fidelity = ORDER[ORDER.indexOf(fidelity) - 1]!;
      estimated = estimateCompressed(tokens, fidelity);
    }
    if (fidelity !== start) reason += `; stepped up to ${fidelity} so the output (~${estimated} tokens) fits 70% of the ${contextWindow}-token context window (${limit})`;
    else reason += `; ~${estimated} tokens fits 70% of the ${contextWindow}-token context window`;
    if (estimated > limit) reason += ' (still over the limit at abstract)';
  }
  return { fidelity, estimated, reason };
}

/**
 * Whether compressing pays: from about 300 tokens the elision markers no longer eat most of the gain,
 * and a context window more than 40% full (with what is already used) always pays.
 * should_compress and recommend_compression both decide by this one rule.
 */
export function worthCompressing(tokens: number, contextWindow: number | null, usedTokens = 0): { worth: boolean; share: number | null } {
  const share = contextWindow ? (tokens + usedTokens) / contextWindow : null;
  return { worth: tokens >= 300 || (share !== null && share > 0.4), share };
}

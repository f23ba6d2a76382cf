// What use cases reach of the LLM provider layer (src/providers/llm/runtime.ts implements it).
import type { PriceTable } from '../../providers/llm/prices.js';
import type { LlmApi, LlmClient } from '../../providers/llm/types.js';

/** Seals customers' provider keys at rest, bound to their row (src/providers/llm/secretBox.ts). */
export interface KeySealer {
  seal(plain: string, aad: string): string;
  open(sealed: string, aad: string): string;
}

export interface LlmRuntime {
  /** Null when PROVIDER_KEY_SECRET is unset (keys cannot be stored). */
  readonly box: KeySealer | null;
  readonly prices: PriceTable;
  /** OpenAI-compatible base URL of the local provider, null when it is off. */
  readonly localBaseUrl: string | null;
  client(api: LlmApi, baseUrl: string, apiKey: string | null, resolveAddress?: (host: string) => Promise<{ address: string; family: number }>): LlmClient;
}

// The provider layer's front: a client for an API, the price table, the sealed-key box, the local server.
import { AnthropicClient } from './anthropic.js';
import { OpenAiCompatibleClient } from './openai.js';
import type { LlmApi, LlmClient, LlmClientOptions } from './types.js';

export * from './types.js';
export { costMicros, loadPriceTable, priceFor, type PriceEntry, type PriceTable } from './prices.js';
export { SecretBox, parseServerKey } from './secretBox.js';
export { LocalLlmServer, LOCAL_MODEL } from './localServer.js';

export const DEFAULT_BASE_URLS: Record<LlmApi, string> = {
  openai: 'https://api.openai.com/v1',
  anthropic: 'https://api.anthropic.com',
};

export function createLlmClient(api: LlmApi, options: LlmClientOptions): LlmClient {
  return api === 'anthropic' ? new AnthropicClient(options) : new OpenAiCompatibleClient(options);
}

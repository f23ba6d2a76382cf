// The provider layer as the app runs it: the local provider server (when enabled), the box that seals
// customers' keys, the price table, and clients built from those settings.
import type { LlmSettings } from '../../config.js';
import { createLlmClient } from './index.js';
import { LocalLlmServer } from './localServer.js';
import { loadPriceTable, type PriceTable } from './prices.js';
import { SecretBox } from './secretBox.js';
import type { LlmApi, LlmClient } from './types.js';
import type { LlmRuntime as LlmRuntimePort } from '../../domain/ports/llm.js';

export class LlmRuntime implements LlmRuntimePort {
  readonly box: SecretBox | null;
  readonly prices: PriceTable;
  /** The in-process local provider (LLM_LOCAL_SERVER); null when off. */
  readonly local: LocalLlmServer | null;

  constructor(readonly settings: LlmSettings) {
    this.box = settings.keySecret ? new SecretBox(settings.keySecret) : null;
    this.prices = loadPriceTable(settings.pricesFile);
    this.local = settings.localServer ? new LocalLlmServer({ port: settings.localPort }) : null;
  }

  async start(): Promise<void> {
    await this.local?.start();
  }

  async close(): Promise<void> {
    await this.local?.stop();
  }

  /** OpenAI-compatible base URL of the local provider, null when it is off. */
  get localBaseUrl(): string | null {
    return this.local ? this.local.openAiBaseUrl : null;
  }

  client(api: LlmApi, baseUrl: string, apiKey: string | null, resolveAddress?: (host: string) => Promise<{ address: string; family: number }>): LlmClient {
    return createLlmClient(api, {
      baseUrl,
      apiKey,
      timeoutMs: this.settings.timeoutMs,
      maxRetries: this.settings.maxRetries,
      backoffBaseMs: this.settings.backoffBaseMs,
      resolveAddress,
    });
  }
}

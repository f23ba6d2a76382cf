/** The two chat APIs customers use: OpenAI-compatible chat completions and Anthropic Messages. */
export type LlmApi = 'openai' | 'anthropic';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  maxTokens: number;
  temperature?: number;
  /** Stream the answer (server-sent events); the result is the same, deltas go to onDelta. */
  stream?: boolean;
  onDelta?: (text: string) => void;
  signal?: AbortSignal;
}

export interface ChatResult {
  text: string;
  /** The model the provider says answered. */
  model: string;
  /** Token usage as the provider reported it (null when the response carried none). */
  inputTokens: number | null;
  outputTokens: number | null;
  finishReason: string | null;
  /** HTTP attempts made (1 + retries). */
  attempts: number;
}

export type LlmErrorKind = 'unavailable' | 'rate_limited' | 'request' | 'auth' | 'timeout' | 'cancelled';

/** A provider call that failed: after its retries (unavailable, rate_limited, timeout) or at once (request, auth, cancelled). */
export class LlmProviderError extends Error {
  override name = 'LlmProviderError';
  constructor(
    readonly kind: LlmErrorKind,
    readonly status: number | null,
    message: string,
    readonly attempts = 1,
  ) {
    super(message);
  }
}

export interface LlmClientOptions {
  /** OpenAI-compatible: up to and including /v1 (https://api.openai.com/v1); Anthropic: the host (https://api.anthropic.com). */
  baseUrl: string;
  apiKey: string | null;
  /** Per attempt, first byte to last. */
  timeoutMs: number;
  /** Retries after the first attempt, on 429, 5xx and connection failures. */
  maxRetries: number;
  /** First back-off; doubles per retry (with jitter), capped at 20 s; a Retry-After header wins when present. */
  backoffBaseMs: number;
  /**
   * Resolves (and vets) the host before each attempt; the connection is pinned to the answer, so a
   * vetted name cannot rebind to another address in between. Unset: the system resolver.
   */
  resolveAddress?: (host: string) => Promise<{ address: string; family: number }>;
}

export interface LlmClient {
  readonly api: LlmApi;
  chat(request: ChatRequest): Promise<ChatResult>;
}

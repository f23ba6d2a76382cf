// OpenAI-compatible chat completions (OpenAI, vLLM, llama.cpp server, Ollama's /v1, the local server).
import { postWithRetries, readJson, sseEvents } from './http.js';
import { LlmProviderError, type ChatRequest, type ChatResult, type LlmClient, type LlmClientOptions } from './types.js';

interface Usage {
  prompt_tokens?: number;
  completion_tokens?: number;
}

export class OpenAiCompatibleClient implements LlmClient {
  readonly api = 'openai' as const;

  constructor(private readonly options: LlmClientOptions) {}

  async chat(request: ChatRequest): Promise<ChatResult> {
    const headers: Record<string, string> = { accept: request.stream ? 'text/event-stream' : 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    const body = {
      model: request.model,
      messages: request.messages,
      max_tokens: request.maxTokens,
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    };
    const { value, attempts } = await postWithRetries(
      this.options,
      '/chat/completions',
      headers,
      body,
      {
        read: async (res) => {
          if (!request.stream) {
            const j = await readJson(res);
            const choice = j?.choices?.[0];
            if (!choice) throw new LlmProviderError('unavailable', res.statusCode ?? null, 'provider answered without choices');
            return {
              text: String(choice.message?.content ?? ''),
              model: String(j.model ?? request.model),
              usage: (j.usage ?? null) as Usage | null,
              finish: (choice.finish_reason ?? null) as string | null,
            };
          }
          let text = '';
          let model = request.model;
          let usage: Usage | null = null;
          let finish: string | null = null;
          for await (const ev of sseEvents(res)) {
            if (ev.data === '[DONE]') break;
            let j: any;
            try {
              j = JSON.parse(ev.data);
            } catch {
              continue;
            }
            if (j.error) throw new LlmProviderError('unavailable', res.statusCode ?? null, `provider stream error: ${String(j.error.message ?? j.error)}`);
            if (j.model) model = String(j.model);
            if (j.usage) usage = j.usage as Usage;
            const choice = j.choices?.[0];
            const delta = choice?.delta?.content;
            if (typeof delta === 'string' && delta) {
              text += delta;
              request.onDelta?.(delta);
            }
            if (choice?.finish_reason) finish = String(choice.finish_reason);
          }
          return { text, model, usage, finish };
        },
      },
      request.signal,
    );
    return {
      text: value.text,
      model: value.model,
      inputTokens: typeof value.usage?.prompt_tokens === 'number' ? value.usage.prompt_tokens : null,
      outputTokens: typeof value.usage?.completion_tokens === 'number' ? value.usage.completion_tokens : null,
      finishReason: value.finish,
      attempts,
    };
  }
}

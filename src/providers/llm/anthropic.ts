// Anthropic Messages API (POST /v1/messages, anthropic-version 2023-06-01).
import { postWithRetries, readJson, sseEvents } from './http.js';
import { LlmProviderError, type ChatRequest, type ChatResult, type LlmClient, type LlmClientOptions } from './types.js';

export const ANTHROPIC_VERSION = '2023-06-01';

export class AnthropicClient implements LlmClient {
  readonly api = 'anthropic' as const;

  constructor(private readonly options: LlmClientOptions) {}

  async chat(request: ChatRequest): Promise<ChatResult> {
    const headers: Record<string, string> = {
      accept: request.stream ? 'text/event-stream' : 'application/json',
      'anthropic-version': ANTHROPIC_VERSION,
    };
    if (this.options.apiKey) headers['x-api-key'] = this.options.apiKey;
    const system = request.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n');
    const body = {
      model: request.model,
      max_tokens: request.maxTokens,
      ...(system ? { system } : {}),
      messages: request.messages.filter((m) => m.role !== 'system').map((m) => ({ role: m.role, content: m.content })),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.stream ? { stream: true } : {}),
    };
    const { value, attempts } = await postWithRetries(
      this.options,
      '/v1/messages',
      headers,
      body,
      {
        read: async (res) => {
          if (!request.stream) {
            const j = await readJson(res);
            if (!Array.isArray(j?.content)) throw new LlmProviderError('unavailable', res.statusCode ?? null, 'provider answered without content');
            const text = (j.content as { type: string; text?: string }[]).filter((b) => b.type === 'text').map((b) => b.text ?? '').join('');
            return { text, model: String(j.model ?? request.model), input: j.usage?.input_tokens ?? null, output: j.usage?.output_tokens ?? null, finish: j.stop_reason ?? null };
          }
          let text = '';
          let model = request.model;
          let input: number | null = null;
          let output: number | null = null;
          let finish: string | null = null;
          for await (const ev of sseEvents(res)) {
            let j: any;
            try {
              j = JSON.parse(ev.data);
            } catch {
              continue;
            }
            const type = ev.event ?? j.type;
            if (type === 'error') {
              const kind = j.error?.type === 'overloaded_error' ? 'unavailable' : 'request';
              throw new LlmProviderError(kind, res.statusCode ?? null, `provider stream error: ${String(j.error?.message ?? 'unknown')}`);
            }
            if (type === 'message_start') {
              model = String(j.message?.model ?? model);
              if (typeof j.message?.usage?.input_tokens === 'number') input = j.message.usage.input_tokens;
              if (typeof j.message?.usage?.output_tokens === 'number') output = j.message.usage.output_tokens;
            } else if (type === 'content_block_delta' && j.delta?.type === 'text_delta') {
              text += j.delta.text;
              request.onDelta?.(j.delta.text);
            } else if (type === 'message_delta') {
              if (typeof j.usage?.output_tokens === 'number') output = j.usage.output_tokens;
              if (typeof j.usage?.input_tokens === 'number') input = j.usage.input_tokens;
              if (j.delta?.stop_reason) finish = String(j.delta.stop_reason);
            } else if (type === 'message_stop') {
              break;
            }
          }
          return { text, model, input, output, finish };
        },
      },
      request.signal,
    );
    return {
      text: value.text,
      model: value.model,
      inputTokens: typeof value.input === 'number' ? value.input : null,
      outputTokens: typeof value.output === 'number' ? value.output : null,
      finishReason: value.finish,
      attempts,
    };
  }
}

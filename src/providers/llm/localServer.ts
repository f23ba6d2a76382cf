// A local LLM provider: a real HTTP server (node:http, 127.0.0.1 by default) speaking the
// OpenAI-compatible chat-completions API and the Anthropic Messages API, with deterministic answers
// and token counts. The same clients that talk to real providers talk to it over a socket. It is the
// default provider of a fresh set-up and of the tests; it can also run on its own (src/cli/localLlm.ts).
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const LOCAL_MODEL = 'gc-local';

export interface LocalLlmOptions {
  host?: string;
  port?: number;
  /** When set, requests must carry this key (Authorization: Bearer or x-api-key), else 401. */
  requiredKey?: string | null;
  /** Keep the keys requests carried in keysSeen (tests only; off by default, so a running server holds none). */
  recordKeys?: boolean;
}

/** Requests kept in `calls` (the most recent). */
const MAX_CALLS_KEPT = 1000;

interface Msg {
  role: string;
  content: unknown;
}

/** A rough, deterministic token count: 4 characters a token, at least 1 for non-empty text. */
export function localTokens(text: string): number {
  return text ? Math.max(1, Math.ceil(text.length / 4)) : 0;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((b) => (b && typeof b === 'object' && 'text' in b ? String((b as { text: unknown }).text) : '')).join('');
  return '';
}

/**
 * The deterministic answer: which model, how much it read, a digest of the conversation, and the
 * first words of the last user message (so a caller can see its prompt arrived).
 */
export function localAnswer(model: string, messages: Msg[], maxTokens: number): string {
  const all = messages.map((m) => `${m.role}:${contentText(m.content)}`).join('\n');
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const words = contentText(lastUser?.content ?? '').split(/\s+/).filter(Boolean);
  const digest = createHash('sha256').update(all).digest('hex').slice(0, 12);
  const answer = `[${model}] Read ${words.length} words (digest ${digest}). ${words.slice(0, 24).join(' ')}${words.length > 24 ? ' …' : ''}`;
  // Honour max_tokens the way a model would: stop at the budget.
  return answer.slice(0, Math.max(4, maxTokens * 4));
}

/** Model names may carry test directives: `gc-local:delay=2000` waits 2 s before answering. */
function directives(model: string): { delayMs: number } {
  const m = /:delay=(\d+)/.exec(model);
  return { delayMs: m ? Math.min(600_000, Number(m[1])) : 0 };
}

export class LocalLlmServer {
  private server: Server | null = null;
  private boundPort = 0;
  /** The latest requests answered, by "METHOD path status" (tests assert the client really called the provider). */
  readonly calls: string[] = [];
  /** Keys received, with recordKeys (tests check the customer's key travelled, decrypted, to the provider). */
  readonly keysSeen = new Set<string>();
  private failures: { status: number; remaining: number } | null = null;
  private readonly open = new Set<ServerResponse>();

  constructor(private readonly options: LocalLlmOptions = {}) {}

  get url(): string {
    return `http://${this.options.host ?? '127.0.0.1'}:${this.boundPort}`;
  }

  /** OpenAI-compatible base URL (chat completions live under it). */
  get openAiBaseUrl(): string {
    return `${this.url}/v1`;
  }

  /** The next `count` model requests answer `status` (429, 500, 503, ...): retry tests. */
  failNext(status: number, count = 1): void {
    this.failures = { status, remaining: count };
  }

  async start(): Promise<void> {
    if (this.server) return;
    const server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port ?? 0, this.options.host ?? '127.0.0.1', () => resolve());
    });
    this.boundPort = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    for (const res of this.open) res.destroy();
    server.closeAllConnections?.();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private record(call: string): void {
    this.calls.push(call);
    if (this.calls.length > MAX_CALLS_KEPT) this.calls.splice(0, this.calls.length - MAX_CALLS_KEPT);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]!;
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      this.record(`${req.method} ${path} ${status}`);
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    try {
      if (req.method === 'GET' && path === '/health') return reply(200, { ok: true });
      if (req.method === 'GET' && path === '/v1/models') return reply(200, { object: 'list', data: [{ id: LOCAL_MODEL, object: 'model', owned_by: 'local' }] });
      const openai = req.method === 'POST' && path === '/v1/chat/completions';
      const anthropic = req.method === 'POST' && path === '/v1/messages';
      if (!openai && !anthropic) return reply(404, { error: { message: `no route ${req.method} ${path}`, type: 'not_found' } });

      const bearer = /^Bearer\s+(.+)$/i.exec(String(req.headers.authorization ?? ''))?.[1] ?? null;
      const key = anthropic ? (req.headers['x-api-key'] as string | undefined) ?? null : bearer;
      if (key && this.options.recordKeys) this.keysSeen.add(key);
      if (this.options.requiredKey && key !== this.options.requiredKey) {
        return reply(401, anthropic ? { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } : { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } });
      }
      const chunks: Buffer[] = [];
      for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
      let body: any;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return reply(400, { error: { message: 'body is not JSON', type: 'invalid_request_error' } });
      }
      if (typeof body?.model !== 'string' || !Array.isArray(body.messages)) {
        return reply(400, { error: { message: 'model and messages are required', type: 'invalid_request_error' } });
      }
      if (this.failures && this.failures.remaining > 0) {
        this.failures.remaining--;
        const status = this.failures.status;
        return reply(status, { error: { message: `injected failure ${status}`, type: status === 429 ? 'rate_limit_error' : 'server_error' } }, status === 429 ? { 'retry-after': '0' } : {});
      }
      const model = body.model as string;
      const { delayMs } = directives(model);
      if (delayMs) {
        this.open.add(res);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, delayMs);
          res.once('close', () => (clearTimeout(t), resolve()));
        });
        this.open.delete(res);
        if (res.destroyed || res.writableEnded) return;
      }
      const messages: Msg[] = anthropic && body.system ? [{ role: 'system', content: body.system }, ...body.messages] : body.messages;
      const maxTokens = Math.max(1, Number(body.max_tokens) || 256);
      const text = localAnswer(model, messages, maxTokens);
      const inputTokens = messages.reduce((n, m) => n + localTokens(contentText(m.content)) + 4, 0);
      const outputTokens = localTokens(text);
      const id = randomBytes(8).toString('hex');
      if (body.stream) return this.stream(res, req, path, anthropic, { id, model, text, inputTokens, outputTokens, includeUsage: !!body.stream_options?.include_usage });
      if (anthropic) {
        return reply(200, {
          id: `msg_${id}`, type: 'message', role: 'assistant', model,
          content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null,
          usage: { input_tokens: inputTokens, output_tokens: outputTokens },
        });
      }
      return reply(200, {
        id: `chatcmpl-${id}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model,
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
      });
    } catch (err) {
      if (!res.headersSent) reply(500, { error: { message: (err as Error).message, type: 'server_error' } });
      else res.destroy();
    }
  }

  private stream(
    res: ServerResponse,
    req: IncomingMessage,
    path: string,
    anthropic: boolean,
    a: { id: string; model: string; text: string; inputTokens: number; outputTokens: number; includeUsage: boolean },
  ): void {
    this.record(`${req.method} ${path} 200`);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const pieces = a.text.match(/\S+\s*/g) ?? [];
    const send = (event: string | null, data: unknown) => res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
    if (anthropic) {
      send('message_start', { type: 'message_start', message: { id: `msg_${a.id}`, type: 'message', role: 'assistant', model: a.model, content: [], usage: { input_tokens: a.inputTokens, output_tokens: 1 } } });
      send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
      for (const p of pieces) send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: p } });
      send('content_block_stop', { type: 'content_block_stop', index: 0 });
      send('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: a.outputTokens } });
      send('message_stop', { type: 'message_stop' });
    } else {
      const base = { id: `chatcmpl-${a.id}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: a.model };
      send(null, { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
      for (const p of pieces) send(null, { ...base, choices: [{ index: 0, delta: { content: p }, finish_reason: null }] });
      send(null, { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
      if (a.includeUsage) send(null, { ...base, choices: [], usage: { prompt_tokens: a.inputTokens, completion_tokens: a.outputTokens, total_tokens: a.inputTokens + a.outputTokens } });
      send(null, '[DONE]');
    }
    res.end();
  }
}

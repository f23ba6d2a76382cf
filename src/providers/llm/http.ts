// HTTP for the LLM clients: node:http(s) with a pinned address, a per-attempt timeout, retries with
// exponential back-off on 429 / 5xx / connection failures, and a server-sent-events reader.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { pinnedLookup } from '../../domain/platform/ssrf.js';
import { LlmProviderError, type LlmClientOptions } from './types.js';
import { redactSecrets } from '../../lib/redactSecrets.js';

const MAX_BACKOFF_MS = 20_000;
const MAX_ERROR_BODY = 64 * 1024;

export interface Attempt<T> {
  /** Reads the successful response (status 2xx); errors thrown here are not retried. */
  read(res: IncomingMessage, signal: AbortSignal): Promise<T>;
}

/** Never let the customer's key (or any bearer-looking token) reach an error message or a log line. */
export function redact(message: string, apiKey: string | null): string {
  let out = apiKey ? message.split(apiKey).join('[redacted]') : message;
  out = out.replace(/\b(sk-[A-Za-z0-9_-]{6,}|sk-ant-[A-Za-z0-9_-]{6,})/g, '[redacted]');
  // Any other credential shape a provider echoes back (an Authorization header, a JWT, a URL password).
  return redactSecrets(out).slice(0, 500);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new LlmProviderError('cancelled', null, 'cancelled'));
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new LlmProviderError('cancelled', null, 'cancelled'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function backoffMs(attempt: number, base: number, retryAfter: string | undefined): number {
  if (retryAfter) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds) && seconds >= 0) return Math.min(MAX_BACKOFF_MS, seconds * 1000);
    const at = Date.parse(retryAfter);
    if (!Number.isNaN(at)) return Math.min(MAX_BACKOFF_MS, Math.max(0, at - Date.now()));
  }
  const exp = Math.min(MAX_BACKOFF_MS, base * 2 ** attempt);
  return Math.round(exp / 2 + Math.random() * (exp / 2));
}

async function readText(res: IncomingMessage): Promise<string> {
  let size = 0;
  const parts: Buffer[] = [];
  for await (const chunk of res as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= MAX_ERROR_BODY) parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}

export async function readJson(res: IncomingMessage): Promise<any> {
  const text = await readText(res);
  try {
    return JSON.parse(text);
  } catch {
    throw new LlmProviderError('unavailable', res.statusCode ?? null, 'provider answered with a body that is not JSON');
  }
}

/** Server-sent events of a response: `{event, data}` per event (data lines joined). */
export async function* sseEvents(res: IncomingMessage): AsyncGenerator<{ event: string | null; data: string }> {
  res.setEncoding('utf8');
  let buffer = '';
  const parse = (block: string) => {
    let event: string | null = null;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    return data.length ? { event, data: data.join('\n') } : null;
  };
  for await (const chunk of res as AsyncIterable<string>) {
    buffer += chunk;
    let idx: number;
    while ((idx = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const block = buffer.slice(0, idx);
      buffer = buffer.slice(idx + (buffer[idx] === '\r' ? 4 : 2));
      const ev = parse(block);
      if (ev) yield ev;
    }
  }
  const last = parse(buffer);
  if (last) yield last;
}

function errorMessage(body: string): string {
  try {
    const j = JSON.parse(body) as { error?: { message?: string } | string; message?: string };
    if (typeof j.error === 'string') return j.error;
    return j.error?.message ?? j.message ?? body;
  } catch {
    return body;
  }
}

/**
 * POSTs a JSON body with retries. Each attempt has its own timeout (connect to last byte, including
 * the reading of a streamed answer); 429, 5xx and connection failures are retried with back-off;
 * 401/403 are `auth`, other 4xx `request`. A stream that breaks after its first byte is not retried
 * (the provider may already have charged for it).
 */
export async function postWithRetries<T>(
  options: LlmClientOptions,
  path: string,
  headers: Record<string, string>,
  body: unknown,
  attempt: Attempt<T>,
  signal?: AbortSignal,
): Promise<{ value: T; attempts: number }> {
  const url = new URL(options.baseUrl.replace(/\/+$/, '') + path);
  const payload = Buffer.from(JSON.stringify(body));
  let lastError: LlmProviderError | null = null;
  for (let i = 0; i <= options.maxRetries; i++) {
    if (signal?.aborted) throw new LlmProviderError('cancelled', null, 'cancelled', i);
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => controller.abort(), options.timeoutMs);
    let retryAfter: string | undefined;
    try {
      const pinned = options.resolveAddress ? await options.resolveAddress(url.hostname) : null;
      const res = await send(url, headers, payload, controller.signal, pinned);
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) {
        try {
          return { value: await attempt.read(res, controller.signal), attempts: i + 1 };
        } catch (err) {
          if (err instanceof LlmProviderError) throw Object.assign(err, { attempts: i + 1 });
          if (signal?.aborted) throw new LlmProviderError('cancelled', null, 'cancelled', i + 1);
          if (controller.signal.aborted) throw new LlmProviderError('timeout', null, `provider did not finish within ${options.timeoutMs} ms`, i + 1);
          throw new LlmProviderError('unavailable', status, `provider response broke off: ${redact(String((err as Error).message), options.apiKey)}`, i + 1);
        }
      }
      const text = await readText(res).catch(() => '');
      const message = redact(`provider answered ${status}: ${errorMessage(text)}`, options.apiKey);
      if (status === 429 || status >= 500) {
        retryAfter = res.headers['retry-after'] as string | undefined;
        lastError = new LlmProviderError(status === 429 ? 'rate_limited' : 'unavailable', status, message, i + 1);
      } else {
        throw new LlmProviderError(status === 401 || status === 403 ? 'auth' : 'request', status, message, i + 1);
      }
    } catch (err) {
      if (err instanceof LlmProviderError) {
        if (err.kind !== 'unavailable' && err.kind !== 'rate_limited') throw err;
        if (err.status !== null && err.status >= 200 && err.status < 300) throw err; // broke mid-stream
        lastError = err;
      } else if (signal?.aborted) {
        throw new LlmProviderError('cancelled', null, 'cancelled', i + 1);
      } else if (controller.signal.aborted) {
        lastError = new LlmProviderError('timeout', null, `provider did not answer within ${options.timeoutMs} ms`, i + 1);
      } else {
        const e = err as NodeJS.ErrnoException;
        lastError = new LlmProviderError('unavailable', null, redact(`cannot reach provider: ${e.code ?? e.message}`, options.apiKey), i + 1);
      }
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
    if (i < options.maxRetries) await sleep(backoffMs(i, options.backoffBaseMs, retryAfter), signal);
  }
  throw lastError!;
}

function send(
  url: URL,
  headers: Record<string, string>,
  payload: Buffer,
  signal: AbortSignal,
  pinned: { address: string; family: number } | null,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const requestFn = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = requestFn(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(payload.length) },
        signal,
        ...(pinned
          ? {
              lookup: pinnedLookup(pinned),
            }
          : {}),
      },
      resolve,
    );
    req.on('error', reject);
    req.end(payload);
  });
}

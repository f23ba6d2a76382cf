// The provider layer on its own: both clients against the local server over a real socket (plain and
// streamed), retries with back-off, timeouts, errors, the dated price table, the key box.
import { randomBytes } from 'node:crypto';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  costMicros, createLlmClient, DEFAULT_BASE_URLS, loadPriceTable, LlmProviderError, LocalLlmServer, parseServerKey, priceFor, SecretBox,
  type LlmApi,
} from '../../src/providers/llm/index.js';
import { DEFAULT_PRICES } from '../../src/providers/llm/prices.js';

const KEY = `sk-test-${randomBytes(16).toString('hex')}`;
let server: LocalLlmServer;

beforeAll(async () => {
  server = new LocalLlmServer({ requiredKey: KEY });
  await server.start();
});
afterAll(async () => {
  await server?.stop();
});

const client = (api: LlmApi, over: { apiKey?: string | null; timeoutMs?: number; maxRetries?: number } = {}) =>
  createLlmClient(api, {
    baseUrl: api === 'openai' ? server.openAiBaseUrl : server.url,
    apiKey: over.apiKey === undefined ? KEY : over.apiKey,
    timeoutMs: over.timeoutMs ?? 5000,
    maxRetries: over.maxRetries ?? 2,
    backoffBaseMs: 5,
  });

const messages = [
  { role: 'system' as const, content: 'You are terse.' },
  { role: 'user' as const, content: 'Explain connection pooling in PostgreSQL in one sentence.' },
];

describe('LLM clients against the local provider server', () => {
  for (const api of ['openai', 'anthropic'] as const) {
    for (const stream of [false, true]) {
      it(`${api} ${stream ? 'streamed' : 'plain'}: text, model and token usage read from the response`, async () => {
        const deltas: string[] = [];
        const r = await client(api).chat({ model: 'gc-local', messages, maxTokens: 100, stream, onDelta: (d) => deltas.push(d) });
        expect(r.text).toContain('Explain connection pooling');
        expect(r.text).toMatch(/^\[gc-local\] Read 8 words/);
        expect(r.model).toBe('gc-local');
        expect(r.inputTokens).toBeGreaterThan(10);
        expect(r.outputTokens).toBe(Math.ceil(r.text.length / 4));
        expect(r.attempts).toBe(1);
        if (stream) expect(deltas.join('')).toBe(r.text);
        // Deterministic: the same conversation, the same answer.
        expect((await client(api).chat({ model: 'gc-local', messages, maxTokens: 100, stream })).text).toBe(r.text);
      });
    }
  }

  it('retries 429 and 5xx with back-off, then succeeds', async () => {
    server.failNext(429, 1);
    const a = await client('openai').chat({ model: 'gc-local', messages, maxTokens: 50 });
    expect(a.attempts).toBe(2);
    server.failNext(503, 2);
    const b = await client('anthropic').chat({ model: 'gc-local', messages, maxTokens: 50, stream: true });
    expect(b.attempts).toBe(3);
  });

  it('gives up after its retries with the last status; 401 and 400 are not retried', async () => {
    server.failNext(500, 5);
    const err = await client('openai', { maxRetries: 2 }).chat({ model: 'gc-local', messages, maxTokens: 50 }).catch((e) => e);
    expect(err).toBeInstanceOf(LlmProviderError);
    expect(err).toMatchObject({ kind: 'unavailable', status: 500, attempts: 3 });
    server.failNext(200, 0);

    const before = server.calls.length;
    const wrong = `sk-wrong-${randomBytes(12).toString('hex')}`;
    const auth = await client('openai', { apiKey: wrong }).chat({ model: 'gc-local', messages, maxTokens: 50 }).catch((e) => e);
    expect(auth).toMatchObject({ kind: 'auth', status: 401, attempts: 1 });
    expect(server.calls.length - before).toBe(1);
    expect(auth.message).not.toContain(wrong);
    const anth = await client('anthropic', { apiKey: null }).chat({ model: 'gc-local', messages, maxTokens: 50 }).catch((e) => e);
    expect(anth).toMatchObject({ kind: 'auth', status: 401 });

    const bad = await client('openai').chat({ model: 'gc-local', messages: 'nope' as never, maxTokens: 50 }).catch((e) => e);
    expect(bad).toMatchObject({ kind: 'request', status: 400, attempts: 1 });
  });

  it('times out per attempt, and a signal cancels at once', async () => {
    const started = Date.now();
    const t = await client('openai', { timeoutMs: 200, maxRetries: 1 }).chat({ model: 'gc-local:delay=5000', messages, maxTokens: 50 }).catch((e) => e);
    expect(t).toMatchObject({ kind: 'timeout', attempts: 2 });
    expect(Date.now() - started).toBeLessThan(3000);

    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const c = await client('anthropic').chat({ model: 'gc-local:delay=5000', messages, maxTokens: 50, signal: controller.signal }).catch((e) => e);
    expect(c).toMatchObject({ kind: 'cancelled' });
  });

  it('a refused connection is unavailable after the retries', async () => {
    const gone = new LocalLlmServer();
    await gone.start();
    const base = gone.openAiBaseUrl;
    await gone.stop();
    const err = await createLlmClient('openai', { baseUrl: base, apiKey: null, timeoutMs: 1000, maxRetries: 1, backoffBaseMs: 5 })
      .chat({ model: 'gc-local', messages, maxTokens: 10 })
      .catch((e) => e);
    expect(err).toMatchObject({ kind: 'unavailable', status: null, attempts: 2 });
    expect(err.message).toMatch(/ECONNREFUSED/);
  });

  it('default base URLs are the vendors\' public APIs', () => {
    expect(DEFAULT_BASE_URLS).toEqual({ openai: 'https://api.openai.com/v1', anthropic: 'https://api.anthropic.com' });
  });
});

describe('price table', () => {
  it('prices by api, longest model id and effective date; cost in micro-dollars', () => {
    const p = priceFor(DEFAULT_PRICES, 'openai', 'gpt-4o-mini-2024-07-18', new Date('2025-01-01'))!;
    expect(p.model).toBe('gpt-4o-mini');
    expect(costMicros(p, 1_000_000, 1_000_000)).toBe(750_000);
    expect(priceFor(DEFAULT_PRICES, 'openai', 'gpt-4o', new Date('2025-01-01'))!.input_usd_per_mtok).toBe(2.5);
    expect(priceFor(DEFAULT_PRICES, 'openai', 'gpt-4.1', new Date('2025-01-01'))).toBeNull(); // before it existed
    expect(priceFor(DEFAULT_PRICES, 'anthropic', 'claude-sonnet-4-20250514', new Date('2025-06-01'))!.output_usd_per_mtok).toBe(15);
    expect(priceFor(DEFAULT_PRICES, 'openai', 'llama3:8b')).toBeNull();
    expect(costMicros(null, 10, 10)).toBeNull();
    expect(costMicros(p, null, 10)).toBeNull();
    expect(priceFor(DEFAULT_PRICES, 'local', 'gc-local:delay=10')!.model).toBe('gc-local');
  });

  it('LLM_PRICES_FILE adds dated entries: a later price supersedes from its date', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gc-prices-'));
    const file = join(dir, 'prices.json');
    writeFileSync(file, JSON.stringify({ as_of: '2026-11-01', entries: [{ api: 'openai', model: 'gpt-4o', input_usd_per_mtok: 2, output_usd_per_mtok: 8, effective_from: '2026-10-01' }] }));
    const table = loadPriceTable(file);
    expect(table.as_of).toBe('2026-11-01');
    expect(priceFor(table, 'openai', 'gpt-4o', new Date('2026-09-30'))!.input_usd_per_mtok).toBe(2.5);
    expect(priceFor(table, 'openai', 'gpt-4o', new Date('2026-10-01'))!.input_usd_per_mtok).toBe(2);
    writeFileSync(file, JSON.stringify({ entries: [{ api: 'openai', model: 'x', input_usd_per_mtok: -1, output_usd_per_mtok: 1, effective_from: '2026-01-01' }] }));
    expect(() => loadPriceTable(file)).toThrow(/bad entry/);
  });
});

describe('key box (AES-256-GCM)', () => {
  it('seals with a fresh nonce, opens only with the same key and binding', () => {
    const box = new SecretBox(randomBytes(32));
    const a = box.seal(KEY, 'p1:default');
    expect(a).not.toContain(KEY);
    expect(box.seal(KEY, 'p1:default')).not.toBe(a);
    expect(box.open(a, 'p1:default')).toBe(KEY);
    expect(() => box.open(a, 'p2:default')).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(a, 'p1:default')).toThrow();
    const tampered = a.slice(0, -2) + (a.endsWith('A') ? 'BB' : 'AA');
    expect(() => box.open(tampered, 'p1:default')).toThrow();
  });

  it('PROVIDER_KEY_SECRET must be 32 bytes (hex or base64)', () => {
    const k = randomBytes(32);
    expect(parseServerKey(k.toString('hex')).equals(k)).toBe(true);
    expect(parseServerKey(k.toString('base64')).equals(k)).toBe(true);
    expect(() => parseServerKey('short')).toThrow(/32 bytes/);
  });
});

describe('the local provider on its own', () => {
  it('starts standalone (src/cli/localLlm.ts) and answers the OpenAI-compatible client over its socket', async () => {
    const { spawnUntil, stop } = await import('../../bench/lib/spawn.js');
    const { packageRoot } = await import('../../src/lib/root.js');
    const proc = await spawnUntil(join(packageRoot(), 'dist/src/cli/localLlm.js'), { LLM_LOCAL_PORT: '0' }, /"openai_base_url":"([^"]+)"/, 20_000, []);
    try {
      const baseUrl = proc.match[1]!;
      const r = await createLlmClient('openai', { baseUrl, apiKey: null, timeoutMs: 5000, maxRetries: 0, backoffBaseMs: 5 }).chat({ model: 'gc-local', messages, maxTokens: 50, stream: true });
      expect(r.text).toMatch(/^\[gc-local\] Read 8 words/);
      expect(r.inputTokens).toBeGreaterThan(0);
    } finally {
      await stop(proc.child);
    }
  });
});

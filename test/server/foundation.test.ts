import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KIND, sampleDocument, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ maxBodyBytes: 64 * 1024, maxRepositoryBodyBytes: 256 * 1024 });
});
afterAll(async () => {
  await server?.close();
});

describe(`foundation (${DB_KIND})`, () => {
  it('answers liveness, readiness and diagnostics', async () => {
    for (const path of ['/health', '/health/liveness']) {
      const res = await server.request('GET', path, { key: null });
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ status: 'ok' });
    }
    const ready = await server.request('GET', '/health/readiness', { key: null });
    expect(ready.status).toBe(200);
    expect(ready.json.checks).toEqual({ database: 'ok', pool: 'ok' });

    const diag = await server.request('GET', '/health/diagnostics', { key: null });
    expect(diag.status).toBe(200);
    expect(diag.json).toMatchObject({ status: 'ok', latency_p50_ms: null, latency_p95_ms: null, latency_p99_ms: null, mcp_sessions_active: null });
    expect(diag.json.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(typeof diag.json.uptime_seconds).toBe('number');
    expect(diag.json.circuit_breakers.database.state).toBe('closed');

    const infra = await server.request('GET', '/v1/infra/health', { key: null });
    expect(infra.status).toBe(200);
    expect(infra.json.components.database).toBe('ok');
  });

  it('puts a request id on every response and echoes a valid incoming one', async () => {
    const a = await server.request('GET', '/health', { key: null });
    expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const b = await server.request('GET', '/nope', { key: null, headers: { 'x-request-id': 'trace-123' } });
    expect(b.headers.get('x-request-id')).toBe('trace-123');
  });

  it('compresses through the pool and reports token statistics', async () => {
    const text = sampleDocument();
    const res = await server.request('POST', '/v1/compress', { body: { text, fidelity: 'balanced' } });
    expect(res.status).toBe(200);
    const body = res.json;
    expect(body.original_tokens).toBeGreaterThan(500);
    expect(body.compressed_tokens).toBeLessThan(body.original_tokens * 0.5);
    expect(body.compressed_tokens).toBeGreaterThan(0);
    expect(body.tokens_saved).toBe(body.original_tokens - body.compressed_tokens);
    expect(body.fidelity).toBe('balanced');
    expect(body.tokenizer).toBe('o200k_base');
    expect(body.compressed_text.length).toBeLessThan(text.length);
  });

  it('defaults fidelity to balanced and returns raw unchanged', async () => {
    const text = sampleDocument();
    const def = await server.request('POST', '/v1/compress', { body: { text } });
    expect(def.json.fidelity).toBe('balanced');
    const raw = await server.request('POST', '/v1/compress', { body: { text, fidelity: 'raw' } });
    expect(raw.json.compressed_text).toBe(text);
    expect(raw.json.savings_percent).toBe(0);
  });

  it('rejects malformed JSON, wrong types and missing fields with 422 in HTTPValidationError shape', async () => {
    const malformed = await server.request('POST', '/v1/compress', { rawBody: '{"text": ', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(422);
    expect(malformed.json.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });

    const wrongType = await server.request('POST', '/v1/compress', { body: { text: 42 } });
    expect(wrongType.status).toBe(422);
    expect(wrongType.json.detail[0]).toMatchObject({ loc: ['body', 'text'] });
    expect(typeof wrongType.json.detail[0].msg).toBe('string');

    const missing = await server.request('POST', '/v1/compress', { body: { fidelity: 'balanced' } });
    expect(missing.status).toBe(422);
    expect(missing.json.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'text'], type: 'missing' }));

    const empty = await server.request('POST', '/v1/compress', { body: { text: '' } });
    expect(empty.status).toBe(422);

    const fidelityType = await server.request('POST', '/v1/compress', { body: { text: 'x', fidelity: 3 } });
    expect(fidelityType.status).toBe(422);
    expect(fidelityType.json.detail[0].loc).toEqual(['body', 'fidelity']);
  });

  it('rejects an invalid fidelity with 400 naming the value and the valid ones', async () => {
    const res = await server.request('POST', '/v1/compress', { body: { text: 'hello world', fidelity: 'extreme' } });
    expect(res.status).toBe(400);
    expect(res.json.detail).toContain("'extreme'");
    for (const f of ['abstract', 'outline', 'balanced', 'detailed', 'raw']) expect(res.json.detail).toContain(f);
  });

  it('answers 413 for an oversized body, declared or streamed', async () => {
    const big = 'x'.repeat(70 * 1024);
    const declared = await server.request('POST', '/v1/compress', { body: { text: big } });
    expect(declared.status).toBe(413);
    expect(declared.json.detail).toMatch(/exceeds/);
    // Chunked upload with no content-length: the limit is enforced while reading.
    const stream = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(JSON.stringify({ text: big })));
        c.close();
      },
    });
    const res = await fetch(server.url + '/v1/compress', {
      method: 'POST',
      headers: { authorization: `Bearer ${server.ownerKey}`, 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    const after = await server.request('GET', '/health', { key: null });
    expect(after.status).toBe(200);
  });

  it('lets the repository route take bodies past the general limit, up to its own', async () => {
    const file = (i: number) => ({ path: `pkg/m${i}.py`, content: `def f${i}(x):\n    return x + ${i}\n` + '# filler line\n'.repeat(300) });
    const files = Array.from({ length: 25 }, (_, i) => file(i)); // about 110 KB: over 64 KB, under 256 KB
    const ok = await server.request('POST', '/v1/compress-code/structural', { body: { files, token_budget: 500 } });
    expect(ok.status).toBe(200);
    expect(ok.json.files).toBe(25);
    const tooBig = await server.request('POST', '/v1/compress-code/structural', { body: { files: Array.from({ length: 70 }, (_, i) => file(i)) } });
    expect(tooBig.status).toBe(413);
    expect(tooBig.json.detail).toContain(String(256 * 1024));
    expect((await server.request('POST', '/v1/compress', { body: { text: 'x'.repeat(70 * 1024) } })).status).toBe(413);
  });

  it('answers 404 for unknown routes and 405 with Allow for wrong methods', async () => {
    const unknown = await server.request('GET', '/v1/does-not-exist');
    expect(unknown.status).toBe(404);
    expect(unknown.json.detail).toBeTruthy();
    const wrong = await server.request('GET', '/v1/compress');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    expect(wrong.json.detail).toBeTruthy();
  });

  it('requires a valid bearer key', async () => {
    const missing = await server.request('POST', '/v1/compress', { body: { text: 'hi' }, key: null });
    expect(missing.status).toBe(401);
    expect(missing.json.detail).toBeTruthy();
    const malformed = await server.request('POST', '/v1/compress', { body: { text: 'hi' }, key: 'not-a-key' });
    expect(malformed.status).toBe(401);
    const unknown = await server.request('POST', '/v1/compress', { body: { text: 'hi' }, key: 'gc_' + '0'.repeat(32) });
    expect(unknown.status).toBe(401);
  });

  it('rejects a revoked key at once on this instance, and an expired key', async () => {
    const created = await server.request('POST', '/v1/keys', { body: { name: 'temp' } });
    expect(created.status).toBe(201);
    expect(created.json.key).toMatch(/^gc_[0-9a-f]{32}$/);
    const key = created.json.key as string;
    expect((await server.request('GET', '/v1/keys', { key })).status).toBe(200);
    const revoked = await server.request('DELETE', `/v1/keys/${created.json.key_id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.json.status).toBe('revoked');
    const after = await server.request('GET', '/v1/keys', { key });
    expect(after.status).toBe(401);
    expect(after.json.detail).toBeTruthy();
    const again = await server.request('DELETE', `/v1/keys/${created.json.key_id}`);
    expect(again.status).toBe(400);
    const unknown = await server.request('DELETE', '/v1/keys/key_doesnotexist');
    expect(unknown.status).toBe(404);

    const { createApiKey } = await import('../../src/domain/identity/apiKeys.js');
    const [owner] = await server.app.services.db.query<{ id: string }>('select id from users where is_admin limit 1');
    const userId = owner!.id;
    const expired = await createApiKey(server.app.services.db, { userId, plan: 'pro', expiresAt: new Date(Date.now() - 1000) });
    expect((await server.request('GET', '/v1/keys', { key: expired.key })).status).toBe(401);
  });

  it('never stores keys in plain text', async () => {
    const rows = await server.app.services.db.query<Record<string, unknown>>('select * from api_keys');
    for (const row of rows) for (const value of Object.values(row)) expect(String(value)).not.toMatch(/^gc_[0-9a-f]{32}$/);
  });

  it('records one usage event per compression with a first-line preview only', async () => {
    const text = 'First line of the document that is definitely longer than one hundred characters so that the preview must be cut somewhere\nSecond line must never be stored.';
    const res = await server.request('POST', '/v1/compress', { body: { text: text.repeat(3), fidelity: 'outline', model: 'gpt-4o' } });
    expect(res.status).toBe(200);
    await server.app.services.background.drain();
    const [event] = await server.app.services.db.query<any>(
      "select * from usage_events where fidelity = 'outline' order by created_at desc limit 1",
    );
    expect(event.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(event.method).toBe('REST');
    expect(event.status).toBe('success');
    expect(event.model).toBe('gpt-4o');
    expect(event.input_tokens).toBe(res.json.original_tokens);
    expect(event.output_tokens).toBe(res.json.compressed_tokens);
    expect(event.input_preview).toBe(text.split('\n')[0]!.slice(0, 100));
    expect(event.input_preview).not.toContain('Second line');
    expect(event.key_id).toMatch(/^key_/);
    expect(event.environment).toBe('production');
    expect(event.tool_name).toBeNull();
  });

  it('exposes Prometheus metrics including gc_compress_duration_seconds', async () => {
    const res = await server.request('GET', '/metrics', { key: null });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.text).toContain('# TYPE gc_compress_duration_seconds histogram');
    expect(res.text).toMatch(/gc_compress_duration_seconds_count\{endpoint="compress"\} [1-9]/);
    expect(res.text).toMatch(/gc_http_requests_total\{method="POST",route="\/v1\/compress",status="200"\} \d+/);
  });
});

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { internalTokenMatches } from '../../src/domain/platform/benchmarks.js';
import { createUser } from '../../src/domain/identity/users.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, sampleDocument, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let client: Client;
let freeKey: string;
let freeUserId: string;

beforeAll(async () => {
  server = await startTestServer();
  const user = await createUser(server.app.services.db, { plan: 'free' });
  freeUserId = user.id;
  freeKey = (await createApiKey(server.app.services.db, { userId: user.id, plan: 'free' })).key;
  client = await connectMcp(server.url, freeKey, 'summary-client');
});
afterAll(async () => {
  await client?.close();
  await server?.close();
});
afterEach(() => {
  if (server) server.app.services.config.internalToken = null;
});

describe(`gc_session_summary (${DB_KIND})`, () => {
  it('summarises the session with restoration instructions and counts as a compression', async () => {
    await call(client, 'set_compression_profile', { profile: 'detailed', chunk_size: 256 });
    await call(client, 'estimate_tokens', { text: 'hello there' });
    await call(client, 'check_budget', { period: 'month' }); // an error in the history
    const ingested = await call(client, 'ingest_context', { text: sampleDocument(), file_path: 'notes/plan.md' });
    await call(client, 'read_skeleton', { file_id: ingested.data.file_id, query: 'retry' });
    await server.app.services.background.drain();

    const r = await call(client, 'gc_session_summary', { notes: 'Goal: document the retry policy.' });
    expect(r.isError).toBe(false);
    expect(r.data.call_count).toBe(5);
    expect(r.data.tools.estimate_tokens.calls).toBe(1);
    expect(r.data.tools.check_budget.errors).toBe(1);
    expect(r.data.tools.read_skeleton.input_tokens).toBeGreaterThan(0);
    expect(r.data.profile).toMatchObject({ name: 'detailed', overrides: { chunk_size: 256 } });
    expect(r.data.documents).toEqual([expect.objectContaining({ file_id: ingested.data.file_id, file_path: 'notes/plan.md' })]);
    expect(r.data.errors[0]).toMatchObject({ tool: 'check_budget' });
    expect(r.data.summary).toContain('Goal: document the retry policy.');
    expect(r.data.restoration_instructions.join('\n')).toContain('set_compression_profile');
    expect(r.data.restoration_instructions.join('\n')).toContain(ingested.data.file_id);
    expect(r.data.summary_tokens).toBeGreaterThan(0);

    await server.app.services.background.drain();
    const [ev] = await server.app.services.db.query<{ method: string; input_tokens: number; output_tokens: number }>(
      "select method, input_tokens, output_tokens from usage_events where tool_name = 'gc_session_summary' and user_id = $1",
      [freeUserId],
    );
    expect(ev!.method).toBe('MCP');
    expect(ev!.input_tokens).toBeGreaterThanOrEqual(ev!.output_tokens);
    expect(ev!.output_tokens).toBe(r.data.summary_tokens);
  });

  it('rejects unknown fields', async () => {
    expect((await call(client, 'gc_session_summary', { verbose: true })).data.error).toBe('validation_error');
  });
});

describe(`gc_submit_benchmark and the aggregate (${DB_KIND})`, () => {
  const accepted: number[] = [];
  const run = { model: 'llama-3.1-8b-instruct', quantization: 'Q4_K_M', hardware: 'RTX 4090', tokens_per_second: 120.5 };

  it('stores a run, publishes it at a public URL', async () => {
    const r = await call(client, 'gc_submit_benchmark', { ...run, notes: 'llama.cpp b3000, ctx 4096' });
    expect(r.isError).toBe(false);
    expect(r.data).toMatchObject({ published: true, ...run, notes: 'llama.cpp b3000, ctx 4096' });
    expect(r.data.public_url).toBe(`${server.url}/benchmarks/${r.data.benchmark_id}`);
    const page = await fetch(r.data.public_url).then(async (res) => ({ status: res.status, json: await res.json() }));
    expect(page.status).toBe(200);
    expect(page.json).toMatchObject({ id: r.data.benchmark_id, ...run });
    expect((await server.request('GET', '/benchmarks/00000000-0000-4000-8000-000000000000', { key: null })).status).toBe(404);
    expect((await server.request('GET', '/benchmarks/nope', { key: null })).status).toBe(404);
  });

  it('submit_benchmark (the Pro name) is the same tool: Pro publishes to the same store, Free gets plan_required', async () => {
    expect((await call(client, 'submit_benchmark', run)).data.error).toBe('plan_required');
    const owner = await connectMcp(server.url, server.ownerKey);
    try {
      const r = await call(owner, 'submit_benchmark', { ...run, hardware: 'A100 80GB', tokens_per_second: 310 });
      expect(r.data).toMatchObject({ published: true, hardware: 'A100 80GB' });
      const page = await fetch(r.data.public_url).then((res) => res.json());
      expect(page).toMatchObject({ id: r.data.benchmark_id, hardware: 'A100 80GB', tokens_per_second: 310 });
    } finally {
      await owner.close();
    }
  });

  it('validates input', async () => {
    expect((await call(client, 'gc_submit_benchmark', { ...run, tokens_per_second: -1 })).data.error).toBe('validation_error');
    expect((await call(client, 'gc_submit_benchmark', { model: 'x' })).data.error).toBe('validation_error');
    expect((await call(client, 'gc_submit_benchmark', { ...run, gpu: 'x' })).data.error).toBe('validation_error');
  });

  it('allows 20 runs per hour per key, then rate_limited with retry_after_seconds', async () => {
    // One run is already stored for this key by the first test.
    const results = await Promise.all(Array.from({ length: 21 }, (_, i) => call(client, 'gc_submit_benchmark', { ...run, tokens_per_second: 100 + i })));
    const ok = results.filter((r) => !r.isError);
    const limited = results.filter((r) => r.isError);
    expect(ok).toHaveLength(19);
    accepted.push(...ok.map((r) => r.data.tokens_per_second as number));
    expect(limited).toHaveLength(2);
    expect(limited[0]!.data).toMatchObject({ error: 'rate_limited', limit_per_hour: 20 });
    expect(limited[0]!.data.retry_after_seconds).toBeGreaterThan(3000);
    expect(limited[0]!.data.retry_after_seconds).toBeLessThanOrEqual(3600);
    // Another key of the same user has its own window.
    const other = await connectMcp(server.url, server.ownerKey);
    expect((await call(other, 'gc_submit_benchmark', { ...run, hardware: 'M3 Max', tokens_per_second: 60 })).isError).toBe(false);
    await other.close();
  });

  it('serves the aggregate only with the right X-Internal-Token', async () => {
    // INTERNAL_TOKEN unset, then set (config.internalToken is what loadConfig reads it into).
    server.app.services.config.internalToken = null;
    expect((await server.request('GET', '/internal/benchmark-aggregate', { key: null })).status).toBe(401);
    expect((await server.request('GET', '/internal/benchmark-aggregate', { key: null, headers: { 'x-internal-token': '' } })).status).toBe(401);
    server.app.services.config.internalToken = 'sekrit-token-for-tests';
    expect((await server.request('GET', '/internal/benchmark-aggregate', { key: null })).status).toBe(401);
    expect((await server.request('GET', '/internal/benchmark-aggregate', { key: null, headers: { 'x-internal-token': 'wrong' } })).status).toBe(401);
    const res = await server.request('GET', '/internal/benchmark-aggregate', { key: null, headers: { 'x-internal-token': 'sekrit-token-for-tests' } });
    expect(res.status).toBe(200);
    const row = res.json.data.find((r: { hardware: string }) => r.hardware === 'RTX 4090');
    const values = [120.5, ...accepted];
    const sorted = [...values].sort((a, b) => a - b);
    expect(row).toMatchObject({ model: run.model, quantization: 'Q4_K_M', runs: 20, max_tokens_per_second: 120.5, min_tokens_per_second: Math.min(...values) });
    expect(row.avg_tokens_per_second).toBeCloseTo(values.reduce((s, v) => s + v, 0) / values.length, 3);
    expect(row.median_tokens_per_second).toBeCloseTo((sorted[9]! + sorted[10]!) / 2, 3);
    expect(res.json.data.find((r: { hardware: string }) => r.hardware === 'M3 Max')).toMatchObject({ runs: 1 });
  });

  it('compares tokens in constant time (unit)', () => {
    expect(internalTokenMatches('a', 'a')).toBe(true);
    expect(internalTokenMatches('a', 'b')).toBe(false);
    expect(internalTokenMatches('a', undefined)).toBe(false);
    expect(internalTokenMatches(undefined, 'a')).toBe(false);
  });
});

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { createUser } from '../../src/domain/identity/users.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, sampleDocument, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let owner: Client;
let free: Client;

beforeAll(async () => {
  server = await startTestServer();
  owner = await connectMcp(server.url, server.ownerKey);
  const user = await createUser(server.app.services.db, { plan: 'free' });
  free = await connectMcp(server.url, (await createApiKey(server.app.services.db, { userId: user.id, plan: 'free' })).key, 'free-client');
});
afterAll(async () => {
  await owner?.close();
  await free?.close();
  await server?.close();
});

describe(`core MCP tools (${DB_KIND})`, () => {
  it('tool_help lists every tool by category, one tool verbosely, and rejects unknown names', async () => {
    const all = await call(owner, 'tool_help');
    const listed = Object.values(all.data.categories).flat() as { name: string }[];
    expect(all.data.tool_count).toBe(listed.length);
    expect(listed.map((t) => t.name)).toContain('estimate_tokens');
    const one = await call(owner, 'tool_help', { tool_name: 'check_budget' });
    expect(one.data.tool.input_schema.properties.scope.enum).toEqual(['session', 'daily', 'monthly']);
    const verbose = await call(owner, 'tool_help', { verbose: true });
    expect(verbose.data.categories.analytics[0].input_schema).toBeTruthy();
    expect((await call(owner, 'tool_help', { tool_name: 'nope' })).data.error).toBe('not_found');
  });

  it('presets and per-session profiles with explicit overrides', async () => {
    const presets = await call(owner, 'get_compression_presets');
    expect(Object.keys(presets.data.presets).sort()).toEqual(['aggressive', 'balanced', 'chat', 'code-review', 'research']);
    expect((await call(owner, 'get_compression_profile')).data).toMatchObject({ profile: 'balanced', fidelity: 'balanced' });
    const set = await call(owner, 'set_compression_profile', { profile: 'summary', chunk_size: 300 });
    expect(set.data).toMatchObject({ profile: 'summary', fidelity: 'outline', chunk_size: 300 });
    expect((await call(owner, 'get_compression_profile')).data).toMatchObject({ profile: 'summary', chunk_size: 300 });
    // Another session keeps its own profile.
    expect((await call(free, 'get_compression_profile')).data.profile).toBe('balanced');
  });

  it('estimate_tokens gives accurate and fast counts', async () => {
    const text = '{"a": [1, 2, 3], "name": "héllo"}';
    const res = await call(owner, 'estimate_tokens', { text });
    const bytes = Buffer.byteLength(text);
    expect(res.data).toMatchObject({ bytes, fast_estimate: Math.ceil(bytes / 4), json_estimate: Math.ceil(bytes / 2), tokenizer: 'o200k_base' });
    expect(res.data.accurate_tokens).toBeGreaterThan(5);
  });

  it('recommend_fidelity and should_compress follow the size rules', async () => {
    expect((await call(owner, 'recommend_fidelity', { tokens: 300 })).data.recommended_fidelity).toBe('DETAILED');
    expect((await call(owner, 'recommend_fidelity', { tokens: 1500 })).data.recommended_fidelity).toBe('STRUCTURE');
    expect((await call(owner, 'recommend_fidelity', { tokens: 5000 })).data.recommended_fidelity).toBe('OUTLINE');
    expect((await call(owner, 'recommend_fidelity', { tokens: 20000 })).data.recommended_fidelity).toBe('ABSTRACT');
    expect((await call(owner, 'recommend_fidelity', { tokens: 1500, context_window: 200 })).data.recommended_fidelity).toBe('ABSTRACT');
    expect((await call(owner, 'should_compress', { text: 'tiny' })).data.should_compress).toBe(false);
    expect((await call(owner, 'should_compress', { text: sampleDocument() })).data.should_compress).toBe(true);
    expect((await call(owner, 'recommend_fidelity', {})).data.error).toBe('validation_error');
  });

  it('check_context_budget applies the 40/60/75% thresholds', async () => {
    const level = async (used: number) => (await call(owner, 'check_context_budget', { used_tokens: used, context_window: 1000 })).data.level;
    expect(await level(100)).toBe('ok');
    expect(await level(400)).toBe('notice');
    expect(await level(600)).toBe('warning');
    expect(await level(750)).toBe('critical');
    const model = await call(owner, 'check_context_budget', { used_tokens: 64_000, model: 'gpt-4o' });
    expect(model.data).toMatchObject({ context_window: 128_000, usage_percent: 50, level: 'notice' });
  });

  it('gc_pre_flight gives each verdict', async () => {
    const pre = async (args: Record<string, unknown>) => (await call(owner, 'gc_pre_flight', { context_window: 10_000, ...args })).data;
    expect((await pre({ text: 'A short question?' })).verdict).toBe('send_as_is');
    expect((await pre({ text: sampleDocument() })).verdict).toBe('send_compressed');
    expect((await pre({ tokens: 500, used_tokens: 8000 })).verdict).toBe('clear_first');
    expect((await pre({ tokens: 60_000, used_tokens: 7000 })).verdict).toBe('warn_context_limit');
    expect((await pre({})).mode).toBe('idle');
  });

  it('check_budget reports usage per scope and rejects unknown fields', async () => {
    expect((await server.request('POST', '/v1/compress', { body: { text: sampleDocument() } })).status).toBe(200);
    await server.app.services.background.drain();
    const monthly = await call(owner, 'check_budget', { scope: 'monthly', budget_tokens: 1_000_000 });
    expect(monthly.data).toMatchObject({ scope: 'monthly', budget_tokens: 1_000_000 });
    expect(monthly.data.used_tokens).toBeGreaterThan(0);
    expect(['ok', 'warning', 'critical', 'exceeded']).toContain(monthly.data.alert_level);
    expect((await call(owner, 'check_budget', { scope: 'daily' })).data.scope).toBe('daily');
    expect((await call(owner, 'check_budget', { scope: 'session', budget_tokens: 10 })).data.alert_level).toBe('exceeded');
    const legacy = await call(owner, 'check_budget', { period: 'monthly' });
    expect(legacy.isError).toBe(true);
    expect(legacy.data.error).toBe('validation_error');
  });

  it('check_environment reports real figures', async () => {
    const env = (await call(owner, 'check_environment')).data;
    expect(env.memory.rss_bytes).toBeGreaterThan(0);
    expect(env.disk.free_bytes).toBeGreaterThan(0);
    expect(env.models_loaded.pool_threads).toBe(2);
    expect(env.recommendations.length).toBeGreaterThan(0);
  });

  it('compresses for a model and to fit a context window, recorded as MCP compressions', async () => {
    const doc = sampleDocument();
    const optimized = await call(owner, 'optimize_for_model', { text: doc, model: 'gpt-4' });
    expect(optimized.data.tokenizer).toBe('cl100k_base');
    expect(optimized.data.compressed_tokens).toBeLessThan(optimized.data.original_tokens);
    const adapted = await call(owner, 'adapt_to_context_window', { text: doc, context_window: 1400, reserve_tokens: 100 });
    expect(adapted.data.fits).toBe(true);
    expect(adapted.data.compressed_tokens).toBeLessThanOrEqual(1300);
    await server.app.services.background.drain();
    const [row] = await server.app.services.db.query<any>("select * from usage_events where tool_name = 'optimize_for_model'");
    expect(row).toMatchObject({ method: 'MCP', client: 'vitest-client', input_tokens: optimized.data.original_tokens });
  });

  it('runs the issue-detection tools', async () => {
    const original = 'Requests time out after 30 seconds. Do not retry on HTTP 401.';
    const hall = await call(owner, 'detect_hallucination', { original_text: original, compressed_text: 'Requests time out after 90 seconds.' });
    expect(hall.data.issues.some((i: any) => i.type === 'hallucination' && i.severity === 'high')).toBe(true);
    const blind = await call(owner, 'check_blind_spots', { original_text: original, compressed_text: 'Requests time out after 30 seconds.' });
    expect(blind.data.issues.every((i: any) => i.type === 'blind_spot')).toBe(true);
    expect(blind.data.issues.length).toBeGreaterThan(0);
    const verify = await call(owner, 'verify_compression', { original_text: original, compressed_text: original });
    expect(verify.data).toMatchObject({ verdict: 'pass', quality_score: 1 });
  });

  it('gates Pro tools with an error result naming the plan', async () => {
    const res = await call(free, 'optimize_for_model', { text: 'hello', model: 'gpt-4o' });
    expect(res.isError).toBe(true);
    expect(res.data).toMatchObject({ error: 'plan_required', required_plan: 'pro' });
    expect(res.data.detail).toMatch(/Pro plan/);
  });
});

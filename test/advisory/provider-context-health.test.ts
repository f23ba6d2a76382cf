import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTask } from '../../src/domain/compute.js';
import { ok, fails } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { connectAs } from '../helpers/users.js';

let server: TestServer;
let pro: Client;
let free: Client;

beforeAll(async () => {
  server = await startTestServer({ rateLimits: { free: 1e9, pro: 1e9, team: 1e9, enterprise: 1e9 } });
  [pro, free] = await Promise.all([connectAs(server, 'pro'), connectAs(server, 'free')]);
});
afterAll(async () => {
  await Promise.allSettled([pro?.close(), free?.close()]);
  await server?.close();
});

describe(`provider, context and resource advice (${DB_KIND})`, () => {
  it('get_provider_profile: model and provider profiles from the price, window and caching tables', async () => {
    const sonnet = await ok(pro, 'get_provider_profile', { model: 'claude-sonnet-4-20250514' });
    expect(sonnet).toMatchObject({ kind: 'model', provider: 'anthropic', context_window: 200_000 });
    expect(sonnet.pricing).toMatchObject({ priced_as: 'claude-sonnet-4', input_usd_per_mtok: 3, output_usd_per_mtok: 15, cached_input_usd_per_mtok: 0.3 });
    expect(sonnet.pricing.cache_write_usd_per_mtok).toEqual({ '300': 3.75, '3600': 6 });
    expect(sonnet.caching).toMatchObject({ min_tokens: 1024, max_breakpoints: 4, as_of: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
    expect(sonnet.tokenizer.exact).toBe(false);

    const mini = await ok(pro, 'get_provider_profile', { model: 'gpt-4o-mini' });
    expect(mini).toMatchObject({ provider: 'openai', context_window: 128_000, tokenizer: { name: 'o200k_base', exact: true } });
    expect(mini.pricing.cached_input_usd_per_mtok).toBe(0.075);
    const gemini = await ok(pro, 'get_provider_profile', { model: 'gemini-2.5-pro' });
    expect(gemini).toMatchObject({ provider: 'google', context_window: 1_048_576, pricing: null, caching: { min_tokens: 2048 } });

    const openai = await ok(pro, 'get_provider_profile', { provider: 'openai' });
    expect(openai.kind).toBe('provider');
    expect(openai.models.map((m: { model: string }) => m.model)).toEqual(expect.arrayContaining(['gpt-4o', 'gpt-4.1', 'o3-mini']));
    expect(openai.models.every((m: { model: string }) => !m.model.startsWith('claude'))).toBe(true);

    await fails(pro, 'get_provider_profile', {}, 'validation_error');
    await fails(pro, 'get_provider_profile', { provider: 'mistral' }, 'validation_error');
    await fails(pro, 'get_provider_profile', { model: 'totally-unknown-model' }, 'not_found');
    await fails(pro, 'get_provider_profile', { model: 'gpt-4o', provider: 'anthropic' }, 'not_found');
    // An unlisted model of a known family: the family's window, no price.
    expect(await ok(pro, 'get_provider_profile', { model: 'claude-99-imaginary' })).toMatchObject({ provider: 'anthropic', context_window: 200_000, pricing: null });
    await fails(free, 'get_provider_profile', { model: 'gpt-4o' }, 'plan_required');
  });

  it('advise_context: drops old tool output, compresses large messages, keeps system and the last turns', async () => {
    const big = 'The quarterly report covers revenue, churn and hiring across all regions in detail. '.repeat(300);
    const messages = [
      { role: 'system', content: 'You are a careful analyst.' },
      { role: 'user', content: 'Summarise the report.' },
      { role: 'tool', content: big, id: 'tool-1' },
      { role: 'assistant', content: big, id: 'a-1' },
      { role: 'user', content: 'And the hiring numbers?' },
      { role: 'assistant', content: 'Hiring grew by 12 people.' },
    ];
    const r = await ok(pro, 'advise_context', { context_window: 10_000, messages });
    const bigTokens = encode(big).length;
    expect(r.used_tokens).toBe(messages.reduce((n, m) => n + encode(m.content).length, 0));
    expect(r.level).toBe(r.usage_percent >= 75 ? 'critical' : r.usage_percent >= 60 ? 'warning' : 'notice');
    expect(r.actions[0]).toMatchObject({ index: 2, id: 'tool-1', action: 'drop', saves: bigTokens });
    expect(r.actions[1]).toMatchObject({ index: 3, action: 'compress', tokens: bigTokens });
    expect(r.actions.every((a: { index: number }) => a.index !== 0 && a.index < 4)).toBe(true);
    expect(r.projected_percent).toBeLessThan(40);
    expect(r.projected_tokens).toBe(r.used_tokens - r.tokens_saved);

    // Under 40%: nothing to do.
    const calm = await ok(pro, 'advise_context', { model: 'gpt-4o', messages: messages.slice(0, 2) });
    expect(calm).toMatchObject({ level: 'ok', actions: [], context_window: 128_000 });
    // Counts alone give the level and a pointer to the per-message plan.
    const counts = await ok(pro, 'advise_context', { model: 'gpt-4o', used_tokens: 100_000 });
    expect(counts.level).toBe('critical');
    expect(counts.recommendations.join(' ')).toMatch(/messages/);

    await fails(pro, 'advise_context', { messages }, 'validation_error');
    await fails(pro, 'advise_context', { model: 'gpt-4o' }, 'validation_error');
    await fails(pro, 'advise_context', { model: 'gpt-4o', messages: [{ role: 'user' }] }, 'validation_error');
    await fails(pro, 'advise_context', { model: 'gpt-4o', used_tokens: -5 }, 'validation_error');
    await fails(free, 'advise_context', { model: 'gpt-4o', used_tokens: 5 }, 'plan_required');
  });

  it('check_resource_health: database, pool, memory, disk; a backed-up queue shows', async () => {
    const r = await ok(pro, 'check_resource_health', {});
    expect(r.serving).toBe(true);
    expect(r.components.database).toMatchObject({ state: 'ok', level: 'ok', kind: server.app.services.db.kind });
    expect(r.components.database.latency_ms).toBeGreaterThan(0); // a measured round trip (0.1 ms steps), never free
    expect(r.components.pool).toMatchObject({ state: 'ok' });
    expect(r.components.pool.threads).toBeGreaterThan(0);
    expect(r.components.memory.heap_limit_bytes).toBeGreaterThan(r.components.memory.heap_used_bytes);
    expect(['healthy', 'degraded', 'unhealthy']).toContain(r.status);

    // Hold every thread and queue more: the queue depth and its level show it.
    const { threads } = server.app.services.pool.stats();
    const held = Array.from({ length: threads * 3 }, () => runTask(server.app.services, 'ping', { holdMs: 400 }, { deadlineMs: 10_000, owner: `holder-${Math.random()}` }).catch(() => null));
    const busy = await ok(pro, 'check_resource_health', {});
    expect(busy.components.pool.queue_size).toBeGreaterThan(0);
    expect(busy.components.pool.level).not.toBe('ok');
    expect(busy.recommendations.join(' ')).toMatch(/compute (queue|pool)/);
    await Promise.all(held);

    await fails(pro, 'check_resource_health', { verbose: true }, 'validation_error');
    await fails(free, 'check_resource_health', {}, 'plan_required');
  });
});

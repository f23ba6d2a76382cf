import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, fails } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { connectAs } from '../helpers/users.js';

let server: TestServer;
let pro: Client;
let pro2: Client;
let free: Client;

beforeAll(async () => {
  server = await startTestServer({ rateLimits: { free: 1e9, pro: 1e9, team: 1e9, enterprise: 1e9 } });
  [pro, pro2, free] = await Promise.all([connectAs(server, 'pro'), connectAs(server, 'pro'), connectAs(server, 'free')]);
});
afterAll(async () => {
  await Promise.allSettled([pro?.close(), pro2?.close(), free?.close()]);
  await server?.close();
});

// A long stable instruction block (about 1,400 tokens), then per-request content.
const STABLE = Array.from({ length: 120 }, (_, i) => `Rule ${i + 1}: answer in plain English and cite the policy section for invoices.`).join('\n');

/** Index of the first differing token by full encoding (the reference the tool must match). */
function firstDiff(a: string, b: string): number {
  const x = encode(a, { disallowedSpecial: new Set() });
  const y = encode(b, { disallowedSpecial: new Set() });
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  return i;
}

describe(`prompt-cache advisory tools (${DB_KIND})`, () => {
  it('diagnose_cache_miss: first differing token, offsets and context match a full tokenisation', async () => {
    const a = `${STABLE}\nRequest time: 2026-11-26T10:00:00Z. Question: what is the late fee?`;
    const b = `${STABLE}\nRequest time: 2026-11-26T10:07:00Z. Question: what is the late fee?`;
    const r = await ok(pro, 'diagnose_cache_miss', { prompt_a: a, prompt_b: b, model: 'claude-sonnet-4' });
    expect(r.identical).toBe(false);
    expect(r.first_diff_token).toBe(firstDiff(a, b));
    expect(r.first_diff_char_offset).toBe(a.indexOf('10:0') + 4);
    expect(a.slice(0, r.first_diff_token_char_offset)).toBe(b.slice(0, r.first_diff_token_char_offset));
    expect(r.tokens_after_a[0].text).not.toBe(r.tokens_after_b[0].text);
    expect(r.tokens_before.map((t: { text: string }) => t.text).join('')).toBe(a.slice(r.tokens_before[0].char_offset, r.first_diff_token_char_offset));
    expect(r.first_diff_line).toBe(121);
    expect(r.tokens_a).toBe(encode(a).length);
    expect(r.providers).toEqual([expect.objectContaining({ provider: 'anthropic', min_cacheable_tokens: 1024, above_minimum: true })]);
    expect(r.rules_as_of).toMatch(/^\d{4}-\d{2}-\d{2}$/);

    // A difference early: below every provider's minimum.
    const early = await ok(pro, 'diagnose_cache_miss', { prompt_a: `id 1 ${STABLE}`, prompt_b: `id 2 ${STABLE}` });
    expect(early.first_diff_token).toBe(firstDiff(`id 1 ${STABLE}`, `id 2 ${STABLE}`));
    expect(early.providers.map((p: { provider: string }) => p.provider).sort()).toEqual(['anthropic', 'google', 'openai']);
    expect(early.providers.every((p: { above_minimum: boolean }) => !p.above_minimum)).toBe(true);

    const same = await ok(pro, 'diagnose_cache_miss', { prompt_a: a, prompt_b: a, provider: 'openai' });
    expect(same).toMatchObject({ identical: true, first_diff_token: null, shared_prefix_tokens: encode(a).length });
    // OpenAI caches in 128-token steps past 1024.
    expect(same.providers[0].cacheable_tokens).toBe(1024 + Math.floor((encode(a).length - 1024) / 128) * 128);
  });

  it('diagnose_cache_miss agrees with a full tokenisation on varied edits', async () => {
    const cases: [string, string][] = [
      ['héllo wörld, naïve café', 'héllo wörld, naïve cafe'],
      ['abc', 'abcdef'],
      ['price: 12345 units', 'price: 12346 units'],
      ['line one\n\n  indented', 'line one\n\n indented'],
      ['日本語のテキストです', '日本語のテキストだ'],
    ];
    for (const [a, b] of cases) {
      const r = await ok(pro, 'diagnose_cache_miss', { prompt_a: a, prompt_b: b, context_tokens: 3 });
      expect(r.first_diff_token, `${a} / ${b}`).toBe(firstDiff(a, b));
    }
  });

  it('diagnose_cache_miss: errors and plan gate', async () => {
    await fails(pro, 'diagnose_cache_miss', { prompt_a: 'x' }, 'validation_error');
    await fails(pro, 'diagnose_cache_miss', { prompt_a: 'x', prompt_b: 'y', provider: 'mistral' }, 'validation_error');
    await fails(pro, 'diagnose_cache_miss', { prompt_a: 'x', prompt_b: 'y', provider: 'openai', model: 'claude-sonnet-4' }, 'validation_error');
    await fails(free, 'diagnose_cache_miss', { prompt_a: 'x', prompt_b: 'y' }, 'plan_required');
  });

  it('audit_prompt_cacheability: volatile content and where it sits', async () => {
    const prompt = `Generated at 2026-11-26T09:30:12Z (request_id: req_8f3k2j9x1q)\n${STABLE}\nTrace 3f2b8c1e-1234-4abc-9def-0123456789ab`;
    const r = await ok(pro, 'audit_prompt_cacheability', { prompt, model: 'claude-sonnet-4' });
    expect(r.findings.map((f: { kind: string }) => f.kind)).toEqual(['timestamp', 'request_id', 'uuid']);
    expect(r.findings[0].char_offset).toBe(prompt.indexOf('2026'));
    expect(r.findings[0].token_index).toBe(encode(prompt.slice(0, prompt.indexOf('2026'))).length);
    expect(r.findings[2].token_index).toBeGreaterThan(1024);
    expect(r.first_volatile_token).toBe(r.findings[0].token_index);
    expect(r.providers[0]).toMatchObject({ provider: 'anthropic', verdict: 'volatile_too_early' });
    expect(r.recommendations.join(' ')).toMatch(/Move timestamps/);

    // The same content as messages: the volatile line moved to the last user message.
    const msgs = await ok(pro, 'audit_prompt_cacheability', {
      provider: 'openai',
      messages: [
        { role: 'system', content: STABLE },
        { role: 'user', content: 'Context generated at 2026-11-26T09:30:12Z. What is the late fee?' },
      ],
    });
    expect(msgs.findings).toHaveLength(1);
    expect(msgs.findings[0]).toMatchObject({ kind: 'timestamp', message_index: 1, role: 'user', char_offset_in_message: 21 });
    expect(msgs.providers[0]).toMatchObject({ provider: 'openai', verdict: 'partially_cacheable', above_minimum: true });

    const clean = await ok(pro, 'audit_prompt_cacheability', { prompt: `${STABLE}\n${STABLE}`, provider: 'google', model: 'gemini-2.5-pro' });
    expect(clean.findings).toEqual([]);
    expect(clean.stable_prefix_tokens).toBe(clean.total_tokens);
    expect(clean.providers[0]).toMatchObject({ verdict: 'cacheable', min_cacheable_tokens: 2048, above_minimum: true });
    // Gemini 2.5 Pro needs 2048 tokens: one copy (about 1,400) is too short even without volatile content.
    const short = await ok(pro, 'audit_prompt_cacheability', { prompt: STABLE, model: 'gemini-2.5-pro' });
    expect(short.providers[0]).toMatchObject({ verdict: 'too_short', above_minimum: false });

    await fails(pro, 'audit_prompt_cacheability', {}, 'validation_error');
    await fails(pro, 'audit_prompt_cacheability', { prompt: 'a', messages: [{ role: 'user', content: 'b' }] }, 'validation_error');
    await fails(pro, 'audit_prompt_cacheability', { messages: [{ role: 'robot', content: 'b' }] }, 'validation_error');
    await fails(free, 'audit_prompt_cacheability', { prompt: 'a' }, 'plan_required');
  });

  it('assess_cache_compatibility: length, breakpoints, TTL per provider', async () => {
    const good = await ok(pro, 'assess_cache_compatibility', { model: 'claude-sonnet-4', prompt: STABLE, breakpoints: [1100], ttl_seconds: 300 });
    expect(good).toMatchObject({ provider: 'anthropic', compatible: true, min_cacheable_tokens: 1024, cacheable_tokens: 1100 });
    expect(good.rules).toMatchObject({ max_breakpoints: 4, as_of: expect.stringMatching(/^\d{4}-/) });
    expect(good.rules.price).toMatchObject({ cache_read: 0.1, cache_write: { '300': 1.25, '3600': 2 } });

    const haiku = await ok(pro, 'assess_cache_compatibility', { model: 'claude-3-5-haiku', prompt_tokens: 1500, breakpoints: [1500] });
    expect(haiku.compatible).toBe(false);
    expect(haiku.min_cacheable_tokens).toBe(2048);
    expect(haiku.checks.find((c: { check: string }) => c.check === 'minimum_length').ok).toBe(false);

    const tooMany = await ok(pro, 'assess_cache_compatibility', { provider: 'anthropic', prompt_tokens: 9000, breakpoints: [1100, 2000, 3000, 4000, 5000], ttl_seconds: 120 });
    expect(tooMany.compatible).toBe(false);
    expect(tooMany.checks.filter((c: { ok: boolean }) => !c.ok).map((c: { check: string }) => c.check).sort()).toEqual(['breakpoint_count', 'ttl']);
    const none = await ok(pro, 'assess_cache_compatibility', { provider: 'anthropic', prompt_tokens: 9000 });
    expect(none.checks.find((c: { check: string }) => c.check === 'breakpoints').ok).toBe(false);

    const openai = await ok(pro, 'assess_cache_compatibility', { model: 'gpt-4o', prompt_tokens: 1300 });
    expect(openai).toMatchObject({ provider: 'openai', compatible: true, cacheable_tokens: 1280, token_count: 'given' });

    await fails(pro, 'assess_cache_compatibility', { prompt_tokens: 2000 }, 'validation_error');
    await fails(pro, 'assess_cache_compatibility', { provider: 'openai' }, 'validation_error');
    await fails(pro, 'assess_cache_compatibility', { provider: 'openai', prompt_tokens: -1 }, 'validation_error');
    await fails(free, 'assess_cache_compatibility', { provider: 'openai', prompt_tokens: 2000 }, 'plan_required');
  });

  it('advise_cache_strategy: order, breakpoints and savings from the price table', async () => {
    const r = await ok(pro, 'advise_cache_strategy', {
      model: 'claude-sonnet-4',
      segments: [
        { name: 'date', text: 'Today is 2026-11-26.', changes: 'daily' },
        { name: 'tools', tokens: 3000, changes: 'never' },
        { name: 'question', tokens: 200, changes: 'per_request' },
        { name: 'docs', tokens: 5000, changes: 'never' },
      ],
      requests: 1000,
      interval_seconds: 30,
    });
    expect(r.recommended_order).toEqual(['tools', 'docs', 'date', 'question']);
    expect(r.reorder_needed).toBe(true);
    expect(r.warnings[0]).toMatch(/'date'/);
    expect(r.breakpoints.map((b: { after_segment: string }) => b.after_segment)).toEqual(['docs', 'date']);
    const dateTokens = r.segments[0].tokens;
    expect(r.cached_prefix_tokens).toBe(8000 + dateTokens);
    expect(r.ttl_seconds).toBe(300);
    // Sonnet 4 input $3/Mtok: 1 write at 1.25x, 999 reads at 0.1x, 200 uncached tokens per request.
    const total = 8200 + dateTokens;
    const cached = 8000 + dateTokens;
    const p = 3 / 1e6;
    expect(r.expected.cost_without_cache_usd).toBeCloseTo(1000 * total * p, 5);
    expect(r.expected.cost_with_cache_usd).toBeCloseTo(cached * p * 1.25 + 999 * cached * p * 0.1 + 1000 * 200 * p, 5);
    expect(r.expected.savings_percent).toBeGreaterThan(80);

    // Sparse traffic: past the 5-minute TTL but inside the hour, the 1-hour TTL wins.
    const hourly = await ok(pro, 'advise_cache_strategy', { model: 'claude-sonnet-4', segments: [{ name: 'docs', tokens: 5000 }], requests: 10, interval_seconds: 900 });
    expect(hourly.ttl_seconds).toBe(3600);
    // Past every TTL: caching only adds write costs, and the advice says so.
    const cold = await ok(pro, 'advise_cache_strategy', { model: 'claude-sonnet-4', segments: [{ name: 'docs', tokens: 5000 }], requests: 10, interval_seconds: 7200 });
    expect(cold.expected.cache_misses).toBe(10);
    expect(cold.recommendations.join(' ')).toMatch(/cold/);
    // OpenAI: automatic, no breakpoints, 50% on cached input.
    const oa = await ok(pro, 'advise_cache_strategy', { model: 'gpt-4o', segments: [{ name: 'docs', tokens: 2000 }, { name: 'q', tokens: 100, changes: 'per_request' }], requests: 10, interval_seconds: 10 });
    expect(oa.breakpoints).toEqual([]);
    expect(oa.cached_prefix_tokens).toBe(1920);
    // Gemini has no list price here: the caller gives one, else a clear error.
    await fails(pro, 'advise_cache_strategy', { model: 'gemini-2.5-pro', segments: [{ name: 'docs', tokens: 5000 }] }, 'invalid_request');
    const g = await ok(pro, 'advise_cache_strategy', { model: 'gemini-2.5-pro', segments: [{ name: 'docs', tokens: 5000 }], input_usd_per_mtok: 1.25 });
    expect(g.expected.price_source).toBe('given');

    await fails(pro, 'advise_cache_strategy', { model: 'claude-sonnet-4', segments: [] }, 'validation_error');
    await fails(pro, 'advise_cache_strategy', { model: 'claude-sonnet-4', segments: [{ name: 'x' }] }, 'validation_error');
    await fails(pro, 'advise_cache_strategy', { model: 'llama-3', segments: [{ name: 'x', tokens: 5 }] }, 'validation_error');
    await fails(free, 'advise_cache_strategy', { model: 'gpt-4o', segments: [{ name: 'x', tokens: 5 }] }, 'plan_required');
  });

  it('telemetry: capture, collisions, scoped to the user', async () => {
    const q = (s: string) => `${STABLE}\nQuestion: ${s}`;
    // Same prefix, three different questions; the first is a write, then one hit, one miss.
    const first = await ok(pro, 'capture_cache_telemetry', { model: 'claude-sonnet-4', prompt: q('late fee?'), input_tokens: 1500, cached_tokens: 0, cache_write_tokens: 1024 });
    expect(first).toMatchObject({ provider: 'anthropic', hit: false, prefix_tokens: 1024, prefix_so_far: { requests: 1 } });
    expect(first.prefix_hash).toMatch(/^[0-9a-f]{64}$/);
    const second = await ok(pro, 'capture_cache_telemetry', { model: 'claude-sonnet-4', prompt: q('refunds?'), input_tokens: 1500, cached_tokens: 1024 });
    expect(second.prefix_hash).toBe(first.prefix_hash);
    expect(second.continuation_hash).not.toBe(first.continuation_hash);
    await ok(pro, 'capture_cache_telemetry', { model: 'claude-sonnet-4', prompt: q('due date?'), input_tokens: 1500, cached_tokens: 0 });
    // A prefix that always misses, given by hash.
    for (let i = 0; i < 3; i++) await ok(pro, 'capture_cache_telemetry', { provider: 'openai', model: 'gpt-4o', prefix_hash: 'sysprompt-v1', continuation_hash: `turn-000${i}`, prefix_tokens: 600, input_tokens: 900 });
    // A healthy prefix: hits after the first.
    for (let i = 0; i < 3; i++) await ok(pro, 'capture_cache_telemetry', { model: 'gpt-4o', prefix_hash: 'sysprompt-v2', continuation_hash: `turn-000${i}`, input_tokens: 3000, cached_tokens: i ? 2048 : 0 });

    const c = await ok(pro, 'list_prefix_collisions', {});
    expect(c.prefixes_seen).toBe(3);
    const byHash = Object.fromEntries(c.collisions.map((g: { prefix_hash: string }) => [g.prefix_hash, g]));
    expect(byHash[first.prefix_hash]).toMatchObject({ requests: 3, cache_hits: 1, distinct_continuations: 3, request_hit_rate: 0.5, issues: ['different_continuations', 'low_hit_rate'] });
    expect(byHash['sysprompt-v1']).toMatchObject({ requests: 3, cache_hits: 0, issues: ['different_continuations', 'low_hit_rate'] });
    expect(byHash['sysprompt-v1'].advice).toMatch(/under the 1024-token minimum/);
    expect(byHash['sysprompt-v2']).toMatchObject({ request_hit_rate: 1, issues: ['different_continuations'] });
    const strict = await ok(pro, 'list_prefix_collisions', { provider: 'openai', max_hit_rate: 0.2, min_requests: 3 });
    expect(strict.prefixes_seen).toBe(2);

    // Another user sees none of it, and their own rows stay apart.
    expect((await ok(pro2, 'list_prefix_collisions', {})).prefixes_seen).toBe(0);
    await ok(pro2, 'capture_cache_telemetry', { model: 'gpt-4o', prefix_hash: 'sysprompt-v1', input_tokens: 900 });
    const mine = await ok(pro2, 'list_prefix_collisions', { min_requests: 1 });
    expect(mine.collisions).toHaveLength(1);
    expect(mine.collisions[0].requests).toBe(1);
    expect((await ok(pro, 'list_prefix_collisions', { provider: 'openai', min_requests: 1 })).collisions.find((g: { prefix_hash: string }) => g.prefix_hash === 'sysprompt-v1').requests).toBe(3);

    await fails(pro, 'capture_cache_telemetry', { model: 'gpt-4o', input_tokens: 10 }, 'validation_error');
    await fails(pro, 'capture_cache_telemetry', { model: 'gpt-4o', prefix_hash: 'abcdefgh', input_tokens: 10, cached_tokens: 20 }, 'validation_error');
    await fails(pro, 'capture_cache_telemetry', { model: 'gpt-4o', prefix_hash: 'bad hash!', input_tokens: 10 }, 'validation_error');
    await fails(pro, 'capture_cache_telemetry', { model: 'mystery-model', prefix_hash: 'abcdefgh', input_tokens: 10 }, 'validation_error');
    await fails(pro, 'capture_cache_telemetry', { model: 'gpt-4o', prefix_hash: 'abcdefgh', input_tokens: 10, occurred_at: '2999-01-01T00:00:00Z' }, 'validation_error');
    // An older call is kept with its own time and falls out of a shorter window.
    await ok(pro2, 'capture_cache_telemetry', { model: 'gpt-4o', prefix_hash: 'old-prefix', input_tokens: 900, occurred_at: new Date(Date.now() - 10 * 86_400_000).toISOString() });
    expect((await ok(pro2, 'list_prefix_collisions', { min_requests: 1, days: 7 })).prefixes_seen).toBe(1);
    expect((await ok(pro2, 'list_prefix_collisions', { min_requests: 1, days: 30 })).prefixes_seen).toBe(2);
    await fails(pro, 'list_prefix_collisions', { days: 0 }, 'validation_error');
    await fails(free, 'capture_cache_telemetry', { model: 'gpt-4o', prefix_hash: 'abcdefgh', input_tokens: 10 }, 'plan_required');
    await fails(free, 'list_prefix_collisions', {}, 'plan_required');
  });
});

import { cpus, loadavg } from 'node:os';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connectMcp, ok } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { makeTenant } from '../kb/helpers.js';

let server: TestServer;
let a: Client;
let stranger: Client;

beforeAll(async () => {
  server = await startTestServer({ rateLimits: { free: 1e9, pro: 1e9, team: 1e9, enterprise: 1e9 } });
  const t = await makeTenant(server);
  const o = await makeTenant(server);
  a = await connectMcp(server.url, t.keyA);
  stranger = await connectMcp(server.url, o.keyA);
});
afterAll(async () => {
  await Promise.allSettled([a?.close(), stranger?.close()]);
  await server?.close();
});

const TOPICS = ['the billing export', 'the login page', 'the search index', 'the nightly backup', 'the CSV parser', 'the rate limiter', 'the mobile build', 'the audit log'];

/** A seeded 500-message conversation: about 1 in 10 CRITICAL, 1 in 4 TRIVIAL, the rest RELEVANT. */
function conversation(n: number) {
  let seed = 19;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const out: { role: string; content: string; importance: string }[] = [];
  for (let i = 0; i < n; i++) {
    const topic = TOPICS[Math.floor(rnd() * TOPICS.length)]!;
    const r = rnd();
    if (r < 0.1) out.push({ role: 'user', content: `Decision ${i}: ${topic} must keep its current public interface; do not change the field names.`, importance: 'CRITICAL' });
    else if (r < 0.35) out.push({ role: i % 2 ? 'assistant' : 'user', content: ['ok', 'thanks', 'sounds good', 'got it'][i % 4]!, importance: 'TRIVIAL' });
    else
      out.push({
        role: i % 2 ? 'assistant' : 'user',
        content: `Looking at ${topic} in step ${i}. The current implementation reads the configuration once at start-up and caches it. Changing this would need a reload hook, which we can add later if the tests show the need for it.`,
        importance: 'RELEVANT',
      });
  }
  return out;
}

function p99(xs: number[]): number {
  const s = [...xs].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.ceil(s.length * 0.99) - 1)]!;
}

describe(`adaptive memory (${DB_KIND})`, () => {
  it('classes messages by rules with a reason, or as given', async () => {
    const sys = await ok(a, 'afm_add_message', { conversation_id: 'rules', role: 'system', content: 'You are a careful reviewer.' });
    expect(sys).toMatchObject({ importance: 'CRITICAL', reason: 'system message', seq: 1 });
    const must = await ok(a, 'afm_add_message', { conversation_id: 'rules', role: 'user', content: 'The migration must run before the deploy.' });
    expect(must.importance).toBe('CRITICAL');
    expect(must.reason).toMatch(/must/);
    expect((await ok(a, 'afm_add_message', { conversation_id: 'rules', role: 'assistant', content: 'ok thanks!' })).importance).toBe('TRIVIAL');
    expect((await ok(a, 'afm_add_message', { conversation_id: 'rules', role: 'user', content: 'Here is the stack trace from the worker thread we saw.' })).importance).toBe('RELEVANT');
    const given = await ok(a, 'afm_add_message', { conversation_id: 'rules', role: 'user', content: 'hi', importance: 'CRITICAL', reason: 'the user said so' });
    expect(given).toMatchObject({ importance: 'CRITICAL', reason: 'the user said so', seq: 5 });
  });

  it('500 messages: every CRITICAL stays FULL down to the CRITICAL set size; p99 under 50 ms', async () => {
    const conv = conversation(500);
    for (const m of conv) await ok(a, 'afm_add_message', { conversation_id: 'long', ...m });
    const stats = await ok(a, 'afm_get_stats', { conversation_id: 'long' });
    const criticals = conv.filter((m) => m.importance === 'CRITICAL').length;
    expect(stats.message_count).toBe(500);
    expect(stats.by_importance.CRITICAL).toBe(criticals);
    const floor = stats.critical_full_tokens;
    expect(floor).toBeGreaterThan(0);
    const budgets = [stats.total_tokens * 2, Math.round(stats.total_tokens / 2), Math.round(floor * 1.5), floor];
    for (const budget of budgets) {
      const r = await ok(a, 'afm_build_context', { conversation_id: 'long', budget_tokens: budget });
      expect(r.tokens, `budget ${budget}`).toBeLessThanOrEqual(budget);
      expect(r.critical_full, `budget ${budget}`).toBe(criticals);
      expect(r.items.filter((i: { importance: string; form: string }) => i.importance === 'CRITICAL').every((i: { form: string }) => i.form === 'FULL')).toBe(true);
    }
    // At twice the total everything is FULL; at the CRITICAL floor there is no room for the rest.
    const all = await ok(a, 'afm_build_context', { conversation_id: 'long', budget_tokens: stats.total_tokens * 2 });
    expect(all.forms.FULL).toBe(500);
    const half = await ok(a, 'afm_build_context', { conversation_id: 'long', budget_tokens: Math.round(stats.total_tokens / 2) });
    expect(half.forms.COMPRESSED + half.forms.PLACEHOLDER).toBeGreaterThan(0);
    // Below the floor, CRITICAL messages are compressed rather than dropped while they fit.
    const below = await ok(a, 'afm_build_context', { conversation_id: 'long', budget_tokens: Math.round(floor * 0.6) });
    expect(below.tokens).toBeLessThanOrEqual(Math.round(floor * 0.6));
    expect(below.items.filter((i: { importance: string }) => i.importance === 'CRITICAL')).toHaveLength(criticals);

    // Server-side latency (each call's usage event latency_ms: authentication to answer), in rounds of
    // 200 calls; the best round counts (the 2 shared cores also run other suites).
    const rounds: number[] = [];
    for (let round = 0; round < 3; round++) {
      const times: number[] = [];
      for (let i = 0; i < 200; i++) {
        const t0 = performance.now();
        await ok(a, 'afm_build_context', { conversation_id: 'long', budget_tokens: budgets[i % budgets.length] });
        times.push(performance.now() - t0);
      }
      await server.app.services.background.drain();
      const lat = (await server.app.services.db.query<{ latency_ms: number }>(
        "select latency_ms from usage_events where tool_name = 'afm_build_context' order by created_at desc limit 200",
      )).map((r) => Number(r.latency_ms));
      expect(lat).toHaveLength(200);
      rounds.push(p99(lat));
      console.log(
        `afm_build_context, 500 messages (${DB_KIND}), round ${round + 1}: server p50 ${[...lat].sort((x, y) => x - y)[100]!.toFixed(1)} ms, p99 ${p99(lat).toFixed(1)} ms; ` +
          `over the SDK client p50 ${times.sort((x, y) => x - y)[100]!.toFixed(1)} ms, p99 ${p99(times).toFixed(1)} ms; load ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores`,
      );
      if (p99(lat) < 50) break;
    }
    if (loadavg()[0]! > 2 * cpus().length) console.log('latency not asserted: the machine is loaded past twice its cores');
    else expect(Math.min(...rounds)).toBeLessThan(50);
  }, 180_000);

  it('export and import round-trip exactly; malformed imports are refused', async () => {
    const exp = await ok(a, 'afm_export_history', { conversation_id: 'rules' });
    expect(exp.messages).toHaveLength(5);
    const imp = await ok(a, 'afm_import_history', { conversation_id: 'rules-copy', history: exp });
    expect(imp.imported).toBe(5);
    const again = await ok(a, 'afm_export_history', { conversation_id: 'rules-copy' });
    expect(again.messages).toEqual(exp.messages);
    expect(again.content_hash).toBe(exp.content_hash);
    const conflict = await call(a, 'afm_import_history', { conversation_id: 'rules-copy', history: exp });
    expect(conflict.data.error).toBe('conflict');
    expect((await ok(a, 'afm_import_history', { conversation_id: 'rules-copy', history: exp, replace: true })).replaced).toBe(5);

    const tampered = { ...exp, messages: exp.messages.map((m: { content: string }, i: number) => (i === 0 ? { ...m, content: 'changed' } : m)) };
    const bad: [unknown, string][] = [
      [tampered, 'invalid_history'],
      [{ ...exp, format: 'other' }, 'invalid_history'],
      [{ ...exp, messages: [exp.messages[0], exp.messages[0]], content_hash: undefined }, 'invalid_history'],
      [{ ...exp, messages: [{ ...exp.messages[0], importance: 'URGENT' }] }, 'validation_error'],
      [{ ...exp, messages: [] }, 'validation_error'],
      ['not an object', 'validation_error'],
    ];
    for (const [history, error] of bad) {
      const r = await call(a, 'afm_import_history', { conversation_id: 'bad-import', history });
      expect(r.isError).toBe(true);
      expect(r.data.error, JSON.stringify(history).slice(0, 80)).toBe(error);
    }
    expect((await call(a, 'afm_export_history', { conversation_id: 'bad-import' })).data.error).toBe('not_found');
  });

  it('bad input, clearing, and other users', async () => {
    expect((await call(a, 'afm_build_context', { conversation_id: 'rules', budget_tokens: 0 })).data.error).toBe('validation_error');
    expect((await call(a, 'afm_build_context', { conversation_id: 'nothing-here', budget_tokens: 100 })).data.error).toBe('not_found');
    expect((await call(a, 'afm_add_message', { conversation_id: 'rules', role: 'user', content: 'x'.repeat(50_001) })).data.error).toBe('validation_error');
    expect((await call(a, 'afm_add_message', { conversation_id: 'rules', role: 'robot', content: 'x' })).data.error).toBe('validation_error');
    // Another user's conversation of the same id is theirs alone.
    expect((await call(stranger, 'afm_export_history', { conversation_id: 'rules' })).data.error).toBe('not_found');
    expect((await ok(stranger, 'afm_get_stats', { conversation_id: 'rules' })).message_count).toBe(0);
    expect((await ok(stranger, 'afm_clear_history', { conversation_id: 'rules' })).deleted).toBe(0);
    expect((await ok(a, 'afm_clear_history', { conversation_id: 'rules-copy' })).deleted).toBe(5);
    expect((await ok(a, 'afm_get_stats', { conversation_id: 'rules' })).message_count).toBe(5);
  });
});

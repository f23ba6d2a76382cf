import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/mcp.js';
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

async function ok(client: Client, name: string, args: Record<string, unknown> = {}) {
  const r = await call(client, name, args);
  expect(r.isError, `${name}: ${JSON.stringify(r.data).slice(0, 300)}`).toBe(false);
  return r.data;
}

async function fails(client: Client, name: string, args: Record<string, unknown>, error: string) {
  const r = await call(client, name, args);
  expect(r.isError, `${name} should fail: ${JSON.stringify(r.data).slice(0, 200)}`).toBe(true);
  expect(r.data.error).toBe(error);
  expect(typeof r.data.detail).toBe('string');
}

const ORIGINAL = [
  '# Rate limits',
  'The API allows 50 requests per minute per key. Bursts above that get HTTP 429.',
  'Never share your API key with anyone.',
  '',
  '# Keys',
  'Keys expire after 90 days. Rotate them from the dashboard before they expire.',
  'Each account may hold at most 10 active keys at a time.',
].join('\n');
const FAITHFUL = 'The API allows 50 requests per minute per key; bursts get HTTP 429. Never share your API key with anyone. Keys expire after 90 days. Each account may hold at most 10 active keys at a time.';
const WRONG = 'The API allows 500 requests per minute per key. Support is available on weekends by phone.';

describe(`reward and evidence (${DB_KIND})`, () => {
  it('calculate_reward: faithful compression beats a wrong one and the trivial extremes', async () => {
    const good = await ok(pro, 'calculate_reward', { original_text: ORIGINAL, compressed_text: FAITHFUL });
    expect(good.original_tokens).toBe(encode(ORIGINAL).length);
    expect(good.compressed_tokens).toBe(encode(FAITHFUL).length);
    expect(good.savings).toBeCloseTo(1 - good.compressed_tokens / good.original_tokens, 3);
    const b2 = 4;
    expect(good.reward).toBeCloseTo(((1 + b2) * good.savings * good.fidelity) / (b2 * good.savings + good.fidelity), 2);

    const bad = await ok(pro, 'calculate_reward', { original_text: ORIGINAL, compressed_text: WRONG });
    expect(bad.hallucinations).toBeGreaterThan(0);
    expect(bad.high_severity_issues).toBeGreaterThan(0);
    expect(bad.fidelity).toBeLessThan(good.fidelity);
    expect(bad.reward).toBeLessThan(good.reward);

    // No compression at all: fidelity 1, no savings, reward 0.
    const same = await ok(pro, 'calculate_reward', { original_text: ORIGINAL, compressed_text: ORIGINAL });
    expect(same).toMatchObject({ savings: 0, fidelity: 1, reward: 0 });
    // Weighing savings more moves the score toward the savings.
    const savingsHeavy = await ok(pro, 'calculate_reward', { original_text: ORIGINAL, compressed_text: WRONG, fidelity_weight: 0.5 });
    expect(savingsHeavy.reward).toBeGreaterThan(bad.reward);

    await fails(pro, 'calculate_reward', { original_text: ORIGINAL }, 'validation_error');
    await fails(pro, 'calculate_reward', { original_text: ORIGINAL, compressed_text: '' }, 'validation_error');
    await fails(pro, 'calculate_reward', { original_text: ORIGINAL, compressed_text: FAITHFUL, fidelity_weight: 0 }, 'validation_error');
    await fails(free, 'calculate_reward', { original_text: ORIGINAL, compressed_text: FAITHFUL }, 'plan_required');
  });

  it('get_evidence_stats: per-claim support with the original lines cited', async () => {
    const r = await ok(pro, 'get_evidence_stats', { original_text: ORIGINAL, compressed_text: WRONG });
    expect(r.claims_total).toBe(2);
    const [first, second] = r.claims;
    expect(first).toMatchObject({ support: expect.stringMatching(/supported|partial/), evidence: [expect.objectContaining({ line: 2 })] });
    expect(second).toMatchObject({ support: 'unsupported', evidence: [] });
    expect(second.missing_terms).toEqual(expect.arrayContaining(['phone']));
    expect(r.unsupported).toBe(1);
    expect(r.issues.some((i: { type: string }) => i.type === 'hallucination')).toBe(true);

    const good = await ok(pro, 'get_evidence_stats', { original_text: ORIGINAL, compressed_text: FAITHFUL });
    expect(good.unsupported).toBe(0);
    expect(good.supported_share).toBe(1);
    expect(good.original_coverage).toBeGreaterThan(r.original_coverage);
    expect(good.claims.every((c: { evidence: unknown[] }) => c.evidence.length > 0)).toBe(true);
    const capped = await ok(pro, 'get_evidence_stats', { original_text: ORIGINAL, compressed_text: FAITHFUL, max_segments: 1 });
    expect(capped.claims).toHaveLength(1);
    expect(capped.claims_truncated).toBe(true);

    await fails(pro, 'get_evidence_stats', { compressed_text: FAITHFUL }, 'validation_error');
    await fails(pro, 'get_evidence_stats', { original_text: ORIGINAL, compressed_text: FAITHFUL, max_segments: -1 }, 'validation_error');
    await fails(free, 'get_evidence_stats', { original_text: ORIGINAL, compressed_text: FAITHFUL }, 'plan_required');
  });
});

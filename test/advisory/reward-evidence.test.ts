import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

const DOC = [
  '# Install',
  'Run npm install to get the package. It needs Node 20 or later. The install takes about a minute on a fresh machine.',
  '',
  '# Configuration',
  'Set DATABASE_URL to your Postgres URL. The default pool size is 10 connections. Never commit the .env file.',
  'Logging goes to stdout by default. You can change the level with LOG_LEVEL.',
  '',
  '# History',
  ...Array.from({ length: 12 }, (_, i) => `In year ${2012 + i} the project went through another round of renaming and moving, which many people remember fondly.`),
].join('\n');

describe(`reward and evidence (${DB_KIND})`, () => {
  it('explain_compression_decision: the engine\'s own choice, section by section, with scores', async () => {
    const r = await ok(pro, 'explain_compression_decision', { text: DOC, fidelity: 'outline', model: 'gpt-4o', include_compressed_text: true, max_units_per_section: 50 });
    // Same output as the compression itself.
    const same = await ok(pro, 'optimize_for_model', { text: DOC, model: 'gpt-4o', fidelity: 'outline' });
    expect(r.compressed_text).toBe(same.compressed_text);
    expect(r.compressed_tokens).toBe(same.compressed_tokens);
    expect(r.sections.map((s: { section: string }) => s.section)).toEqual(['Install', 'Configuration', 'History']);
    const units = r.sections.flatMap((s: { units: unknown[] }) => s.units);
    expect(units).toHaveLength(r.units_total);
    expect(units.filter((u: { kept: boolean }) => u.kept)).toHaveLength(r.units_kept);
    expect(r.sections.reduce((n: number, s: { units_kept: number }) => n + s.units_kept, 0)).toBe(r.units_kept);
    for (const u of units) {
      // A kept unit's text is in the output verbatim; an elided sentence is not.
      if (u.kept) expect(r.compressed_text).toContain(u.text);
      else if (u.kind === 'sentence') expect(r.compressed_text).not.toContain(u.text);
      expect(u.scores.plain).toBeCloseTo(0.4 * u.scores.centrality + 0.35 * u.scores.prior + 0.25 * u.scores.density, 2);
      expect(u.reason).toMatch(u.kept ? /^kept/ : /^elided/);
    }
    const history = r.sections[2];
    expect(history.decision).not.toBe('kept');
    expect(history.units_kept).toBeLessThan(history.units_total);
    expect(r.cutoff_priority).toBeGreaterThan(0);
    expect(r.budget_tokens).toBeLessThan(r.original_tokens);

    // With a query the ranking follows it: the configuration facts rise.
    const q = await ok(pro, 'explain_compression_decision', { text: DOC, fidelity: 'abstract', query: 'which environment variable sets the database connection', max_units_per_section: 50 });
    expect(q.mode).toBe('query-guided');
    expect(q.compressed_text).toBeUndefined();
    const dbUnit = q.sections[1].units.find((u: { text: string }) => u.text.includes('DATABASE_URL'));
    expect(dbUnit.kept).toBe(true);
    // A short text fits its budget: everything kept, and said so.
    const small = await ok(pro, 'explain_compression_decision', { text: 'One short line.', fidelity: 'detailed' });
    expect(small.all_kept).toBe('fits_budget');
    // Terminal output is explained as the engine reads it, without its escapes: each unit's text is
    // what its offset points at there (the escapes shifted them when the sent text was sliced).
    const coloured = DOC.split('\n').map((l) => (l.trim() ? `\x1b[36m${l}\x1b[0m` : l)).join('\n');
    const c = await ok(pro, 'explain_compression_decision', { text: coloured, fidelity: 'outline', max_units_per_section: 50, include_compressed_text: true });
    const cUnits = c.sections.flatMap((s: { units: { text: string; kept: boolean }[] }) => s.units);
    expect(c.sections.map((s: { section: string }) => s.section)).toEqual(['Install', 'Configuration', 'History']);
    for (const u of cUnits) {
      expect(u.text).not.toContain('\x1b');
      if (u.kept) expect(c.compressed_text).toContain(u.text);
    }

    // JSON is explained by value: a section is named by its path (test/text/explain-tree.test.ts).
    const entries = { entries: Array.from({ length: 40 }, (_, i) => ({ id: `e${i}`, note: `Entry ${i} of the log, recorded at step ${i * 7} of the run.` })) };
    const j = await ok(pro, 'explain_compression_decision', { text: JSON.stringify(entries, null, 2), fidelity: 'outline', max_units_per_section: 1 });
    expect(j.sections.map((s: { section: string }) => s.section)).toEqual(['json $.entries']);

    await fails(pro, 'explain_compression_decision', { text: '' }, 'validation_error');
    await fails(pro, 'explain_compression_decision', { text: DOC, fidelity: 'tiny' }, 'validation_error');
    await fails(free, 'explain_compression_decision', { text: DOC }, 'plan_required');
  });

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

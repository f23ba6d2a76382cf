// ACE playbooks through the official SDK client, with model calls going to the local provider server
// the app starts (deterministic text that is never the JSON asked for: the fallback paths are the ones
// exercised end to end; the JSON paths are covered in parse.test.ts).
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp, ok, fails } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { connectAs } from '../helpers/users.js';
import { makeTenant } from '../kb/helpers.js';
import { waitFor } from '../helpers/waitFor.js';

let server: TestServer;
let a: Client; // project-bound key A
let b: Client; // the same project, key B
let unbound: Client; // the same user, no project
let stranger: Client;
let free: Client;

beforeAll(async () => {
  server = await startTestServer({ rateLimits: { free: 1e9, pro: 1e9, team: 1e9, enterprise: 1e9 } });
  const t = await makeTenant(server);
  const o = await makeTenant(server);
  [a, b, unbound, stranger, free] = await Promise.all([
    connectMcp(server.url, t.keyA),
    connectMcp(server.url, t.keyB),
    connectMcp(server.url, t.unbound),
    connectMcp(server.url, o.keyA),
    connectAs(server, 'free'),
  ]);
});
afterAll(async () => {
  await Promise.allSettled([a, b, unbound, stranger, free].map((c) => c?.close()));
  await server?.close();
});

const TASK = 'Parse the ISO 8601 dates in the CSV export and sum the amounts per month.';
const FEEDBACK = 'The answer parsed dates with the local time zone; always parse ISO dates as UTC before grouping by month.';
// The same insight in other words (cosine 0.9+ with glove-sif-100d; measured in docs/ace.md).
const FEEDBACK_AGAIN = 'The answer parsed the dates in local time; always parse the ISO dates as UTC before grouping them by month.';

describe(`ACE playbooks (${DB_KIND})`, () => {
  it('a full cycle grows the playbook; a second cycle with the same insight reworded adds no duplicate', async () => {
    const one = await ok(a, 'ace_execute_cycle', { playbook: 'dates', task: TASK, feedback: FEEDBACK });
    expect(one.generate.answer).toContain('Parse the ISO 8601 dates');
    expect(one.generate.bullets_used).toEqual([]);
    expect(one.reflect.reflection_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(one.reflect.path).toBe('fallback');
    expect(one.curate.path).toBe('fallback');
    expect(one.curate.added).toBeGreaterThanOrEqual(1);
    expect(one.delta.operations.filter((o: any) => o.status === 'added').map((o: any) => o.content)).toContain(FEEDBACK);
    // Only grounded sentences: the local model's status line ("Read N words (digest ...)") is no insight.
    for (const o of one.delta.operations) expect(o.content ?? '').not.toMatch(/digest/);
    expect(one.cost_micros).toBe(one.generate.cost_micros + one.reflect.cost_micros + one.curate.cost_micros);
    expect(one.cost_micros).toBeGreaterThan(0);
    for (const step of [one.generate, one.reflect, one.curate.model_call]) expect(step).toMatchObject({ provider: 'default', model: 'gc-local' });

    const before = await ok(a, 'ace_get_playbook', { playbook: 'dates' });
    expect(before.stats).toMatchObject({ bullet_count: one.curate.added, reflections: 1, deltas: 1 });

    const two = await ok(a, 'ace_execute_cycle', { playbook: 'dates', task: TASK, feedback: FEEDBACK_AGAIN, outcome: 'success' });
    // The bullet was in the prompt this time, and the success tags it helpful.
    const bullet = before.bullets.find((x: any) => x.content === FEEDBACK);
    expect(two.generate.bullets_used.map((u: any) => u.bullet_id)).toContain(bullet.bullet_id);
    expect(two.curate.added).toBe(0);
    const dup = two.delta.operations.find((o: any) => o.op === 'ADD' && o.status === 'duplicate');
    expect(dup).toMatchObject({ content: FEEDBACK_AGAIN, duplicate_of: bullet.bullet_id });
    expect(dup.similarity).toBeGreaterThanOrEqual(0.9);
    expect(dup.similarity).toBeLessThan(1);
    expect(two.delta.operations).toContainEqual(expect.objectContaining({ op: 'UPDATE', bullet_id: bullet.bullet_id, helpful_delta: 1, helpful_count: 1 }));

    const after = await ok(a, 'ace_get_playbook', { playbook: 'dates' });
    expect(after.stats.bullet_count).toBe(before.stats.bullet_count);
    expect(after.stats).toMatchObject({ reflections: 2, deltas: 2, helpful_total: 1 });
    expect(after.bullets.find((x: any) => x.bullet_id === bullet.bullet_id)).toMatchObject({ helpful_count: 1, harmful_count: 0, version: 2 });

    // With refine, the cycle also reports the refine step.
    const three = await ok(a, 'ace_execute_cycle', { playbook: 'dates', task: TASK, feedback: FEEDBACK, refine: true });
    expect(three.refine).toMatchObject({ bullets_before: after.stats.bullet_count, dry_run: false });
  });

  it('ace_generate ranks bullets for the task within the budget and reports the labels its answer cites', async () => {
    const grown = await ok(a, 'ace_grow_context', {
      playbook: 'gen',
      bullets: [
        { section: 'strategies', content: 'Retry HTTP 429 responses with exponential back-off and honour the Retry-After header.' },
        { section: 'pitfalls', content: 'Never store tomato seedlings in a cold garage overnight in spring.' },
        { section: 'tools/apis', content: 'The billing API paginates invoices with an opaque cursor; keep requesting until next_cursor is null.' },
      ],
    });
    expect(grown.added).toBe(3);
    const labels = grown.operations.map((o: any) => o.label);
    expect(labels).toEqual(['b1', 'b2', 'b3']);
    const r = await ok(a, 'ace_generate', { playbook: 'gen', task: `Following [b1], how should the client handle HTTP 429 rate limit responses from the API?`, budget_tokens: 35 });
    expect(r.bullets_used[0].label).toBe('b1');
    expect(r.bullets_used.length).toBeLessThan(3);
    expect(r.playbook_tokens).toBeGreaterThan(0);
    expect(r.playbook_tokens).toBeLessThanOrEqual(35);
    expect(r.playbook_bullets).toBe(3);
    expect(r.bullets_cited).toEqual([grown.operations[0].bullet_id]);
    expect(r.cost_micros).toBeGreaterThan(0);
    const all = await ok(a, 'ace_generate', { playbook: 'gen', task: 'Summarise every rule in the playbook.', budget_tokens: 2000 });
    expect(all.bullets_used).toHaveLength(3);
    // A budget too small for any bullet still answers, with none.
    expect((await ok(a, 'ace_generate', { playbook: 'gen', task: 'How to paginate invoices?', budget_tokens: 1 })).bullets_used).toEqual([]);
  });

  it('reflect then curate: counters from the tags; curating again returns the same delta', async () => {
    const g = await ok(a, 'ace_grow_context', { playbook: 'steps', bullets: [{ content: 'Cache the exchange rates for one hour to stay under the API quota.' }] });
    const id = g.operations[0].bullet_id;
    const r = await ok(a, 'ace_reflect', {
      playbook: 'steps',
      task: 'Convert the invoice totals to euros.',
      answer: 'Used the cached exchange rates from yesterday.',
      bullet_ids: [id],
      feedback: 'Stale exchange rates gave wrong euro totals; refresh the cached exchange rates before converting invoice totals.',
      outcome: 'failure',
    });
    expect(r).toMatchObject({ path: 'fallback', outcome: 'failure', bullets_used: [id] });
    expect(r.bullet_tags).toEqual([{ bullet_id: id, label: 'b1', tag: 'harmful' }]);
    expect(r.insights.length).toBeGreaterThanOrEqual(1);
    expect(r.cost_micros).toBeGreaterThan(0);
    const c = await ok(a, 'ace_curate', { reflection_id: r.reflection_id });
    expect(c).toMatchObject({ path: 'fallback', already_applied: false, updated: 1 });
    expect(c.operations).toContainEqual(expect.objectContaining({ op: 'UPDATE', bullet_id: id, harmful_delta: 1, harmful_count: 1 }));
    const again = await ok(a, 'ace_curate', { reflection_id: r.reflection_id });
    expect(again).toMatchObject({ delta_id: c.delta_id, already_applied: true, path: 'fallback', cost_micros: null });
    const pb = await ok(a, 'ace_get_playbook', { playbook: 'steps' });
    expect(pb.bullets.find((x: any) => x.bullet_id === id)).toMatchObject({ harmful_count: 1, helpful_count: 0 });
    expect(pb.stats.deltas).toBe(2);
    // max_new_bullets 0: counters only.
    const r2 = await ok(a, 'ace_reflect', { playbook: 'steps', task: 'Convert the totals again.', answer: 'Refreshed the rates first.', bullet_ids: [id], outcome: 'success', feedback: 'Refreshing the cached exchange rates first gave correct euro totals for the invoices.' });
    const c2 = await ok(a, 'ace_curate', { reflection_id: r2.reflection_id, max_new_bullets: 0 });
    expect(c2.added + c2.duplicates).toBe(0);
    expect(c2.operations).toEqual([expect.objectContaining({ op: 'UPDATE', bullet_id: id, helpful_count: 1, harmful_count: 1 })]);
  });

  it('a delta leaves the bullets it does not name byte-identical (never a rewrite)', async () => {
    const g = await ok(a, 'ace_grow_context', {
      playbook: 'bytes',
      bullets: [
        { content: 'Run the database migrations before deploying the new application version.' },
        { section: 'pitfalls', content: 'Do not log request bodies that can carry customer passwords or tokens.' },
        { content: 'Pin the Node.js major version in the Dockerfile and in the CI matrix.' },
        { section: 'tools/apis', content: 'The metrics endpoint exposes Prometheus text format on port 9464.' },
      ],
    });
    const ids: string[] = g.operations.map((o: any) => o.bullet_id);
    const rows = async () =>
      server.app.services.db.query<Record<string, unknown>>(
        "select id, seq, section, content, helpful_count, harmful_count, tokens, encode(embedding, 'hex') as embedding, dims, version, created_at::text as created_at, updated_at::text as updated_at from ace_bullets where id = any($1::uuid[]) order by seq",
        [ids],
      );
    const before = await rows();
    // A rewrite would show a later updated_at: wait until the database's clock is past the latest one.
    const latest = before.map((b) => String(b.updated_at)).sort().at(-1);
    await waitFor('the database clock moved past the bullets', async () => (await server.app.services.db.query<{ past: boolean }>('select clock_timestamp() > $1::timestamptz as past', [latest]))[0]!.past);
    const r = await ok(a, 'ace_reflect', {
      playbook: 'bytes', task: 'Deploy the release.', answer: 'Ran migrations, then deployed.', bullet_ids: [ids[0]], outcome: 'success',
      feedback: 'Running the database migrations before the deploy kept the release working; check the migration lock first.',
    });
    const c = await ok(a, 'ace_curate', { reflection_id: r.reflection_id });
    expect(c.updated).toBe(1);
    await ok(a, 'ace_grow_context', { playbook: 'bytes', bullets: [{ content: 'Rotate the API signing keys every ninety days with a grace period.' }] });
    const after = await rows();
    expect(after[0]).toMatchObject({ id: ids[0], helpful_count: 1, version: 2 });
    expect(after[0]!.content).toBe(before[0]!.content);
    expect(after[0]!.embedding).toBe(before[0]!.embedding);
    expect(after.slice(1)).toEqual(before.slice(1));
  });

  it('refine merges near-identical bullets with summed counters and prunes harmful ones; dry_run writes nothing', async () => {
    // Exact-only dedup (threshold 1) lets the near-identical pair in.
    const g = await ok(a, 'ace_grow_context', {
      playbook: 'refine',
      similarity_threshold: 1,
      bullets: [
        { content: 'Always validate the uploaded CSV header before importing any rows.' },
        { content: 'Always validate the uploaded CSV headers before you import any rows.' },
        { section: 'pitfalls', content: 'Guessing the file encoding from its extension corrupts accented names.' },
        { content: 'Batch inserts of one thousand rows keep the import fast.' },
      ],
    });
    expect(g.added).toBe(4);
    const [x, y, bad, keep] = g.operations.map((o: any) => o.bullet_id);
    const tag = async (ids: string[], outcome: string) => {
      const r = await ok(a, 'ace_reflect', { playbook: 'refine', task: 'Import the customer CSV.', answer: 'Imported.', bullet_ids: ids, outcome });
      await ok(a, 'ace_curate', { reflection_id: r.reflection_id, max_new_bullets: 0 });
    };
    await tag([x], 'success');
    await tag([y, bad], 'failure');
    await tag([bad], 'failure');

    const dry = await ok(a, 'ace_refine_context', { playbook: 'refine', prune_margin: 2, dry_run: true });
    expect(dry).toMatchObject({ dry_run: true, delta_id: null, bullets_before: 4, bullets_after: 2 });
    expect((await ok(a, 'ace_get_playbook', { playbook: 'refine' })).stats.bullet_count).toBe(4);

    const r = await ok(a, 'ace_refine_context', { playbook: 'refine', prune_margin: 2 });
    expect(r.merged).toHaveLength(1);
    expect(r.merged[0].kept.bullet_id).toBe(x);
    expect(r.merged[0].merged.map((m: any) => m.bullet_id)).toEqual([y]);
    expect(r.merged[0].merged[0].similarity).toBeGreaterThanOrEqual(0.9);
    expect(r.merged[0]).toMatchObject({ helpful_count: 1, harmful_count: 1 });
    expect(r.pruned.map((p: any) => p.bullet_id)).toEqual([bad]);
    expect(r).toMatchObject({ bullets_before: 4, bullets_after: 2, dry_run: false });
    const pb = await ok(a, 'ace_get_playbook', { playbook: 'refine' });
    expect(pb.bullets.map((q: any) => q.bullet_id)).toEqual([x, keep]);
    expect(pb.bullets[0]).toMatchObject({ helpful_count: 1, harmful_count: 1 });
    // Nothing left to do: no delta.
    expect(await ok(a, 'ace_refine_context', { playbook: 'refine', prune_margin: 2 })).toMatchObject({ merged: [], pruned: [], delta_id: null });
    // Grow dedups at the default threshold: the reworded header rule is a duplicate of the kept bullet.
    const again = await ok(a, 'ace_grow_context', { playbook: 'refine', bullets: [{ content: 'Always validate the uploaded CSV header before you import rows.' }] });
    expect(again).toMatchObject({ added: 0, duplicates: 1 });
    expect(again.operations[0].duplicate_of).toBe(x);
  });

  it('ace_get_playbook: sections, budget packing by usefulness, stats; grow dedups within one call', async () => {
    const g = await ok(a, 'ace_grow_context', {
      playbook: 'view',
      bullets: [
        { section: 'Strategies', content: 'Read the failing test output fully before changing any code.' },
        { section: 'pitfalls', content: 'Do not silence a flaky test; find the race that makes it flaky.' },
        { section: 'pitfalls', content: 'Do not silence a flaky test; find the race that makes it flaky!' },
      ],
    });
    expect(g).toMatchObject({ added: 2, duplicates: 1 });
    expect(g.operations[2]).toMatchObject({ status: 'duplicate', duplicate_of: g.operations[1].bullet_id });
    const pit = await ok(a, 'ace_get_playbook', { playbook: 'view', section: 'pitfalls' });
    expect(pit.bullets.map((x: any) => x.section)).toEqual(['pitfalls']);
    expect(pit.stats.by_section).toEqual({ strategies: 1, pitfalls: 1 });
    expect(pit.text).toMatch(/^## pitfalls\n\[b2\] Do not silence/);
    const r = await ok(a, 'ace_reflect', { playbook: 'view', task: 't', answer: 'a', bullet_ids: [g.operations[1].bullet_id], outcome: 'success' });
    await ok(a, 'ace_curate', { reflection_id: r.reflection_id, max_new_bullets: 0 });
    const small = await ok(a, 'ace_get_playbook', { playbook: 'view', budget_tokens: 25 });
    expect(small.truncated).toBe(true);
    expect(small.bullets.map((x: any) => x.label)).toEqual(['b2']); // the helpful one first
    expect(small.tokens).toBeLessThanOrEqual(25);
    const byId = await ok(a, 'ace_get_playbook', { playbook_id: small.playbook.playbook_id });
    expect(byId.stats).toMatchObject({ bullet_count: 2, helpful_total: 1, reflections: 1, deltas: 2 });
  });

  it('concurrent deltas all land once: parallel grows, and one delta for a reflection curated twice at once', async () => {
    const topics = ['invoices', 'passwords', 'backups', 'webhooks', 'migrations', 'tracing'];
    const grown = await Promise.all(topics.map((t, i) => ok(i % 2 ? a : b, 'ace_grow_context', { playbook: 'race', bullets: [{ content: `Rule for ${t}: write down who owns the ${t} and review them every quarter.` }] })));
    expect(grown.map((g) => g.added)).toEqual(topics.map(() => 1));
    const pb = await ok(a, 'ace_get_playbook', { playbook: 'race' });
    expect(pb.stats).toMatchObject({ bullet_count: 6, deltas: 6 });
    expect(new Set(pb.bullets.map((x: any) => x.label)).size).toBe(6);
    expect(pb.playbook.version).toBe(6);
    const r = await ok(a, 'ace_reflect', { playbook: 'race', task: 'Audit owners.', answer: 'Done.', bullet_ids: [pb.bullets[0].bullet_id], outcome: 'success' });
    const both = await Promise.all([ok(a, 'ace_curate', { reflection_id: r.reflection_id }), ok(b, 'ace_curate', { reflection_id: r.reflection_id })]);
    expect(both[0].delta_id).toBe(both[1].delta_id);
    expect(both.filter((c) => c.already_applied)).toHaveLength(1);
    expect((await ok(a, 'ace_get_playbook', { playbook: 'race' })).bullets[0].helpful_count).toBe(1);
  });

  it('owner scoping: the project shares playbooks; another project, user or an unbound key does not see them', async () => {
    const g = await ok(a, 'ace_grow_context', { playbook: 'shared', bullets: [{ content: 'Keep the changelog entry next to the code change in the same pull request.' }] });
    const pid = g.playbook.playbook_id;
    expect((await ok(b, 'ace_get_playbook', { playbook: 'shared' })).stats.bullet_count).toBe(1);
    const r = await ok(a, 'ace_reflect', { playbook: 'shared', task: 'Ship the fix.', answer: 'Shipped.', bullet_ids: [g.operations[0].bullet_id], outcome: 'success' });
    for (const other of [stranger, unbound]) {
      await fails(other, 'ace_get_playbook', { playbook: 'shared' }, 'not_found');
      await fails(other, 'ace_get_playbook', { playbook_id: pid }, 'not_found');
      await fails(other, 'ace_refine_context', { playbook_id: pid }, 'not_found');
      await fails(other, 'ace_grow_context', { playbook_id: pid, bullets: [{ content: 'An intruder bullet that must not land anywhere.' }] }, 'not_found');
      await fails(other, 'ace_generate', { playbook_id: pid, task: 'x' }, 'not_found');
      await fails(other, 'ace_execute_cycle', { playbook_id: pid, task: 'x' }, 'not_found');
      await fails(other, 'ace_curate', { reflection_id: r.reflection_id }, 'not_found');
      // Another playbook's bullet id is not found in the caller's own playbook.
      await fails(other, 'ace_reflect', { task: 't', answer: 'a', bullet_ids: [g.operations[0].bullet_id] }, 'not_found');
    }
    // The same name elsewhere is another playbook.
    const own = await ok(unbound, 'ace_grow_context', { playbook: 'shared', bullets: [{ content: 'The unbound scope keeps a playbook of its own.' }] });
    expect(own.playbook.playbook_id).not.toBe(pid);
    expect((await ok(a, 'ace_get_playbook', { playbook: 'shared' })).stats.bullet_count).toBe(1);
    // An unbound key has the local default provider only.
    expect((await ok(unbound, 'ace_generate', { playbook: 'shared', task: 'What does the unbound scope keep?' })).model).toBe('gc-local');
    await fails(unbound, 'ace_generate', { task: 'x', provider: 'openai-main' }, 'invalid_request');
    await fails(a, 'ace_generate', { task: 'x', provider: 'not-registered' }, 'invalid_request');
  });

  it('bad input answers clear errors; the free plan is refused', async () => {
    const nobody = '00000000-0000-4000-8000-000000000000';
    const cases: [string, Record<string, unknown>, string][] = [
      ['ace_generate', { task: '' }, 'validation_error'],
      ['ace_generate', { task: '   ' }, 'validation_error'],
      ['ace_generate', { task: 'x', budget_tokens: 0 }, 'validation_error'],
      ['ace_generate', { task: 'x', budget_tokens: -5 }, 'validation_error'],
      ['ace_generate', { task: 'x', playbook_id: nobody }, 'not_found'],
      ['ace_execute_cycle', { task: '' }, 'validation_error'],
      ['ace_execute_cycle', { task: 'x', budget_tokens: 0 }, 'validation_error'],
      ['ace_execute_cycle', { task: 'x', playbook_id: nobody }, 'not_found'],
      ['ace_reflect', { task: '', answer: 'a' }, 'validation_error'],
      ['ace_reflect', { task: 't', answer: 'a', bullet_ids: [nobody] }, 'not_found'],
      ['ace_reflect', { task: 't', answer: 'a', outcome: 'great' }, 'validation_error'],
      ['ace_curate', { reflection_id: nobody }, 'not_found'],
      ['ace_curate', { reflection_id: 'nope' }, 'validation_error'],
      ['ace_get_playbook', { playbook: 'never-made' }, 'not_found'],
      ['ace_get_playbook', { playbook_id: nobody }, 'not_found'],
      ['ace_get_playbook', { playbook: 'shared', budget_tokens: 0 }, 'validation_error'],
      ['ace_get_playbook', { playbook: 'shared', section: '!!' }, 'invalid_request'],
      ['ace_grow_context', { bullets: [] }, 'validation_error'],
      ['ace_grow_context', { bullets: [{ content: '' }] }, 'validation_error'],
      ['ace_grow_context', { bullets: [{ content: 'ok', section: '<script>' }] }, 'invalid_request'],
      ['ace_grow_context', { bullets: [{ content: 'ok' }], similarity_threshold: 0 }, 'validation_error'],
      ['ace_refine_context', { playbook: 'never-made' }, 'not_found'],
      ['ace_refine_context', { playbook: 'shared', prune_margin: 0 }, 'validation_error'],
      ['ace_refine_context', { playbook: 'shared', extra: 1 }, 'validation_error'],
    ];
    for (const [tool, args, error] of cases) await fails(a, tool, args, error);
    for (const tool of ['ace_generate', 'ace_reflect', 'ace_curate', 'ace_get_playbook', 'ace_grow_context', 'ace_refine_context', 'ace_execute_cycle']) {
      await fails(free, tool, {}, 'plan_required');
    }
  });
});

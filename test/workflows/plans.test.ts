// Plans over the official MCP SDK client: proposals as diffs against a pinned base, the owner's merge
// in a locked transaction (stale base → stale_base with the current version; two concurrent merges on
// one base: exactly one wins), reject writes no version, distilled proposals, blame, errors, tenants.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { makeTenant } from '../kb/helpers.js';

let server: TestServer;
let t: Awaited<ReturnType<typeof makeTenant>>;
let keyBId: string;
let a: Client; // created the plans: their owner
let b: Client; // another key of the same project
let unbound: Client;
let intruder: Client;

const PLAN = `# Launch plan

## Goals

Ship the compression service to the first ten customers.
Keep p99 latency under 50 ms.

## Steps

1. Freeze the API.
2. Write the runbook.
3. Load test on two cores.
`;

beforeAll(async () => {
  server = await startTestServer();
  t = await makeTenant(server);
  const other = await makeTenant(server);
  keyBId = (await server.app.services.db.query<{ key_id: string }>(`select key_id from api_keys where user_id = $1 and name = 'b'`, [t.userId]))[0]!.key_id;
  a = await connectMcp(server.url, t.keyA);
  b = await connectMcp(server.url, t.keyB);
  unbound = await connectMcp(server.url, t.unbound);
  intruder = await connectMcp(server.url, other.keyA);
});
afterAll(async () => {
  await Promise.allSettled([a?.close(), b?.close(), unbound?.close(), intruder?.close()]);
  await server?.close();
});

async function newPlan(name = 'Launch plan', content = PLAN): Promise<{ id: string; v1: string }> {
  const r = await call(a, 'gc_kb_ingest', { name, content, type: 'plan' });
  expect(r.isError, JSON.stringify(r.data)).toBe(false);
  return { id: r.data.item_id, v1: r.data.version_id };
}

const versionCount = async (itemId: string) =>
  (await server.app.services.db.query<{ n: number }>('select count(*)::int as n from kb_versions where item_id = $1', [itemId]))[0]!.n;

const TOOLS = ['gc_plan_propose', 'gc_plan_propose_distilled', 'gc_plan_list_proposals', 'gc_plan_get_proposal', 'gc_plan_decide', 'gc_plan_blame'];

describe(`plans over MCP (${DB_KIND})`, () => {
  it('every plan tool needs a project-bound key: no_project_selected', async () => {
    for (const name of TOOLS) {
      const r = await call(unbound, name, { item_id: 'x', proposal_id: 'x' });
      expect(r.data.error, name).toBe('no_project_selected');
    }
  });

  it('propose (content and diff), get, list, merge by the owner: a new version with the diff applied', async () => {
    const plan = await newPlan();
    const proposed = PLAN.replace('2. Write the runbook.', '2. Write the runbook.\n3. Rehearse the rollback.').replace('3. Load test', '4. Load test');
    const p1 = await call(b, 'gc_plan_propose', { item_id: plan.id, base_version_id: plan.v1, title: 'Add a rollback rehearsal', rationale: 'We never tried it.', content: proposed });
    expect(p1.isError, JSON.stringify(p1.data)).toBe(false);
    expect(p1.data).toMatchObject({ status: 'open', source: 'manual', base_version_id: plan.v1, stale: false, added_lines: 2, removed_lines: 1, author_key_id: keyBId });
    expect(p1.data.diff).toContain('+3. Rehearse the rollback.');
    expect(p1.data.diff).toContain('-3. Load test on two cores.');

    const got = await call(a, 'gc_plan_get_proposal', { proposal_id: p1.data.proposal_id });
    expect(got.data).toMatchObject({ proposal_id: p1.data.proposal_id, title: 'Add a rollback rehearsal', diff: p1.data.diff, current_version_id: plan.v1 });

    const merged = await call(a, 'gc_plan_decide', { proposal_id: p1.data.proposal_id, decision: 'merge', comment: 'Yes.' });
    expect(merged.isError, JSON.stringify(merged.data)).toBe(false);
    expect(merged.data).toMatchObject({ status: 'merged', decision: 'merge', version_number: 2, decision_comment: 'Yes.' });
    const v2 = merged.data.new_version_id;
    expect(merged.data.merged_version_id).toBe(v2);
    const item = await call(a, 'gc_kb_get', { item_id: plan.id });
    expect(item.data.current_version_id).toBe(v2);
    expect(item.data.content).toBe(proposed);

    // A hand-written diff against v2.
    const diff = ['--- plan', '+++ plan', '@@ -5,2 +5,2 @@', ' Ship the compression service to the first ten customers.', '-Keep p99 latency under 50 ms.', '+Keep p99 latency under 20 ms.', ''].join('\n');
    const p2 = await call(a, 'gc_plan_propose', { item_id: plan.id, base_version_id: v2, title: 'Tighter latency', diff });
    expect(p2.isError, JSON.stringify(p2.data)).toBe(false);
    expect(p2.data).toMatchObject({ added_lines: 1, removed_lines: 1 });
    const m2 = await call(a, 'gc_plan_decide', { proposal_id: p2.data.proposal_id, decision: 'merge' });
    expect(m2.data.version_number).toBe(3);
    expect((await call(a, 'gc_kb_get', { item_id: plan.id })).data.content).toBe(proposed.replace('under 50 ms', 'under 20 ms'));

    const list = await call(b, 'gc_plan_list_proposals', { item_id: plan.id });
    expect(list.data.proposals.map((p: { proposal_id: string }) => p.proposal_id)).toEqual([p2.data.proposal_id, p1.data.proposal_id]);
    expect(list.data.proposals.every((p: { status: string }) => p.status === 'merged')).toBe(true);
    expect((await call(b, 'gc_plan_list_proposals', { item_id: plan.id, status: 'open' })).data.proposals).toEqual([]);
  });

  it('a diff that does not fit the base, or changes nothing, is a validation error; wrong item type or version is refused', async () => {
    const plan = await newPlan('Plan two');
    const wrong = ['@@ -5,1 +5,1 @@', '-Keep p99 latency under 99 ms.', '+Keep p99 latency under 20 ms.'].join('\n');
    const r = await call(b, 'gc_plan_propose', { item_id: plan.id, base_version_id: plan.v1, title: 'x', diff: wrong });
    expect(r.data.error).toBe('validation_error');
    expect(r.data.issues[0]).toMatchObject({ loc: ['diff'], type: 'value_error.patch' });
    expect((await call(b, 'gc_plan_propose', { item_id: plan.id, base_version_id: plan.v1, title: 'x', diff: 'not a diff' })).data.issues[0].type).toBe('value_error.patch');
    expect((await call(b, 'gc_plan_propose', { item_id: plan.id, base_version_id: plan.v1, title: 'x', content: PLAN })).data.issues[0].msg).toMatch(/changes nothing/);
    expect((await call(b, 'gc_plan_propose', { item_id: plan.id, base_version_id: plan.v1, title: 'x' })).data.error).toBe('validation_error');

    const doc = await call(a, 'gc_kb_ingest', { name: 'not a plan', content: 'Just a document.' });
    expect((await call(b, 'gc_plan_propose', { item_id: doc.data.item_id, base_version_id: doc.data.version_id, title: 'x', content: 'y' })).data.error).toBe('invalid_request');
    expect((await call(b, 'gc_plan_blame', { item_id: doc.data.item_id })).data.error).toBe('invalid_request');
    expect((await call(b, 'gc_plan_propose', { item_id: plan.id, base_version_id: doc.data.version_id, title: 'x', content: 'y' })).data.error).toBe('not_found');
    expect((await call(b, 'gc_plan_get_proposal', { proposal_id: '00000000-0000-4000-8000-000000000000' })).data.error).toBe('not_found');
    expect((await call(b, 'gc_plan_decide', { proposal_id: 'nope', decision: 'merge' })).data.error).toBe('not_found');
  });

  it('merge on a stale base is stale_base with the current version id and writes nothing; reject writes no version; only the owner decides', async () => {
    const plan = await newPlan('Plan three');
    const first = await call(b, 'gc_plan_propose', { item_id: plan.id, base_version_id: plan.v1, title: 'one', content: PLAN + '\n## Risks\n\nNone known.\n' });
    const second = await call(b, 'gc_plan_propose', { item_id: plan.id, base_version_id: plan.v1, title: 'two', content: PLAN.replace('ten customers', 'twenty customers') });
    const third = await call(b, 'gc_plan_propose', { item_id: plan.id, base_version_id: plan.v1, title: 'three', content: PLAN.replace('Freeze', 'Thaw') });

    const notOwner = await call(b, 'gc_plan_decide', { proposal_id: first.data.proposal_id, decision: 'merge' });
    expect(notOwner.data.error).toBe('forbidden');

    const before = await versionCount(plan.id);
    const rejected = await call(a, 'gc_plan_decide', { proposal_id: third.data.proposal_id, decision: 'reject', comment: 'No.' });
    expect(rejected.data).toMatchObject({ status: 'rejected', decision: 'reject', merged_version_id: null, current_version_id: plan.v1 });
    expect(rejected.data.new_version_id).toBeUndefined();
    expect(await versionCount(plan.id)).toBe(before);
    expect((await call(a, 'gc_kb_get', { item_id: plan.id })).data.current_version_id).toBe(plan.v1);
    expect((await call(a, 'gc_plan_decide', { proposal_id: third.data.proposal_id, decision: 'merge' })).data).toMatchObject({ error: 'already_decided', status: 'rejected' });

    const m = await call(a, 'gc_plan_decide', { proposal_id: first.data.proposal_id, decision: 'merge' });
    const v2 = m.data.new_version_id;
    const stale = await call(a, 'gc_plan_decide', { proposal_id: second.data.proposal_id, decision: 'merge' });
    expect(stale.isError).toBe(true);
    expect(stale.data).toMatchObject({ error: 'stale_base', current_version_id: v2 });
    expect(await versionCount(plan.id)).toBe(before + 1);
    const still = await call(a, 'gc_plan_get_proposal', { proposal_id: second.data.proposal_id });
    expect(still.data).toMatchObject({ status: 'open', stale: true, current_version_id: v2 });
  });

  it('two concurrent merges on one base: exactly one wins, the other is stale_base', async () => {
    for (let round = 0; round < 3; round++) {
      const plan = await newPlan(`Race ${round}`);
      const props = await Promise.all(
        ['alpha', 'beta'].map((w) => call(b, 'gc_plan_propose', { item_id: plan.id, base_version_id: plan.v1, title: w, content: `${PLAN}\n${w}\n` })),
      );
      const a2 = await connectMcp(server.url, t.keyA);
      try {
        const results = await Promise.all([
          call(a, 'gc_plan_decide', { proposal_id: props[0]!.data.proposal_id, decision: 'merge' }),
          call(a2, 'gc_plan_decide', { proposal_id: props[1]!.data.proposal_id, decision: 'merge' }),
        ]);
        const won = results.filter((r) => !r.isError);
        const lost = results.filter((r) => r.isError);
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(1);
        expect(lost[0]!.data).toMatchObject({ error: 'stale_base', current_version_id: won[0]!.data.new_version_id });
        expect(await versionCount(plan.id)).toBe(2);
        const content = (await call(a, 'gc_kb_get', { item_id: plan.id })).data.content as string;
        expect(content).toBe(`${PLAN}\n${won[0]!.data.title}\n`);
      } finally {
        await a2.close();
      }
    }
  });

  it('propose_distilled: a long discussion becomes a short appended section, through the compression engine', async () => {
    const plan = await newPlan('Plan four');
    const discussion = Array.from({ length: 12 }, (_, i) =>
      [
        `Maria: In meeting ${i + 1} we agreed the runbook must cover restoring the database from the nightly backup.`,
        `Tom: The load test showed p99 latency of ${40 + i} ms on two cores, which is close to the launch goal.`,
        `Maria: Lunch was good today and the coffee machine is broken again.`,
        `Tom: We should add a rollback rehearsal before the launch so the on-call engineer has done it once.`,
      ].join('\n'),
    ).join('\n\n');
    const r = await call(b, 'gc_plan_propose_distilled', { item_id: plan.id, base_version_id: plan.v1, discussion, title: 'Launch readiness from the meetings' });
    expect(r.isError, JSON.stringify(r.data)).toBe(false);
    expect(r.data).toMatchObject({ source: 'distilled', status: 'open', removed_lines: 0 });
    expect(r.data.distillation.discussion_tokens).toBeGreaterThan(r.data.distillation.distilled_tokens * 2);
    expect(r.data.diff).toContain('+## Launch readiness from the meetings');
    expect(r.data.rationale).toMatch(/Distilled with the compression engine at outline/);
    const m = await call(a, 'gc_plan_decide', { proposal_id: r.data.proposal_id, decision: 'merge' });
    expect(m.isError).toBe(false);
    const content = (await call(a, 'gc_kb_get', { item_id: plan.id })).data.content as string;
    expect(content.startsWith(PLAN.trimEnd())).toBe(true);
    expect(content).toContain('## Launch readiness from the meetings');
    expect(content.length).toBeLessThan(PLAN.length + discussion.length / 2);
  });

  it('blame: each line of the current plan with the version, proposal and author that introduced it', async () => {
    const plan = await newPlan('Plan five');
    const p = await call(b, 'gc_plan_propose', { item_id: plan.id, base_version_id: plan.v1, title: 'runbook owner', content: PLAN.replace('2. Write the runbook.', '2. Write the runbook (owner: Maria).') });
    const m = await call(a, 'gc_plan_decide', { proposal_id: p.data.proposal_id, decision: 'merge' });
    const v2 = m.data.new_version_id;
    // A direct edit by the owner, outside any proposal.
    const e = await call(a, 'gc_kb_edit', { item_id: plan.id, base_version_id: v2, content: PLAN.replace('2. Write the runbook.', '2. Write the runbook (owner: Maria).') + '\nDone when all steps are ticked.\n' });
    const v3 = e.data.current_version_id;
    const bl = await call(b, 'gc_plan_blame', { item_id: plan.id });
    expect(bl.isError, JSON.stringify(bl.data)).toBe(false);
    expect(bl.data).toMatchObject({ item_id: plan.id, current_version_id: v3, version_count: 3 });
    const line = (text: string) => bl.data.lines.find((l: { text: string }) => l.text === text);
    expect(line('# Launch plan')).toMatchObject({ line: 1, version_id: plan.v1, version_number: 1, proposal_id: null, author_key_id: t.keyAId, author_user_id: t.userId });
    expect(line('2. Write the runbook (owner: Maria).')).toMatchObject({ version_id: v2, version_number: 2, proposal_id: p.data.proposal_id, proposal_title: 'runbook owner', author_key_id: keyBId });
    expect(line('Done when all steps are ticked.')).toMatchObject({ version_id: v3, proposal_id: null, author_key_id: t.keyAId });
    const current = (await call(a, 'gc_kb_get', { item_id: plan.id })).data.content as string;
    expect(bl.data.lines.map((l: { text: string }) => l.text).join('\n') + '\n').toBe(current);
  });

  it("another user's plans and proposals are not_found", async () => {
    const plan = await newPlan('Plan six');
    const p = await call(b, 'gc_plan_propose', { item_id: plan.id, base_version_id: plan.v1, title: 'x', content: PLAN + 'x\n' });
    for (const [tool, args] of [
      ['gc_plan_propose', { item_id: plan.id, base_version_id: plan.v1, title: 'x', content: 'y' }],
      ['gc_plan_propose_distilled', { item_id: plan.id, base_version_id: plan.v1, discussion: 'We should do it.' }],
      ['gc_plan_get_proposal', { proposal_id: p.data.proposal_id }],
      ['gc_plan_decide', { proposal_id: p.data.proposal_id, decision: 'reject' }],
      ['gc_plan_blame', { item_id: plan.id }],
      ['gc_plan_list_proposals', { item_id: plan.id }],
    ] as const) {
      expect((await call(intruder, tool, args)).data.error, tool).toBe('not_found');
    }
    expect((await call(intruder, 'gc_plan_list_proposals', {})).data.proposals).toEqual([]);
    expect((await call(a, 'gc_plan_get_proposal', { proposal_id: p.data.proposal_id })).data.status).toBe('open');
  });
});

// Spec: "Tool catalogue > Pro tools": ace (ace_curate, ace_execute_cycle, ace_generate, ace_get_playbook,
// ace_grow_context, ace_refine_context, ace_reflect). The spec lists the tools without behaviour or
// response fields; the checked names are the ones issue 19 and docs/ace.md use (a playbook of bullets
// with helpful and harmful counters, grown by generator, reflector and curator with delta updates).
import { t, type ContractFile } from '../contract.js';

const NO_FIELDS = 'The spec lists the tool without behaviour or response fields; the checked names are the ones issue 19 and docs/ace.md use.';
const PLAYBOOK = 'contract-ace';

export default {
  area: 'MCP tools: ace (Agentic Context Engineering playbooks)',
  setup: async (c) => {
    const grown = await c.tool(
      'ace_grow_context',
      { playbook: PLAYBOOK, bullets: [{ section: 'strategies', content: 'Run the contract suite on both PGlite and PostgreSQL before merging.' }] },
      'project',
    );
    c.fx.ace_bullet_id = grown.operations[0].bullet_id;
    c.fx.ace_playbook_id = grown.playbook.playbook_id;
  },
  tools: [
    {
      tool: 'ace_generate',
      spec: 'ace | ace_generate',
      args: { playbook: PLAYBOOK, task: 'Which databases should the contract suite run on before a merge?', budget_tokens: 500 },
      key: 'project',
      note: NO_FIELDS,
      fields: { answer: t.string, 'bullets_used[].bullet_id': t.uuid, bullets_cited: t.array, playbook_tokens: t.integer, cost_micros: t.nullable(t.integer) },
      check: (data) => {
        if (data.playbook_tokens > 500) throw new Error('the playbook part of the prompt is over its budget');
      },
    },
    {
      tool: 'ace_reflect',
      spec: 'ace | ace_reflect',
      args: (c) => ({
        playbook: PLAYBOOK,
        task: 'Merge the contract change.',
        answer: 'Ran the suite on PGlite only.',
        bullet_ids: [c.fx.ace_bullet_id],
        feedback: 'The contract suite failed on PostgreSQL after the merge; run the contract suite on both databases.',
        outcome: 'failure',
      }),
      key: 'project',
      note: NO_FIELDS,
      fields: { reflection_id: t.uuid, insights: t.array, 'bullet_tags[].tag': t.enum('helpful', 'harmful', 'neutral'), path: t.enum('model', 'fallback') },
    },
    {
      tool: 'ace_curate',
      spec: 'ace | ace_curate',
      args: async (c) => ({
        reflection_id: (await c.tool('ace_reflect', { playbook: PLAYBOOK, task: 'Merge again.', answer: 'Ran both.', bullet_ids: [c.fx.ace_bullet_id], outcome: 'success' }, 'project')).reflection_id,
      }),
      key: 'project',
      note: NO_FIELDS,
      fields: { delta_id: t.uuid, operations: t.array, added: t.integer, updated: t.integer, path: t.enum('model', 'fallback'), playbook_version: t.integer },
    },
    {
      tool: 'ace_get_playbook',
      spec: 'ace | ace_get_playbook',
      args: { playbook: PLAYBOOK, budget_tokens: 200 },
      key: 'project',
      note: NO_FIELDS,
      fields: {
        'bullets[].bullet_id': t.uuid,
        'bullets[].section': t.string,
        'bullets[].content': t.string,
        'bullets[].helpful_count': t.integer,
        'bullets[].harmful_count': t.integer,
        'stats.bullet_count': t.integer,
        text: t.string,
      },
    },
    {
      tool: 'ace_grow_context',
      spec: 'ace | ace_grow_context',
      args: { playbook: PLAYBOOK, bullets: [{ section: 'pitfalls', content: 'Do not merge while the PostgreSQL run of the suite is red.' }] },
      key: 'project',
      note: NO_FIELDS,
      fields: { delta_id: t.uuid, added: t.integer, duplicates: t.integer, 'operations[].op': t.enum('ADD') },
    },
    {
      tool: 'ace_refine_context',
      spec: 'ace | ace_refine_context',
      args: { playbook: PLAYBOOK, dry_run: true },
      key: 'project',
      note: NO_FIELDS,
      fields: { merged: t.array, pruned: t.array, bullets_before: t.integer, bullets_after: t.integer },
    },
    {
      tool: 'ace_execute_cycle',
      spec: 'ace | ace_execute_cycle',
      args: { playbook: PLAYBOOK, task: 'Prepare the release branch.', feedback: 'Tagging the release before the contract suite passed on PostgreSQL broke the build.' },
      key: 'project',
      note: NO_FIELDS,
      fields: { 'generate.answer': t.string, 'reflect.reflection_id': t.uuid, 'curate.delta_id': t.uuid, 'delta.operations': t.array, cost_micros: t.nullable(t.integer) },
    },
  ],
} satisfies ContractFile;

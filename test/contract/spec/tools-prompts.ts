// Spec: "Tool catalogue > Pro tools > general": compare_experiment_runs, compare_prompt_versions,
// create_dataset, create_prompt_template, deploy_prompt_version (labels production, staging, canary),
// generate_rewrite_prompt, generate_synthetic_tests, get_experiment_run, get_prompt_template,
// list_datasets, list_prompt_templates, render_prompt_template, run_experiment, update_prompt_template.
// The spec names no response fields for these; the checked names are issue 21's and docs/prompt-templates.md's.
import { t, type ContractFile } from '../contract.js';
import { waitFor } from '../../helpers/waitFor.js';

const NO_FIELDS = 'The spec lists the tool without response fields; the checked names are the ones issue 21 and docs/prompt-templates.md use.';
const LABEL = t.enum('production', 'staging', 'canary');
const SUPPORT = [
  'You are a support assistant for {{product}}.',
  'Our support policy is simple. We answer every question politely. We never promise features that are not on the public roadmap. We never share internal ticket numbers. We never discuss other customers. We always link to the documentation when it answers the question. We escalate billing questions to the billing team.',
  'Tone: friendly, concise, professional. Avoid jargon. Avoid long paragraphs. Avoid exclamation marks. Use short sentences. Use the customer\'s own words where possible. Do not apologise more than once.',
  'Answer this message: {{message}}',
].join('\n\n');

async function waitFinished(c: Parameters<NonNullable<ContractFile['setup']>>[0], runId: string) {
  return waitFor(`experiment run ${runId} to finish`, async () => {
    const r = await c.tool('get_experiment_run', { run_id: runId, include_cells: false });
    return (r.status === 'succeeded' || r.status === 'failed') && r;
  }, { timeoutMs: 60_000 });
}

export default {
  area: 'MCP tools: prompt templates, datasets and experiments',
  setup: async (c) => {
    const tpl = await c.tool('create_prompt_template', { name: 'contract-support', template: SUPPORT });
    c.fx.prompt_template_id = tpl.template_id;
    await c.tool('update_prompt_template', { template_id: tpl.template_id, template: `${SUPPORT}\n\nSign as the {{product}} team.` });
    const ds = await c.tool('create_dataset', { name: 'contract-cases', cases: [{ variables: { product: 'Acme', message: 'How do I export?' }, contains: ['export'] }, { variables: { product: 'Acme', message: 'Billing?' } }] });
    c.fx.dataset_id = ds.dataset_id;
    c.fx.experiment_run_a = (await c.tool('run_experiment', { template_id: tpl.template_id, dataset_id: ds.dataset_id, versions: [1] })).run_id;
    c.fx.experiment_run_b = (await c.tool('run_experiment', { template_id: tpl.template_id, dataset_id: ds.dataset_id, versions: [2] })).run_id;
    await waitFinished(c, c.fx.experiment_run_a);
    await waitFinished(c, c.fx.experiment_run_b);
  },
  tools: [
    {
      tool: 'create_prompt_template',
      spec: 'general | create_prompt_template',
      args: { name: 'contract-entry', template: 'Summarise {{document}} in {{words}} words.' },
      note: NO_FIELDS,
      fields: { template_id: t.uuid, name: t.string, version: t.integer, version_id: t.uuid, 'variables[].name': t.string, 'variables[].type': t.string, template_tokens: t.integer },
    },
    {
      tool: 'get_prompt_template',
      spec: 'general | get_prompt_template',
      args: (c) => ({ template_id: c.fx.prompt_template_id }),
      note: NO_FIELDS,
      fields: { template_id: t.uuid, body: t.string, version: t.integer, latest_version: t.integer, labels: t.object, 'versions[].version': t.integer, label_history: t.array },
    },
    {
      tool: 'list_prompt_templates',
      spec: 'general | list_prompt_templates',
      args: {},
      note: NO_FIELDS,
      fields: { 'templates[].template_id': t.uuid, 'templates[].latest_version': t.integer, total: t.integer, next_cursor: t.nullable(t.string) },
    },
    {
      tool: 'update_prompt_template',
      spec: 'general | update_prompt_template',
      args: async (c) => ({ template_id: (await c.tool('create_prompt_template', { name: 'contract-update', template: 'Hi {{name}}' })).template_id, template: 'Hello {{name}}' }),
      note: `${NO_FIELDS} Issue 21: each update is a new version.`,
      fields: { template_id: t.uuid, version: t.integer, body: t.string },
      check: (data) => {
        if (data.version !== 2) throw new Error(`an update should be version 2, got ${data.version}`);
      },
    },
    {
      tool: 'render_prompt_template',
      spec: 'general | render_prompt_template',
      args: (c) => ({ template_id: c.fx.prompt_template_id, variables: { product: 'Acme', message: 'Hello' } }),
      note: NO_FIELDS,
      fields: { rendered: t.string, tokens: t.integer, version: t.integer },
    },
    {
      tool: 'deploy_prompt_version',
      spec: 'general | deploy_prompt_version (labels production, staging, canary)',
      args: (c) => ({ template_id: c.fx.prompt_template_id, label: 'production', version: 1 }),
      note: `${NO_FIELDS} Issue 21: each move is audited with who, when, from and to.`,
      fields: { label: LABEL, from_version: t.nullable(t.integer), to_version: t.integer, moved_by_user_id: t.uuid, moved_at: t.timestamp, labels: t.object },
    },
    {
      tool: 'compare_prompt_versions',
      spec: 'general | compare_prompt_versions',
      args: (c) => ({ template_id: c.fx.prompt_template_id, from_version: 1, to_version: 2 }),
      note: NO_FIELDS,
      fields: { diff: t.string, 'models[].model': t.string, 'models[].from_tokens': t.integer, 'models[].to_tokens': t.integer, 'models[].to_cost_usd': t.nullable(t.number) },
    },
    {
      tool: 'generate_rewrite_prompt',
      spec: 'general | generate_rewrite_prompt',
      args: (c) => ({ template_id: c.fx.prompt_template_id, version: 1 }),
      note: NO_FIELDS,
      fields: { rewritten_prompt: t.string, original_tokens: t.integer, rewritten_tokens: t.integer, tokens_saved: t.integer },
      check: (data) => {
        for (const tag of ['{{product}}', '{{message}}']) if (!data.rewritten_prompt.includes(tag)) throw new Error(`the rewrite lost ${tag}`);
      },
    },
    {
      tool: 'create_dataset',
      spec: 'general | create_dataset',
      args: { name: 'contract-entry-dataset', cases: [{ variables: { topic: 'tides' }, contains: ['tides'] }] },
      note: NO_FIELDS,
      fields: { dataset_id: t.uuid, name: t.string, case_count: t.integer, created_at: t.timestamp },
    },
    {
      tool: 'list_datasets',
      spec: 'general | list_datasets',
      args: {},
      note: NO_FIELDS,
      fields: { 'datasets[].dataset_id': t.uuid, 'datasets[].case_count': t.integer, total: t.integer },
    },
    {
      tool: 'generate_synthetic_tests',
      spec: 'general | generate_synthetic_tests',
      args: (c) => ({ template_id: c.fx.prompt_template_id, document_variable: 'message', document: 'Exports run nightly and produce a spreadsheet of every board and card.\n\nBilling questions go to the billing team, who answer within one working day.' }),
      note: NO_FIELDS,
      fields: { 'cases[].variables': t.object, 'cases[].contains': t.array, count: t.integer },
    },
    {
      tool: 'run_experiment',
      spec: 'general | run_experiment',
      args: (c) => ({ template_id: c.fx.prompt_template_id, dataset_id: c.fx.dataset_id }),
      note: `${NO_FIELDS} The run is queued and executed in the background (like gc_run_from_workflow).`,
      fields: { run_id: t.uuid, status: t.enum('queued', 'running', 'succeeded', 'failed', 'cancelled'), 'progress.total': t.integer },
    },
    {
      tool: 'get_experiment_run',
      spec: 'general | get_experiment_run',
      args: (c) => ({ run_id: c.fx.experiment_run_a }),
      note: NO_FIELDS,
      fields: { run_id: t.uuid, status: t.const('succeeded'), 'aggregates[].overall': t.nullable(t.number), 'cells[].scores': t.nullable(t.object) },
    },
    {
      tool: 'compare_experiment_runs',
      spec: 'general | compare_experiment_runs',
      args: (c) => ({ run_a: c.fx.experiment_run_a, run_b: c.fx.experiment_run_b }),
      note: NO_FIELDS,
      fields: { mean_difference: t.number, 'interval.low': t.number, 'interval.high': t.number, 'cases[].difference': t.number, aggregate: t.object },
    },
  ],
} satisfies ContractFile;

// Spec: "Tool catalogue > Pro tools > platform: workflows and runs", the Workflow record ("graph object
// with nodes and edges lists; saving creates a new version; byte-identical graph returns the current
// version") and the Limits row ("up to 100 nodes saved; a single run submits at most 10 provider calls").
// The provider tools are how a customer registers the provider runs spend the balance of: outside the spec.
// Also "platform: plans" (gc_plan_*), whose plans are Knowledge Hub items of type plan.
import { t, type ContractContext, type ContractFile } from '../contract.js';
import { call } from '../../helpers/mcp.js';

const PLAN = '# Contract plan\n\n1. Freeze the API.\n2. Write the runbook.\n';

async function freshProposal(c: ContractContext, title: string): Promise<{ proposal_id: string; item_id: string; base: string }> {
  const plan = await c.tool('gc_kb_ingest', { name: `contract-${title}`, content: PLAN, type: 'plan' }, 'project');
  const p = await c.tool('gc_plan_propose', { item_id: plan.item_id, base_version_id: plan.version_id, title, content: `${PLAN}3. ${title}.\n` }, 'project');
  return { proposal_id: p.proposal_id, item_id: plan.item_id, base: plan.version_id };
}

const GRAPH = {
  nodes: [
    { id: 'squeeze', type: 'compress', params: { text: 'Retries use exponential back-off with jitter. The pool answers 503 when it is saturated.', fidelity: 'balanced' } },
    { id: 'ask', type: 'llm', params: { prompt: 'Summarise: {{nodes.squeeze.text}}', max_tokens: 64 } },
  ],
  edges: [{ from: 'squeeze', to: 'ask' }],
};

export default {
  area: 'MCP tools: platform: workflows and runs; platform: plans',
  setup: async (c) => {
    const plan = await c.tool('gc_kb_ingest', { name: 'contract-plan', content: PLAN, type: 'plan' }, 'project');
    c.fx.plan_item_id = plan.item_id;
    c.fx.plan_version_id = plan.version_id;
    c.fx.proposal_id = (await c.tool('gc_plan_propose', { item_id: plan.item_id, base_version_id: plan.version_id, title: 'contract', content: `${PLAN}3. Ship.\n` }, 'project')).proposal_id;
    const wf = await c.tool('gc_workflow_create', { name: 'contract-workflow', graph: GRAPH }, 'project');
    c.fx.workflow_id = wf.workflow_id;
    c.fx.workflow_version_id = wf.current_version_id;
    c.fx.run_id = (await c.tool('gc_run_from_workflow', { workflow_id: wf.workflow_id }, 'project')).run_id;
  },
  tools: [
    {
      tool: 'gc_plan_propose',
      spec: 'gc_plan_propose; change proposals on plan documents; merge applies the diff against the pinned base',
      args: (c) => ({ item_id: c.fx.plan_item_id, base_version_id: c.fx.plan_version_id, title: 'contract-propose', content: `${PLAN}3. Propose.\n` }),
      key: 'project',
      note: 'Field names are not shown by the spec; the diff and its pinned base are what it describes.',
      // "the diff against the pinned base" -> diff, base_version_id
      fields: { diff: t.string, base_version_id: t.uuid },
      check: async (_data, c) => {
        const unbound = await call(c.mcp('owner'), 'gc_plan_propose', { item_id: c.fx.plan_item_id, base_version_id: c.fx.plan_version_id, title: 'x', content: 'y' });
        if (unbound.data.error !== 'no_project_selected') throw new Error('an unbound key should get error no_project_selected');
      },
    },
    {
      tool: 'gc_plan_propose_distilled',
      spec: 'gc_plan_propose_distilled',
      args: (c) => ({ item_id: c.fx.plan_item_id, base_version_id: c.fx.plan_version_id, discussion: 'We agreed to load test on two cores before the launch. Lunch was good. The runbook needs a restore section.' }),
      key: 'project',
      fields: { diff: t.string, base_version_id: t.uuid },
    },
    { tool: 'gc_plan_list_proposals', spec: 'gc_plan_list_proposals', args: (c) => ({ item_id: c.fx.plan_item_id }), key: 'project', note: 'The list container is not named by the spec.', fields: { 'proposals[].base_version_id': t.uuid } },
    { tool: 'gc_plan_get_proposal', spec: 'gc_plan_get_proposal', args: (c) => ({ proposal_id: c.fx.proposal_id }), key: 'project', fields: { diff: t.string, base_version_id: t.uuid } },
    {
      tool: 'gc_plan_decide',
      spec: 'gc_plan_decide (owner only; merge applies the diff against the pinned base in a locked transaction and creates a new version; stale base rejects with a stale_base conflict carrying the current version id; reject writes nothing)',
      args: async (c) => ({ proposal_id: (await freshProposal(c, 'decide')).proposal_id, decision: 'merge' }),
      key: 'project',
      // "creates a new version" -> new_version_id
      fields: { new_version_id: t.uuid },
      check: async (_data, c) => {
        const one = await freshProposal(c, 'stale-one');
        const plan = await c.tool('gc_kb_get', { item_id: one.item_id }, 'project');
        const two = await c.tool('gc_plan_propose', { item_id: one.item_id, base_version_id: one.base, title: 'stale-two', content: `${PLAN}3. Other.\n` }, 'project');
        await c.tool('gc_plan_decide', { proposal_id: one.proposal_id, decision: 'merge' }, 'project');
        const current = (await c.tool('gc_kb_get', { item_id: one.item_id }, 'project')).current_version_id;
        if (current === plan.current_version_id) throw new Error('a merge should create a new version');
        const stale = await call(c.mcp('project'), 'gc_plan_decide', { proposal_id: two.proposal_id, decision: 'merge' });
        const body = stale.data;
        if (body.error !== 'stale_base' || body.current_version_id !== current) throw new Error(`a stale base should be stale_base with the current version id: ${JSON.stringify(body)}`);
        const rejected = await freshProposal(c, 'reject');
        await c.tool('gc_plan_decide', { proposal_id: rejected.proposal_id, decision: 'reject' }, 'project');
        if ((await c.tool('gc_kb_get', { item_id: rejected.item_id }, 'project')).current_version_id !== rejected.base) throw new Error('reject should write no version');
      },
    },
    { tool: 'gc_plan_blame', spec: 'gc_plan_blame', args: (c) => ({ item_id: c.fx.plan_item_id }), key: 'project', note: 'Fields not shown by the spec.', fields: { 'lines[].version_id': t.uuid, 'lines[].text': t.string } },
    {
      tool: 'gc_workflow_create',
      spec: 'gc_workflow_create; Workflow: graph object with nodes and edges lists',
      args: { name: 'contract-create', graph: GRAPH },
      key: 'project',
      note: 'Field names other than the graph are not shown by the spec.',
      fields: { 'version.graph.nodes': t.array, 'version.graph.edges': t.array },
      check: async (_data, c) => {
        const unbound = await call(c.mcp('owner'), 'gc_workflow_create', { name: 'x', graph: GRAPH });
        if (unbound.data.error !== 'no_project_selected') throw new Error('an unbound key should get error no_project_selected');
      },
    },
    { tool: 'gc_workflow_get', spec: 'gc_workflow_get; Workflow: graph object with nodes and edges lists', args: (c) => ({ workflow_id: c.fx.workflow_id }), key: 'project', fields: { 'version.graph.nodes': t.array, 'version.graph.edges': t.array } },
    { tool: 'gc_workflow_list', spec: 'gc_workflow_list', args: {}, key: 'project', note: 'The list container is not named by the spec.', fields: { workflows: t.array } },
    {
      tool: 'gc_workflow_save',
      spec: 'gc_workflow_save; saving creates a new version; byte-identical graph returns the current version',
      args: (c) => ({ workflow_id: c.fx.workflow_id, graph: GRAPH }),
      key: 'project',
      fields: { 'version.graph.nodes': t.array },
      check: async (data, c) => {
        if (data.current_version_id !== c.fx.workflow_version_id) throw new Error('a byte-identical graph should return the current version');
        const changed = { ...GRAPH, nodes: [GRAPH.nodes[0], { ...GRAPH.nodes[1], params: { prompt: 'Other: {{nodes.squeeze.text}}' } }] };
        const saved = await c.tool('gc_workflow_save', { workflow_id: c.fx.workflow_id, graph: changed }, 'project');
        if (saved.current_version_id === c.fx.workflow_version_id) throw new Error('a different graph should create a new version');
      },
    },
    {
      tool: 'gc_run_from_workflow',
      spec: "gc_run_from_workflow (returns run id immediately; spends the customer's provider balance)",
      args: (c) => ({ workflow_id: c.fx.workflow_id }),
      key: 'project',
      // "run id" -> run_id
      fields: { run_id: t.uuid },
      check: async (_data, c) => {
        const nodes = Array.from({ length: 11 }, (_, i) => ({ id: `l${i}`, type: 'llm', params: { prompt: 'hi' } }));
        const wf = await c.tool('gc_workflow_create', { name: 'contract-eleven', graph: { nodes } }, 'project');
        const r = await call(c.mcp('project'), 'gc_run_from_workflow', { workflow_id: wf.workflow_id });
        if (!r.isError) throw new Error('a run of more than 10 provider calls should be refused');
      },
    },
    { tool: 'gc_run_status', spec: 'gc_run_status', args: (c) => ({ run_id: c.fx.run_id }), key: 'project', note: 'Fields not shown by the spec.', fields: { run_id: t.uuid, status: t.enum('queued', 'running', 'succeeded', 'failed', 'cancelled'), nodes: t.array } },
    { tool: 'gc_run_list', spec: 'gc_run_list', args: {}, key: 'project', note: 'The list container is not named by the spec.', fields: { 'runs[].run_id': t.uuid } },
    { tool: 'gc_run_cancel', spec: 'gc_run_cancel', outsideSpec: 'cancels a run: the issue asks for cancellation and the spec names no tool for it', args: (c) => ({ run_id: c.fx.run_id }), key: 'project', fields: { run_id: t.uuid } },
    { tool: 'gc_provider_set', spec: 'gc_provider_set', outsideSpec: "registers the customer's LLM provider and key that gc_run_from_workflow spends the balance of", args: { name: 'contract-local', api: 'local' }, key: 'project', fields: { name: t.const('contract-local'), has_key: t.boolean } },
    { tool: 'gc_provider_list', spec: 'gc_provider_list', outsideSpec: "lists the project's LLM providers (never their keys)", args: {}, key: 'project', fields: { providers: t.array } },
    {
      tool: 'gc_provider_delete',
      spec: 'gc_provider_delete',
      outsideSpec: 'removes a provider and its stored key',
      args: async (c) => {
        await c.tool('gc_provider_set', { name: 'contract-delete', api: 'local' }, 'project');
        return { name: 'contract-delete' };
      },
      key: 'project',
      fields: { deleted: t.const(true) },
    },
  ],
} satisfies ContractFile;

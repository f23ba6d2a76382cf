// Spec: "Tool catalogue > Pro tools > platform: workflows and runs", the Workflow record ("graph object
// with nodes and edges lists; saving creates a new version; byte-identical graph returns the current
// version") and the Limits row ("up to 100 nodes saved; a single run submits at most 10 provider calls").
// The provider tools are how a customer registers the provider runs spend the balance of: outside the spec.
import { t, type ContractFile } from '../contract.js';

const GRAPH = {
  nodes: [
    { id: 'squeeze', type: 'compress', params: { text: 'Retries use exponential back-off with jitter. The pool answers 503 when it is saturated.', fidelity: 'balanced' } },
    { id: 'ask', type: 'llm', params: { prompt: 'Summarise: {{nodes.squeeze.text}}', max_tokens: 64 } },
  ],
  edges: [{ from: 'squeeze', to: 'ask' }],
};

export default {
  area: 'MCP tools: platform: workflows and runs',
  setup: async (c) => {
    const wf = await c.tool('gc_workflow_create', { name: 'contract-workflow', graph: GRAPH }, 'project');
    c.fx.workflow_id = wf.workflow_id;
    c.fx.workflow_version_id = wf.current_version_id;
    c.fx.run_id = (await c.tool('gc_run_from_workflow', { workflow_id: wf.workflow_id }, 'project')).run_id;
  },
  tools: [
    {
      tool: 'gc_workflow_create',
      spec: 'gc_workflow_create; Workflow: graph object with nodes and edges lists',
      args: { name: 'contract-create', graph: GRAPH },
      key: 'project',
      note: 'Field names other than the graph are not shown by the spec.',
      fields: { 'version.graph.nodes': t.array, 'version.graph.edges': t.array },
      check: async (_data, c) => {
        const unbound = await c.mcp('owner').callTool({ name: 'gc_workflow_create', arguments: { name: 'x', graph: GRAPH } });
        if ((unbound.structuredContent as { error?: string } | undefined)?.error !== 'no_project_selected') throw new Error('an unbound key should get error no_project_selected');
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
        const r = await c.mcp('project').callTool({ name: 'gc_run_from_workflow', arguments: { workflow_id: wf.workflow_id } });
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

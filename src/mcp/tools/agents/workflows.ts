import { z } from 'zod';
import { DomainError, invalidInput } from '../../../domain/errors.js';
import { resolveProject } from '../../../domain/knowledge/items.js';
import { graphShape, MAX_NODES } from '../../../domain/workflows/graph.js';
import { deleteProvider, listProviders, PROVIDER_APIS, providerResponse, setProvider } from '../../../domain/workflows/providers.js';
import { cancelRun, createRun, getRun, listRuns, runNodes, runResponse, runSummary, RUN_STATES } from '../../../domain/workflows/runs.js';
import { createWorkflow, getWorkflow, getWorkflowVersion, listWorkflows, saveWorkflow, workflowResponse } from '../../../domain/workflows/workflows.js';
import { defineTool, type ToolContext } from '../../tool.js';
import { anyObject, int } from '../outputs.js';

const provider = z.looseObject({ name: z.string(), api: z.enum(PROVIDER_APIS), base_url: z.string().nullable(), default_model: z.string().nullable(), has_key: z.boolean() });
/** workflowResponse: version (with its graph) unless listed. */
const workflow = z.looseObject({
  workflow_id: z.string(),
  project_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  current_version_id: z.string().nullable(),
  version_number: int.nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  version: z.looseObject({ version_id: z.string(), number: int, graph: z.looseObject({ nodes: z.array(anyObject), edges: z.array(anyObject) }), graph_hash: z.string() }).optional(),
});
const tokens = z.looseObject({ input: int, output: int });
/** runSummary; gc_run_status adds inputs and nodes. */
const run = z.looseObject({
  run_id: z.string(),
  workflow_id: z.string(),
  version_id: z.string(),
  status: z.enum(RUN_STATES),
  error: z.string().nullable(),
  provider_calls: int,
  tokens,
  cost_usd: z.number(),
  created_at: z.string().nullable(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
});

/** The key's project (needsProject guarantees one is bound); it must still be the caller's. */
export async function boundProject(ctx: ToolContext): Promise<string> {
  const project = await resolveProject(ctx.services.db, ctx.principal, ctx.principal.projectId!).catch(() => null);
  if (!project) throw new DomainError('forbidden', 'The project this key is bound to no longer exists', { code: 'no_project_selected' });
  return project.id;
}

const workflowId = z.string().max(100).describe('workflow_id returned by gc_workflow_create or gc_workflow_list');
const runId = z.string().max(100).describe('run_id returned by gc_run_from_workflow');
const providerName = z.string().trim().min(1).max(64).regex(/^[A-Za-z0-9_.-]+$/);
const graph = graphShape.describe(
  `The graph: {nodes: [{id, type, params}], edges: [{from, to}]}, a DAG of up to ${MAX_NODES} nodes. Types: kb_query {query, limit}, compress {fidelity, query?, text?}, llm {prompt, system?, provider, model?, max_tokens, temperature?, stream}, tool {tool, arguments} (an MCP tool called as your key). Text params may use {{input.NAME}} and {{nodes.ID.text}}.`,
);

export const workflowTools = [
  defineTool({
    name: 'gc_provider_set',
    output: provider.extend({ created: z.boolean() }),
    scope: 'mcp:write',
    needsProject: true,
    description:
      "Registers the project's LLM provider that workflow llm nodes call (and spend the balance of): api openai (any OpenAI-compatible server: OpenAI, vLLM, llama.cpp, Ollama), anthropic, or local (this server's local provider). The api_key is stored encrypted and never returned.",
    input: z
      .object({
        name: providerName.default('default').describe('Nodes pick a provider by name; default: "default"'),
        api: z.enum(PROVIDER_APIS),
        base_url: z.string().max(2048).optional().describe('OpenAI-compatible: up to /v1; Anthropic: the host. Default: the vendor\'s public API'),
        api_key: z.string().min(1).max(4096).optional(),
        default_model: z.string().min(1).max(200).optional(),
      })
      .strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      const { row, created } = await setProvider(ctx.services, ctx.principal, project, args);
      return { result: { ...providerResponse(row), created } };
    },
  }),
  defineTool({
    name: 'gc_provider_list',
    output: z.looseObject({ providers: z.array(provider), local_provider_available: z.boolean() }),
    scope: 'mcp:read',
    needsProject: true,
    readOnly: true,
    description: "The project's LLM providers (api, base_url, default_model, has_key; never the key), and whether the local provider runs here.",
    input: z.object({}).strict(),
    async handler(_args, ctx) {
      const project = await boundProject(ctx);
      const rows = await listProviders(ctx.services.db, project);
      return { result: { providers: rows.map(providerResponse), local_provider_available: ctx.services.llm.localBaseUrl !== null } };
    },
  }),
  defineTool({
    name: 'gc_provider_delete',
    output: z.looseObject({ name: z.string(), deleted: z.literal(true) }),
    scope: 'mcp:write',
    needsProject: true,
    description: 'Removes a provider of the project, its stored key with it.',
    input: z.object({ name: providerName }).strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      await deleteProvider(ctx.services.db, project, args.name);
      return { result: { name: args.name, deleted: true } };
    },
  }),
  defineTool({
    name: 'gc_workflow_create',
    output: workflow,
    scope: 'mcp:write',
    needsProject: true,
    description: 'Creates a workflow in the key\'s project from a validated graph (version 1).',
    input: z.object({ name: z.string().trim().min(1).max(200), description: z.string().max(2000).optional(), graph }).strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      const { workflow, version } = await ctx.services.db.transaction((tx) => createWorkflow(tx, ctx.principal, project, args, ctx.services.runs.tools));
      return { result: workflowResponse(workflow, version) };
    },
  }),
  defineTool({
    name: 'gc_workflow_get',
    output: workflow,
    scope: 'mcp:read',
    needsProject: true,
    readOnly: true,
    description: 'A workflow with the graph of its current version (or of version_id).',
    input: z.object({ workflow_id: workflowId, version_id: z.string().max(100).optional() }).strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      const w = await getWorkflow(ctx.services.db, project, args.workflow_id);
      const v = await getWorkflowVersion(ctx.services.db, w.id, args.version_id ?? w.current_version_id!);
      return { result: workflowResponse(w, v) };
    },
  }),
  defineTool({
    name: 'gc_workflow_list',
    output: z.looseObject({ workflows: z.array(workflow), next_cursor: z.string().nullable() }),
    scope: 'mcp:read',
    needsProject: true,
    readOnly: true,
    description: "The project's workflows, newest first (limit 1-200, opaque cursor).",
    input: z.object({ limit: z.number().int().min(1).max(200).default(50), cursor: z.string().max(500).optional() }).strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      const page = await listWorkflows(ctx.services.db, project, { limit: args.limit, cursor: args.cursor ?? null });
      if (!page) throw invalidInput('invalid cursor', [{ loc: ['cursor'], msg: 'invalid cursor', type: 'value_error.cursor' }]);
      return { result: { workflows: page.workflows.map((w) => workflowResponse(w, null)), next_cursor: page.nextCursor } };
    },
  }),
  defineTool({
    name: 'gc_workflow_save',
    output: workflow.extend({ created: z.boolean() }),
    scope: 'mcp:write',
    needsProject: true,
    description:
      'Saves a new graph as a new version; the same graph as the current version returns the current version (created false). With base_version_id, a stale base returns stale_base with current_version_id.',
    input: z
      .object({
        workflow_id: workflowId,
        graph,
        base_version_id: z.string().max(100).optional(),
        name: z.string().trim().min(1).max(200).optional(),
        description: z.string().max(2000).nullable().optional(),
      })
      .strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      const out = await ctx.services.db.transaction((tx) =>
        saveWorkflow(tx, ctx.principal, project, args.workflow_id, { graph: args.graph, baseVersionId: args.base_version_id, name: args.name, description: args.description }, ctx.services.runs.tools),
      );
      return { result: { ...workflowResponse(out.workflow, out.version), created: out.created } };
    },
  }),
  defineTool({
    name: 'gc_run_from_workflow',
    output: run,
    // llm nodes call the project's LLM provider.
    hints: { openWorldHint: true },
    scope: 'mcp:write',
    needsProject: true,
    description:
      "Starts a run of a workflow (current version, or version_id) and returns its run_id at once; it executes in the background (llm nodes call the project's provider and spend its balance; at most 10 provider calls). Follow it with gc_run_status.",
    input: z
      .object({
        workflow_id: workflowId,
        version_id: z.string().max(100).optional(),
        inputs: z.record(z.string(), z.unknown()).optional().describe('Values for {{input.NAME}} in node parameters'),
      })
      .strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      const run = await ctx.services.db.transaction((tx) =>
        createRun(tx, ctx.principal, project, args.workflow_id, { versionId: args.version_id, inputs: args.inputs }),
      );
      ctx.services.runs.kick();
      return { result: runSummary(run) };
    },
  }),
  defineTool({
    name: 'gc_run_status',
    output: run.extend({ inputs: z.unknown(), nodes: z.array(z.looseObject({ node_id: z.string(), type: z.string(), status: z.string(), output: z.unknown(), error: z.string().nullable(), tokens })) }),
    scope: 'mcp:read',
    needsProject: true,
    readOnly: true,
    description: "A run's state (queued, running, succeeded, failed, cancelled) with every node's state, output, tokens, cost and error.",
    input: z.object({ run_id: runId }).strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      const run = await getRun(ctx.services.db, project, args.run_id);
      return { result: runResponse(run, await runNodes(ctx.services.db, run.id)) };
    },
  }),
  defineTool({
    name: 'gc_run_list',
    output: z.looseObject({ runs: z.array(run), total: int }),
    scope: 'mcp:read',
    needsProject: true,
    readOnly: true,
    description: "The project's runs, newest first, optionally of one workflow or in one state.",
    input: z
      .object({ workflow_id: workflowId.optional(), status: z.enum(RUN_STATES).optional(), limit: z.number().int().min(1).max(200).default(50) })
      .strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      const runs = await listRuns(ctx.services.db, project, { workflowId: args.workflow_id, status: args.status, limit: args.limit });
      return { result: { runs: runs.map(runSummary), total: runs.length } };
    },
  }),
  defineTool({
    name: 'gc_run_cancel',
    output: run,
    scope: 'mcp:write',
    needsProject: true,
    description: 'Cancels a run: a queued run ends cancelled at once; a running one stops within about a second (the node in flight is aborted). A finished run is returned unchanged.',
    input: z.object({ run_id: runId }).strict(),
    async handler(args, ctx) {
      const project = await boundProject(ctx);
      const run = await ctx.services.db.transaction((tx) => cancelRun(tx, project, args.run_id));
      return { result: runSummary(run) };
    },
  }),
];

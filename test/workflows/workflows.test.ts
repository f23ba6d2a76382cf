// Workflows, runs and providers over the official MCP SDK client: every tool and every error, the
// issue's three-node run (kb_query → compress → llm) against the local provider with tokens and cost,
// customers' providers with their own keys (stored sealed, never returned, never logged), cancellation,
// failing nodes, the provider-call limit, another user's resources.
import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalLlmServer } from '../../src/providers/llm/localServer.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND } from '../helpers/server.js';
import { waitFor } from '../helpers/waitFor.js';
import { DOCS, makeTenant } from '../kb/helpers.js';
import { startCapturingServer, threeNodeGraph, waitForRun, type CapturingServer } from './helpers.js';

const CUSTOMER_KEY = `sk-cust-${randomBytes(20).toString('hex')}`;
const WRONG_KEY = `sk-wrong-${randomBytes(20).toString('hex')}`;
let server: CapturingServer;
/** The customer's own provider (an OpenAI- and Anthropic-compatible server that demands their key). */
let provider: LocalLlmServer;
let t: Awaited<ReturnType<typeof makeTenant>>;
let other: Awaited<ReturnType<typeof makeTenant>>;
let a: Client;
let b: Client;
let unbound: Client;
let intruder: Client;

beforeAll(async () => {
  provider = new LocalLlmServer({ requiredKey: CUSTOMER_KEY, recordKeys: true });
  await provider.start();
  const hostPort = new URL(provider.url).host;
  server = await startCapturingServer({});
  // The customer's provider is on loopback: the operator allows it (LLM_ALLOWED_HOSTS), as for a private vLLM.
  server.app.services.config.llm.allowedHosts.push(hostPort);
  const asTest = { app: server.app, url: server.url } as never;
  t = await makeTenant(asTest);
  other = await makeTenant(asTest);
  a = await connectMcp(server.url, t.keyA);
  b = await connectMcp(server.url, t.keyB);
  unbound = await connectMcp(server.url, t.unbound);
  intruder = await connectMcp(server.url, other.keyA);
});
afterAll(async () => {
  await Promise.allSettled([a?.close(), b?.close(), unbound?.close(), intruder?.close()]);
  await server?.close();
  await provider?.stop();
});

const TOOLS = [
  'gc_provider_set', 'gc_provider_list', 'gc_provider_delete', 'gc_workflow_create', 'gc_workflow_get', 'gc_workflow_list',
  'gc_workflow_save', 'gc_run_from_workflow', 'gc_run_status', 'gc_run_list', 'gc_run_cancel',
];

describe(`workflows and runs over MCP (${DB_KIND})`, () => {
  it('every tool needs a project-bound key: no_project_selected', async () => {
    for (const name of TOOLS) {
      const r = await call(unbound, name, { workflow_id: 'x', run_id: 'x', name: 'x', api: 'local', graph: threeNodeGraph() });
      expect(r.isError, name).toBe(true);
      expect(r.data.error, name).toBe('no_project_selected');
    }
  });

  it('tools are listed, plan pro', async () => {
    const platform = await connectMcp(`${server.url}/mcp?toolsets=platform#`, t.keyA);
    try {
      const listed = (await platform.listTools()).tools;
      for (const name of TOOLS) {
        const tool = listed.find((x) => x.name === name);
        expect(tool, name).toBeDefined();
        expect(tool!.description, name).toMatch(/\[plan:pro\]$/);
      }
    } finally {
      await platform.close();
    }
    const free = await makeTenant({ app: server.app, url: server.url } as never, 'free');
    const f = await connectMcp(server.url, free.keyA);
    try {
      expect((await call(f, 'gc_workflow_list', {})).data.error).toBe('plan_required');
    } finally {
      await f.close();
    }
  });

  it('workflow create, get, list, save: versions, identical graph keeps the version, stale_base', async () => {
    const g = threeNodeGraph();
    const created = await call(a, 'gc_workflow_create', { name: 'answer from kb', description: 'kb → compress → llm', graph: g });
    expect(created.isError, JSON.stringify(created.data)).toBe(false);
    const id = created.data.workflow_id;
    const v1 = created.data.current_version_id;
    expect(created.data.version.number).toBe(1);
    // Defaults are applied and stored: compress keeps its fidelity, llm gets provider default, stream true.
    expect(created.data.version.graph.nodes[2].params).toMatchObject({ provider: 'default', stream: true, max_tokens: 200 });

    const got = await call(b, 'gc_workflow_get', { workflow_id: id });
    expect(got.data).toMatchObject({ workflow_id: id, name: 'answer from kb', current_version_id: v1, version_number: 1 });
    expect(got.data.version.graph.edges).toEqual(g.edges);

    const same = await call(a, 'gc_workflow_save', { workflow_id: id, graph: structuredClone(g) });
    expect(same.data).toMatchObject({ created: false, current_version_id: v1 });
    expect(same.data.version.version_id).toBe(v1);
    // Key order does not make a different graph.
    const reordered = { edges: g.edges, nodes: g.nodes.map((n) => ({ params: n.params, type: n.type, id: n.id })) };
    expect((await call(a, 'gc_workflow_save', { workflow_id: id, graph: reordered })).data.created).toBe(false);

    const g2 = structuredClone(g);
    g2.nodes[1]!.params = { fidelity: 'balanced' } as never;
    const saved = await call(a, 'gc_workflow_save', { workflow_id: id, graph: g2, base_version_id: v1 });
    expect(saved.data).toMatchObject({ created: true, version_number: 2 });
    const v2 = saved.data.current_version_id;
    expect(v2).not.toBe(v1);
    const stale = await call(a, 'gc_workflow_save', { workflow_id: id, graph: g, base_version_id: v1 });
    expect(stale.isError).toBe(true);
    expect(stale.data).toMatchObject({ error: 'stale_base', current_version_id: v2 });

    const old = await call(a, 'gc_workflow_get', { workflow_id: id, version_id: v1 });
    expect(old.data.version).toMatchObject({ version_id: v1, number: 1 });
    expect(old.data.current_version_id).toBe(v2);

    const list = await call(a, 'gc_workflow_list', { limit: 200 });
    expect(list.data.workflows.map((w: { workflow_id: string }) => w.workflow_id)).toContain(id);
    expect((await call(a, 'gc_workflow_list', { cursor: 'garbage' })).data.error).toBe('validation_error');
    expect((await call(a, 'gc_workflow_get', { workflow_id: '00000000-0000-4000-8000-000000000000' })).data.error).toBe('not_found');
    expect((await call(a, 'gc_workflow_get', { workflow_id: 'not-a-uuid' })).data.error).toBe('not_found');
  });

  it('graphs are validated: DAG, known node types, parameters, edges, templates, size', async () => {
    const bad = async (graph: unknown) => {
      const r = await call(a, 'gc_workflow_create', { name: 'bad', graph });
      expect(r.isError).toBe(true);
      expect(r.data.error).toBe('validation_error');
      return r.data.issues as { loc: (string | number)[]; msg: string; type: string }[];
    };
    const cycle = await bad({ nodes: [{ id: 'x', type: 'compress' }, { id: 'y', type: 'compress' }], edges: [{ from: 'x', to: 'y' }, { from: 'y', to: 'x' }] });
    expect(cycle[0]).toMatchObject({ type: 'value_error.cycle' });
    expect((await bad({ nodes: [{ id: 'x', type: 'compress' }], edges: [{ from: 'x', to: 'x' }] }))[0]!.type).toBe('value_error.cycle');
    const unknown = await bad({ nodes: [{ id: 'x', type: 'shell', params: {} }], edges: [] });
    expect(unknown[0]).toMatchObject({ loc: ['graph', 'nodes', 0, 'type'], type: 'value_error.node_type' });
    expect(unknown[0]!.msg).toMatch(/kb_query, compress, llm, tool/);
    const params = await bad({ nodes: [{ id: 'x', type: 'compress', params: { fidelity: 'tiny' } }, { id: 'q', type: 'kb_query', params: {} }, { id: 'l', type: 'llm', params: { prompt: 'p', max_tokens: 0, evil: 1 } }] });
    expect(params.map((i) => i.loc.join('.'))).toEqual(expect.arrayContaining(['graph.nodes.0.params.fidelity', 'graph.nodes.1.params.query', 'graph.nodes.2.params.max_tokens', 'graph.nodes.2.params']));
    const edge = await bad({ nodes: [{ id: 'x', type: 'compress' }], edges: [{ from: 'x', to: 'nowhere' }] });
    expect(edge[0]).toMatchObject({ loc: ['graph', 'edges', 0, 'to'], type: 'value_error.unknown_node' });
    const dup = await bad({ nodes: [{ id: 'x', type: 'compress' }, { id: 'x', type: 'compress' }] });
    expect(dup[0]!.type).toBe('value_error.duplicate');
    const tmpl = await bad({ nodes: [{ id: 'x', type: 'compress' }, { id: 'y', type: 'llm', params: { prompt: '{{nodes.x.text}}' } }], edges: [] });
    expect(tmpl[0]!.type).toBe('value_error.template');
    const big = await bad({ nodes: Array.from({ length: 101 }, (_, i) => ({ id: `n${i}`, type: 'compress' })) });
    expect(big[0]!.loc).toEqual(['graph', 'nodes']);
    expect((await bad({ nodes: [] }))[0]!.loc).toEqual(['graph', 'nodes']);
  });

  it('the issue\'s three-node run (kb_query → compress → llm) completes against the local provider with tokens and cost', async () => {
    const ing = await call(a, 'gc_kb_ingest', { name: 'Postgres tuning', content: DOCS.postgres });
    expect(ing.isError).toBe(false);
    await server.app.services.knowledge.idle();
    const wf = await call(a, 'gc_workflow_create', { name: 'three nodes', graph: threeNodeGraph() });
    // The run id answers without waiting for the run: with the executor stopped, nothing can run it,
    // yet the call answers queued (it would hang if it waited for the run).
    const exec = server.app.services.runs;
    await exec.close();
    let run: Awaited<ReturnType<typeof call>>;
    try {
      run = await call(a, 'gc_run_from_workflow', { workflow_id: wf.data.workflow_id, inputs: { question: 'How should connection pooling be set up?' } });
      expect(run.isError, JSON.stringify(run.data)).toBe(false);
      expect(run.data.status).toBe('queued');
      expect((await waitForRun(a, run.data.run_id, 1000, () => true)).status).toBe('queued');
    } finally {
      exec.start(server.app.services);
    }
    const done = await waitForRun(a, run.data.run_id);
    expect(done.status, JSON.stringify(done)).toBe('succeeded');
    const [search, squeeze, answer] = done.nodes;
    expect(search).toMatchObject({ node_id: 'search', type: 'kb_query', status: 'succeeded' });
    expect(search.output.count).toBeGreaterThan(0);
    expect(search.output.text).toMatch(/PgBouncer/);
    expect(squeeze).toMatchObject({ node_id: 'squeeze', type: 'compress', status: 'succeeded' });
    expect(squeeze.output.original_tokens).toBeGreaterThan(squeeze.output.compressed_tokens);
    expect(answer).toMatchObject({ node_id: 'answer', type: 'llm', status: 'succeeded', attempts: 1 });
    expect(answer.output).toMatchObject({ provider: 'default', api: 'local', model: 'gc-local', usage_reported: true });
    expect(answer.output.text).toMatch(/^\[gc-local\] Read \d+ words/);
    expect(answer.output.text).toContain('Answer the question How should connection pooling');
    expect(answer.tokens.input).toBeGreaterThan(0);
    expect(answer.tokens.output).toBeGreaterThan(0);
    // gc-local's nominal price: $1 / $2 per million tokens → micro-dollars = input × 1 + output × 2.
    expect(answer.cost_micros).toBe(answer.tokens.input * 1 + answer.tokens.output * 2);
    expect(done.tokens).toEqual(answer.tokens);
    expect(done.cost_micros).toBe(answer.cost_micros);
    expect(done.provider_calls).toBe(1);
    expect(done).toMatchObject({ attempts: 1, error: null });
    expect(done.finished_at).not.toBeNull();

    const runs = await call(b, 'gc_run_list', { workflow_id: wf.data.workflow_id });
    expect(runs.data.runs.map((r: { run_id: string }) => r.run_id)).toEqual([run.data.run_id]);
    expect((await call(b, 'gc_run_list', { status: 'failed' })).data.runs.some((r: { run_id: string }) => r.run_id === run.data.run_id)).toBe(false);
    // The compress node is metered like any compression: a usage event of the run's key.
    const events = await server.app.services.db.query<{ n: number }>(`select count(*)::int as n from usage_events where tool_name = 'gc_run_from_workflow' and status = 'success'`);
    expect(events[0]!.n).toBeGreaterThanOrEqual(2);
  });

  it('a customer\'s own provider (OpenAI-compatible and Anthropic) gets their key; the key is never returned', async () => {
    const set = await call(a, 'gc_provider_set', { name: 'mine', api: 'openai', base_url: provider.openAiBaseUrl, api_key: CUSTOMER_KEY, default_model: 'gc-local' });
    expect(set.isError, JSON.stringify(set.data)).toBe(false);
    expect(set.data).toMatchObject({ name: 'mine', api: 'openai', has_key: true, created: true });
    expect(JSON.stringify(set.data)).not.toContain(CUSTOMER_KEY);
    const anth = await call(a, 'gc_provider_set', { name: 'claude', api: 'anthropic', base_url: provider.url, api_key: CUSTOMER_KEY, default_model: 'gc-local' });
    expect(anth.data).toMatchObject({ api: 'anthropic', has_key: true });
    const list = await call(b, 'gc_provider_list', {});
    expect(list.data.local_provider_available).toBe(true);
    expect(list.data.providers.map((p: { name: string }) => p.name)).toEqual(['claude', 'mine']);
    expect(JSON.stringify(list.data)).not.toContain(CUSTOMER_KEY);

    const graph = {
      nodes: [
        { id: 'o', type: 'llm', params: { provider: 'mine', prompt: 'Say hello to {{input.name}}', stream: false } },
        { id: 'c', type: 'llm', params: { provider: 'claude', prompt: 'Summarise: {{nodes.o.text}}' } },
      ],
      edges: [{ from: 'o', to: 'c' }],
    };
    const wf = await call(a, 'gc_workflow_create', { name: 'own providers', graph });
    const seenBefore = provider.calls.length;
    const run = await call(a, 'gc_run_from_workflow', { workflow_id: wf.data.workflow_id, inputs: { name: 'Ada' } });
    const done = await waitForRun(a, run.data.run_id);
    expect(done.status, JSON.stringify(done)).toBe('succeeded');
    expect(done.nodes[0].output).toMatchObject({ provider: 'mine', api: 'openai', model: 'gc-local' });
    expect(done.nodes[0].output.text).toContain('Say hello to Ada');
    expect(done.nodes[1].output).toMatchObject({ provider: 'claude', api: 'anthropic' });
    // A model priced under another api than the provider's is not guessed: cost unknown (null), tokens still recorded.
    expect(done.nodes[0].cost_micros).toBeNull();
    expect(done.nodes[0].tokens.input).toBeGreaterThan(0);
    expect(provider.calls.slice(seenBefore)).toEqual(['POST /v1/chat/completions 200', 'POST /v1/messages 200']);
    expect(provider.keysSeen.has(CUSTOMER_KEY)).toBe(true);
    expect(done.provider_calls).toBe(2);
  });

  it('a failing node fails the run with its error (wrong key: provider auth, not retried, key not echoed)', async () => {
    await call(a, 'gc_provider_set', { name: 'wrong', api: 'openai', base_url: provider.openAiBaseUrl, api_key: WRONG_KEY, default_model: 'gc-local' });
    const wf = await call(a, 'gc_workflow_create', {
      name: 'fails',
      graph: { nodes: [{ id: 'c', type: 'compress', params: { text: DOCS.rockets } }, { id: 'l', type: 'llm', params: { provider: 'wrong', prompt: 'x' } }, { id: 'after', type: 'compress' }], edges: [{ from: 'c', to: 'l' }, { from: 'l', to: 'after' }] },
    });
    const run = await call(a, 'gc_run_from_workflow', { workflow_id: wf.data.workflow_id });
    const done = await waitForRun(a, run.data.run_id);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/^node l \(llm\) failed: provider auth \(401\) after 1 attempt/);
    expect(done.nodes.map((n: { status: string }) => n.status)).toEqual(['succeeded', 'failed', 'skipped']);
    expect(done.nodes[1].error).toMatch(/Incorrect API key/);
    expect(JSON.stringify(done)).not.toContain(WRONG_KEY);

    const missing = await call(a, 'gc_workflow_create', { name: 'no provider', graph: { nodes: [{ id: 'l', type: 'llm', params: { provider: 'nope', prompt: 'x' } }] } });
    const r2 = await waitForRun(a, (await call(a, 'gc_run_from_workflow', { workflow_id: missing.data.workflow_id })).data.run_id);
    expect(r2.status).toBe('failed');
    expect(r2.error).toMatch(/No LLM provider 'nope' is registered/);
  });

  it('provider errors: refused base URLs, unknown provider, key storage needs PROVIDER_KEY_SECRET', async () => {
    for (const base_url of ['http://api.example.com/v1', 'https://127.0.0.1/v1', 'https://10.1.2.3/v1', 'https://169.254.169.254/v1', 'https://user:pw@api.example.com/v1', 'not a url']) {
      const r = await call(a, 'gc_provider_set', { name: 'x', api: 'openai', base_url, api_key: 'sk-abcdefgh' });
      expect(r.isError, base_url).toBe(true);
      expect(r.data.error, base_url).toMatch(/fetch_refused|invalid_request/);
    }
    expect((await call(a, 'gc_provider_set', { name: 'x', api: 'local', api_key: 'sk-abcdefgh' })).data.error).toBe('invalid_request');
    expect((await call(a, 'gc_provider_delete', { name: 'never' })).data.error).toBe('not_found');
    expect((await call(a, 'gc_provider_set', { name: 'bad name!', api: 'local' })).data.error).toBe('validation_error');
    const l = await call(a, 'gc_provider_set', { name: 'loc', api: 'local' });
    expect(l.data).toMatchObject({ api: 'local', has_key: false, base_url: null });
    expect((await call(a, 'gc_provider_delete', { name: 'loc' })).data).toEqual({ name: 'loc', deleted: true });

    const box = server.app.services.llm.box;
    (server.app.services.llm as { box: unknown }).box = null; // as a server without PROVIDER_KEY_SECRET
    try {
      const r = await call(a, 'gc_provider_set', { name: 'nokey', api: 'openai', base_url: provider.openAiBaseUrl, api_key: CUSTOMER_KEY });
      expect(r.data.error).toBe('key_storage_not_configured');
      const rows = await server.app.services.db.query(`select * from llm_providers where name = 'nokey'`);
      expect(rows).toHaveLength(0);
    } finally {
      (server.app.services.llm as { box: unknown }).box = box;
    }
  });

  it('cancellation: a running run stops within a heartbeat, a queued one at once; finished runs stay', async () => {
    // The provider would answer after ten minutes, longer than the test may run: only the cancel can end the run.
    const wf = await call(a, 'gc_workflow_create', {
      name: 'slow',
      graph: { nodes: [{ id: 'slow', type: 'llm', params: { prompt: 'take your time', model: 'gc-local:delay=600000' } }, { id: 'next', type: 'compress' }], edges: [{ from: 'slow', to: 'next' }] },
    });
    const run = await call(a, 'gc_run_from_workflow', { workflow_id: wf.data.workflow_id });
    await waitForRun(a, run.data.run_id, 10_000, (s) => s.nodes[0].status === 'running');
    const c = await call(b, 'gc_run_cancel', { run_id: run.data.run_id });
    expect(c.data).toMatchObject({ status: 'running', cancel_requested: true });
    const done = await waitForRun(a, run.data.run_id);
    expect(done.status).toBe('cancelled');
    expect(done.nodes.map((n: { status: string }) => n.status)).toEqual(['cancelled', 'cancelled']);
    const again = await call(a, 'gc_run_cancel', { run_id: run.data.run_id });
    expect(again.data.status).toBe('cancelled');

    // Queued: stop the executor from claiming, queue, cancel, restart it.
    const exec = server.app.services.runs;
    await exec.close();
    try {
      const q = await call(a, 'gc_run_from_workflow', { workflow_id: wf.data.workflow_id });
      const cq = await call(a, 'gc_run_cancel', { run_id: q.data.run_id });
      expect(cq.data).toMatchObject({ status: 'cancelled', error: 'cancelled before it started' });
    } finally {
      exec.start(server.app.services);
    }
    expect((await call(a, 'gc_run_cancel', { run_id: '00000000-0000-4000-8000-000000000000' })).data.error).toBe('not_found');
  });

  it('tool nodes call a registered MCP tool as the run\'s key; unknown, refused and badly called tools are validation errors', async () => {
    const graph = {
      nodes: [
        { id: 'squeeze', type: 'compress', params: { text: DOCS.postgres, fidelity: 'outline' } },
        { id: 'count', type: 'tool', params: { tool: 'estimate_tokens', arguments: { text: '{{nodes.squeeze.text}}' } } },
        { id: 'store', type: 'tool', params: { tool: 'gc_kb_ingest', arguments: { name: '{{input.title}}', content: '{{nodes.squeeze.text}}' } } },
      ],
      edges: [{ from: 'squeeze', to: 'count' }, { from: 'squeeze', to: 'store' }],
    };
    const wf = await call(a, 'gc_workflow_create', { name: 'tools', graph });
    expect(wf.isError, JSON.stringify(wf.data)).toBe(false);
    const started = await call(a, 'gc_run_from_workflow', { workflow_id: wf.data.workflow_id, inputs: { title: 'Squeezed tuning notes' } });
    expect(started.isError, JSON.stringify(started.data)).toBe(false);
    const done = await waitForRun(a, started.data.run_id);
    expect(done.status, JSON.stringify(done)).toBe('succeeded');
    const [squeeze, count, store] = done.nodes;
    expect(count.output.tool).toBe('estimate_tokens');
    expect(count.output.result.accurate_tokens).toBe(squeeze.output.compressed_tokens);
    // The item was created in the run's project, as the run's key: another key of the project sees it.
    const item = await call(b, 'gc_kb_get', { item_id: store.output.result.item_id });
    expect(item.data).toMatchObject({ name: 'Squeezed tuning notes', content: squeeze.output.text });
    // Each tool call is metered as that tool's own call.
    const events = await server.app.services.db.query<{ n: number }>(`select count(*)::int as n from usage_events where tool_name in ('estimate_tokens', 'gc_kb_ingest') and client = 'workflow-run'`);
    expect(events[0]!.n).toBe(2);

    const bad = async (params: Record<string, unknown>) => {
      const r = await call(a, 'gc_workflow_create', { name: 'bad tool', graph: { nodes: [{ id: 't', type: 'tool', params }] } });
      expect(r.data.error).toBe('validation_error');
      return r.data.issues[0];
    };
    expect(await bad({ tool: 'no_such_tool' })).toMatchObject({ loc: ['graph', 'nodes', 0, 'params', 'tool'], type: 'value_error.tool' });
    for (const denied of ['gc_run_from_workflow', 'gc_provider_set', 'gc_mint_api_key', 'gc_plan_decide']) {
      expect((await bad({ tool: denied, arguments: {} })).msg, denied).toMatch(/cannot run inside a workflow/);
    }
    expect(await bad({ tool: 'estimate_tokens', arguments: { txt: 'x' } })).toMatchObject({ loc: ['graph', 'nodes', 0, 'params', 'arguments', 'text'] });

    // A tool-level error fails the node and the run with it.
    const missing = await call(a, 'gc_workflow_create', { name: 'missing item', graph: { nodes: [{ id: 'get', type: 'tool', params: { tool: 'gc_kb_get', arguments: { item_id: '{{input.id}}' } } }] } });
    const failed = await waitForRun(a, (await call(a, 'gc_run_from_workflow', { workflow_id: missing.data.workflow_id, inputs: { id: '00000000-0000-4000-8000-000000000000' } })).data.run_id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/^node get \(tool\) failed: invalid_request: tool gc_kb_get answered not_found/);
  });

  it('fenced by the lease: an executor that lost its run lets go without writing; the run is claimed again when the lease lapses', async () => {
    const db = server.app.services.db;
    const wf = await call(a, 'gc_workflow_create', { name: 'fenced', graph: { nodes: [{ id: 'slow', type: 'llm', params: { prompt: 'slow', model: 'gc-local:delay=4000' } }] } });
    const run = await call(a, 'gc_run_from_workflow', { workflow_id: wf.data.workflow_id });
    await waitForRun(a, run.data.run_id, 10_000, (s) => s.nodes[0].status === 'running');
    // Another instance takes the run over (as if this one had stalled past its lease).
    await db.query(`update workflow_runs set lease_owner = 'another-instance', lease_expires_at = now() + interval '1 hour' where id = $1`, [run.data.run_id]);
    await waitFor('the executor let the run go', () => server.app.services.runs.running === 0);
    const held = await waitForRun(a, run.data.run_id, 1000, () => true);
    expect(held).toMatchObject({ status: 'running', attempts: 1 });
    expect(held.nodes[0].status).toBe('running');
    // That instance dies: its lease lapses, this one claims the run and resolves it (the llm call is not repeated).
    await db.query(`update workflow_runs set lease_expires_at = now() - interval '1 second' where id = $1`, [run.data.run_id]);
    const done = await waitForRun(a, run.data.run_id, 10_000);
    expect(done).toMatchObject({ status: 'failed', attempts: 2 });
    expect(done.error).toMatch(/interrupted during its provider call/);
  });

  it('never running forever: a run claimed more than RUN_MAX_ATTEMPTS times fails as interrupted', async () => {
    const db = server.app.services.db;
    const wf = await call(a, 'gc_workflow_create', { name: 'crashy', graph: { nodes: [{ id: 'c', type: 'compress', params: { text: DOCS.rockets } }] } });
    const exec = server.app.services.runs;
    await exec.close();
    let runId: string;
    try {
      runId = (await call(a, 'gc_run_from_workflow', { workflow_id: wf.data.workflow_id })).data.run_id;
      // As if three processes in a row had died holding it.
      await db.query(
        `update workflow_runs set status = 'running', attempts = 3, lease_owner = 'dead', lease_expires_at = now() - interval '1 second' where id = $1`,
        [runId],
      );
      await db.query(`update workflow_run_nodes set status = 'running', attempts = 3 where run_id = $1`, [runId]);
    } finally {
      exec.start(server.app.services);
    }
    const done = await waitForRun(a, runId!, 10_000);
    expect(done).toMatchObject({ status: 'failed', attempts: 4 });
    expect(done.error).toMatch(/^interrupted: the run was claimed 4 times \(RUN_MAX_ATTEMPTS 3\)/);
    expect(done.nodes[0]).toMatchObject({ status: 'failed', error: done.error });
  });

  it('at most 10 provider calls per run: an 11-llm-node workflow is refused', async () => {
    const nodes = Array.from({ length: 11 }, (_, i) => ({ id: `l${i}`, type: 'llm', params: { prompt: 'hi' } }));
    const wf = await call(a, 'gc_workflow_create', { name: 'chatty', graph: { nodes } });
    expect(wf.isError).toBe(false);
    const r = await call(a, 'gc_run_from_workflow', { workflow_id: wf.data.workflow_id });
    expect(r.data).toMatchObject({ error: 'too_many_provider_calls' });
  });

  it("another user's workflows and runs are not_found; their providers are not listed", async () => {
    const wf = await call(a, 'gc_workflow_create', { name: 'private to a', graph: threeNodeGraph() });
    const run = await call(a, 'gc_run_from_workflow', { workflow_id: wf.data.workflow_id, inputs: { question: 'vacuum?' } });
    const id = wf.data.workflow_id;
    for (const [tool, args] of [
      ['gc_workflow_get', { workflow_id: id }],
      ['gc_workflow_save', { workflow_id: id, graph: threeNodeGraph() }],
      ['gc_run_from_workflow', { workflow_id: id }],
      ['gc_run_status', { run_id: run.data.run_id }],
      ['gc_run_cancel', { run_id: run.data.run_id }],
    ] as const) {
      const r = await call(intruder, tool, args);
      expect(r.data.error, tool).toBe('not_found');
    }
    expect((await call(intruder, 'gc_workflow_list', {})).data.workflows).toEqual([]);
    expect((await call(intruder, 'gc_run_list', {})).data.runs).toEqual([]);
    expect((await call(intruder, 'gc_run_list', { workflow_id: id })).data.error).toBe('not_found');
    expect((await call(intruder, 'gc_provider_list', {})).data.providers).toEqual([]);
    await waitForRun(a, run.data.run_id);
  });

  it('the customer\'s key is in no log line and in no table in plain text', async () => {
    await server.app.services.background.drain();
    const logs = server.logs.join('\n');
    expect(logs).toContain('run finished');
    const tables = await server.app.services.db.query<{ table_name: string }>("select table_name from information_schema.tables where table_schema = 'public'");
    let dump = '';
    for (const { table_name } of tables) {
      const rows = await server.app.services.db.query<{ row: string }>(`select row_to_json(t)::text as row from "${table_name}" t`);
      dump += rows.map((r) => r.row).join('\n');
    }
    // The keys are there, sealed (AES-256-GCM: v1.<nonce>.<tag>.<ciphertext>).
    const sealed = await server.app.services.db.query<{ key_sealed: string }>(`select key_sealed from llm_providers where key_sealed is not null`);
    expect(sealed.length).toBeGreaterThanOrEqual(3);
    for (const { key_sealed } of sealed) expect(key_sealed).toMatch(/^v1\.[\w-]{16}\.[\w-]{22}\.[\w-]+$/);
    for (const secret of [CUSTOMER_KEY, WRONG_KEY]) {
      expect(logs).not.toContain(secret);
      expect(dump).not.toContain(secret);
      // Nor any long piece of it.
      expect(dump).not.toContain(secret.slice(8, 40));
    }
  });
});

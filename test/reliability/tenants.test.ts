// Cross-tenant matrix generated from the registries: every authenticated REST route that takes a
// resource id, and every MCP tool that takes one, is called by a second user on the first user's
// real resources and must answer 404 / not_found (or the spec's 403 where it names one). A new route
// or tool with an id joins by being registered; a new id kind fails here until it has a fixture.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { createUser } from '../../src/domain/identity/users.js';
import { preserveOriginal } from '../../src/domain/compression/originals.js';
import { allTools } from '../../src/mcp/registry.js';
import { allRoutes } from '../../src/routes/index.js';
import { makePeer } from '../federation/helpers.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, sampleDocument, startTestServer, type TestServer } from '../helpers/server.js';
import { objectFields } from '../helpers/zodFields.js';

let server: TestServer;
/** The first user's resources, by path parameter / tool argument name. */
const ids: Record<string, string> = {};
let bKey: string;
let bProjectKey: string;
let aKeyForChecks: string;

/** A body that passes validation, so only ownership can refuse the call (route key: "METHOD path"). */
const BODIES: Record<string, unknown> = {
  'PATCH /v1/keys/:key_id': { name: 'stolen' },
  'POST /v1/keys/:key_id/rotate': { grace_period_days: 1 },
  'POST /v1/keys/:key_id/confirm-tokens': { operation: 'revoke' },
  'PUT /v1/profiles/:profile_id': { name: 'stolen' },
  'PUT /v1/projects/:project_id': { name: 'stolen' },
  'POST /v1/projects/:project_id/knowledge/items': { name: 'stolen', content: 'x' },
  'PATCH /v1/projects/:project_id/knowledge/items/:item_id': { name: 'stolen' },
  'POST /v1/projects/:project_id/knowledge/query': { query: 'pool' },
  'POST /v1/projects/:project_id/knowledge/uploads': { idempotency_key: 'k1', name: 'stolen' },
  'POST /v1/projects/:project_id/knowledge/uploads/:upload_id/complete': {},
  'POST /v1/agents/a2a-peers/:peer_id/share-requests': { project_id: '00000000-0000-4000-8000-000000000002', requested_resource: 'x' },
  'POST /v1/projects/:project_id/shares': { peer_id: '00000000-0000-4000-8000-000000000001', item_id: '00000000-0000-4000-8000-000000000003' },
  'POST /v1/projects/:project_id/share-requests/:req_id/decide': { decision: 'deny' },
};

/** Where the spec names 403 instead of 404 (a confirm token is confirmed in an identity-provider session only). */
const EXPECTED: Record<string, number[]> = { 'POST /v1/keys/confirm/:token_hash': [403, 404] };

/** Tool arguments naming the first user's resources; the spec's 403 for another user's key. */
const TOOL_CALLS: { tool: string; args: () => Record<string, unknown>; error: string[]; projectKey?: boolean }[] = [
  { tool: 'get_original_output', args: () => ({ original_id: ids.original_id }), error: ['not_found'] },
  { tool: 'read_skeleton', args: () => ({ file_id: ids.file_id }), error: ['not_found'] },
  { tool: 'modulate_region', args: () => ({ file_id: ids.file_id }), error: ['not_found'] },
  { tool: 'get_multi_level_skeleton', args: () => ({ file_id: ids.file_id }), error: ['not_found'] },
  { tool: 'get_stats', args: () => ({ file_id: ids.file_id }), error: ['not_found'] },
  { tool: 'delete_document', args: () => ({ file_id: ids.file_id }), error: ['not_found'] },
  { tool: 'gc_revoke_api_key', args: () => ({ key_id: ids.key_id }), error: ['forbidden'] },
  { tool: 'gc_rebind_api_key', args: () => ({ key_id: ids.key_id, project_id: null }), error: ['forbidden'] },
  { tool: 'gc_kb_get', args: () => ({ item_id: ids.item_id }), error: ['not_found'], projectKey: true },
  { tool: 'gc_kb_edit', args: () => ({ item_id: ids.item_id, name: 'stolen' }), error: ['not_found'], projectKey: true },
  { tool: 'gc_kb_delete', args: () => ({ item_id: ids.item_id }), error: ['not_found'], projectKey: true },
  { tool: 'gc_kb_diff', args: () => ({ item_id: ids.item_id, from_version_id: ids.version_id, to_version_id: ids.version_id }), error: ['not_found'], projectKey: true },
  { tool: 'gc_kb_set_visibility', args: () => ({ item_id: ids.item_id, visibility: 'private' }), error: ['not_found'], projectKey: true },
  { tool: 'gc_kb_share', args: () => ({ item_id: ids.item_id, peer_id: '00000000-0000-4000-8000-000000000001' }), error: ['not_found'], projectKey: true },
  { tool: 'gc_plan_propose', args: () => ({ item_id: ids.item_id, base_version_id: ids.version_id, title: 'stolen', content: 'x' }), error: ['not_found'], projectKey: true },
  { tool: 'gc_plan_propose_distilled', args: () => ({ item_id: ids.item_id, base_version_id: ids.version_id, discussion: 'stolen' }), error: ['not_found'], projectKey: true },
  { tool: 'gc_plan_list_proposals', args: () => ({ item_id: ids.item_id }), error: ['not_found'], projectKey: true },
  { tool: 'gc_plan_blame', args: () => ({ item_id: ids.item_id }), error: ['not_found'], projectKey: true },
  { tool: 'gc_plan_get_proposal', args: () => ({ proposal_id: ids.proposal_id }), error: ['not_found'], projectKey: true },
  { tool: 'gc_plan_decide', args: () => ({ proposal_id: ids.proposal_id, decision: 'reject' }), error: ['not_found'], projectKey: true },
  { tool: 'gc_workflow_get', args: () => ({ workflow_id: ids.workflow_id }), error: ['not_found'], projectKey: true },
  { tool: 'gc_workflow_save', args: () => ({ workflow_id: ids.workflow_id, graph: { nodes: [{ id: 'x', type: 'compress' }] } }), error: ['not_found'], projectKey: true },
  { tool: 'gc_run_from_workflow', args: () => ({ workflow_id: ids.workflow_id }), error: ['not_found'], projectKey: true },
  { tool: 'gc_run_list', args: () => ({ workflow_id: ids.workflow_id }), error: ['not_found'], projectKey: true },
  { tool: 'gc_run_status', args: () => ({ run_id: ids.run_id }), error: ['not_found'], projectKey: true },
  { tool: 'gc_run_cancel', args: () => ({ run_id: ids.run_id }), error: ['not_found'], projectKey: true },
  { tool: 'delete_memory', args: () => ({ memory_id: ids.memory_id }), error: ['not_found'] },
  { tool: 'invalidate_fact', args: () => ({ fact_id: ids.fact_id }), error: ['not_found'] },
  { tool: 'list_fact_history', args: () => ({ fact_id: ids.fact_id }), error: ['not_found'] },
  { tool: 'get_handoff_bundle', args: () => ({ bundle_id: ids.bundle_id }), error: ['not_found'] },
  { tool: 'replay_handoff_bundle', args: () => ({ bundle_id: ids.bundle_id }), error: ['not_found'] },
  { tool: 'gc_kb_share', args: () => ({ item_id: ids.item_id, peer_id: ids.peer_id }), error: ['not_found'], projectKey: true },
  { tool: 'gc_a2a_task_create', args: () => ({ assignee_peer_id: ids.peer_id, title: 'stolen' }), error: ['not_found'], projectKey: true },
  ...['gc_a2a_task_approve', 'gc_a2a_task_cancel', 'gc_a2a_task_ack', 'gc_a2a_task_status'].map((tool) => ({ tool, args: () => ({ task_id: ids.a2a_task_id }), error: ['not_found'], projectKey: true })),
  { tool: 'gc_a2a_task_claim', args: () => ({ task_id: ids.a2a_task_id, from_peer_id: ids.peer_id, proof_jws: 'a.b.c' }), error: ['not_found'], projectKey: true },
  { tool: 'gc_a2a_task_complete', args: () => ({ task_id: ids.a2a_task_id, from_peer_id: ids.peer_id, proof_jws: 'a.b.c', result_payload: 1 }), error: ['not_found'], projectKey: true },
  { tool: 'gc_a2a_task_reassign', args: () => ({ task_id: ids.a2a_task_id, new_assignee_peer_id: ids.peer_id }), error: ['not_found'], projectKey: true },
  { tool: 'gc_a2a_task_inbox', args: () => ({ peer_id: ids.peer_id }), error: ['not_found'], projectKey: true },
];

/** Tool arguments that name a resource: a tool taking one of these must appear in TOOL_CALLS. */
const ID_ARGUMENTS = ['original_id', 'file_id', 'item_id', 'key_id', 'upload_id', 'profile_id', 'event_id', 'workflow_id', 'run_id', 'proposal_id', 'task_id'];

// Agent memory (issue 19): memories, bi-temporal facts, handoff bundles.
ID_ARGUMENTS.push('memory_id', 'fact_id', 'bundle_id');

// Community skills (issue 21): a private skill is invisible to another user; moderation routes are admin-only (403 first).
ID_ARGUMENTS.push('skill_id');
TOOL_CALLS.push(...['gc_skill_get', 'gc_skill_enable', 'gc_skill_disable'].map((tool) => ({ tool, args: () => ({ skill_id: ids.skill_id }), error: ['not_found'] })));
Object.assign(EXPECTED, { 'POST /v1/community/posts/:post_id/moderate': [403], 'POST /v1/community/skills/:skill_id/publish': [403] });
Object.assign(BODIES, { 'POST /v1/community/posts/:post_id/moderate': { decision: 'approve' } });

// Issues 19-22: ACE playbooks, prompt templates, datasets and experiment runs, connector feeds, KB document versions.
ID_ARGUMENTS.push('playbook_id', 'reflection_id', 'template_id', 'dataset_id', 'feed_id');
TOOL_CALLS.push(
  ...['ace_generate', 'ace_get_playbook', 'ace_grow_context', 'ace_refine_context', 'ace_execute_cycle', 'ace_reflect'].map((tool) => ({
    tool,
    args: () => ({ playbook_id: ids.playbook_id, ...(tool === 'ace_grow_context' ? { bullets: [{ content: 'stolen' }] } : {}), ...(['ace_generate', 'ace_execute_cycle'].includes(tool) ? { task: 'stolen' } : {}), ...(tool === 'ace_reflect' ? { task: 'stolen', answer: 'stolen' } : {}) }),
    error: ['not_found'],
  })),
  { tool: 'ace_curate', args: () => ({ reflection_id: ids.reflection_id }), error: ['not_found'] },
  ...['get_prompt_template', 'update_prompt_template', 'render_prompt_template', 'compare_prompt_versions', 'generate_rewrite_prompt', 'generate_synthetic_tests'].map((tool) => ({
    tool,
    args: () => ({ template_id: ids.template_id, ...(tool === 'update_prompt_template' ? { description: 'stolen' } : {}), ...(tool === 'compare_prompt_versions' ? { from_version: 1, to_version: 1 } : {}) }),
    error: ['not_found'],
  })),
  { tool: 'deploy_prompt_version', args: () => ({ template_id: ids.template_id, version: 1, label: 'production' }), error: ['not_found'] },
  { tool: 'run_experiment', args: () => ({ template_id: ids.template_id, dataset_id: ids.dataset_id }), error: ['not_found'] },
  { tool: 'get_experiment_run', args: () => ({ run_id: ids.experiment_run_id }), error: ['not_found'] },
  { tool: 'compare_experiment_runs', args: () => ({ run_a: ids.experiment_run_id, run_b: ids.experiment_run_id }), error: ['not_found'] },
  ...['get_connector_feed', 'sync_connector_feed'].map((tool) => ({ tool, args: () => ({ feed_id: ids.feed_id }), error: ['not_found'], projectKey: true })),
  { tool: 'refresh_document', args: () => ({ item_id: ids.item_id, content: 'stolen' }), error: ['not_found'], projectKey: true },
  { tool: 'get_version_history', args: () => ({ item_id: ids.item_id }), error: ['not_found'], projectKey: true },
);

// Navigable elision markers (issue 23): an id names the first user's hidden text; REST /v1/expand takes it in the body.
ID_ARGUMENTS.push('marker_ids');
TOOL_CALLS.push(
  { tool: 'expand_markers', args: () => ({ ids: [ids.marker_id] }), error: ['not_found'] },
  { tool: 'modulate_region', args: () => ({ marker_ids: [ids.marker_id] }), error: ['not_found'] },
);

beforeAll(async () => {
  server = await startTestServer();
  const db = server.app.services.db;
  const a = await createUser(db, { plan: 'team', name: 'tenant-a' });
  const aKey = (await createApiKey(db, { userId: a.id, plan: 'team', name: 'a' })).key;
  aKeyForChecks = aKey;
  const req = (method: string, path: string, body?: unknown) => server.request(method, path, { key: aKey, body });

  ids.key_id = (await req('POST', '/v1/keys', { name: 'a-second' })).json.key_id;
  ids.profile_id = String((await req('POST', '/v1/profiles', { name: 'a-profile' })).json.id);
  ids.project_id = (await req('POST', '/v1/projects', { name: 'a-project' })).json.project_id;
  const item = (await req('POST', `/v1/projects/${ids.project_id}/knowledge/items`, { name: 'a-item', content: sampleDocument() })).json;
  ids.item_id = item.item_id ?? item.id;
  ids.version_id = item.current_version_id;
  ids.upload_id = (await req('POST', `/v1/projects/${ids.project_id}/knowledge/uploads`, { idempotency_key: 'a-1', name: 'a-upload' })).json.upload_id;
  const compressed: string = (await req('POST', '/v1/compress', { text: sampleDocument() })).json.compressed_text;
  ids.marker_id = /#(\d{12}\.\d+)\]/.exec(compressed)?.[1] ?? '';
  await server.app.services.background.drain();
  ids.event_id = (await req('GET', '/v1/usage/events')).json.items[0].id;
  ids.token_hash = (await req('POST', `/v1/keys/${ids.key_id}/confirm-tokens`, { operation: 'revoke' })).json.token ?? 'unknown-token';
  ids.original_id = await preserveOriginal(db, a.id, 'the first user’s original', 5);
  // Federation: a peer (its key held here), a share, a signed inbound share request, a webhook.
  const peerKeys = await makePeer();
  ids.peer_id = (await req('POST', '/v1/agents/a2a-peers', { name: 'a-peer', base_url: 'https://a-peer.example.com', public_keys: [peerKeys.publicJwk] })).json.peer_id;
  ids.share_id = (await req('POST', `/v1/projects/${ids.project_id}/shares`, { peer_id: ids.peer_id, item_id: ids.item_id })).json.share_id;
  const shareRequest = { request_jws: await peerKeys.sign({ project_id: ids.project_id, requested_resource: ids.item_id, requested_at: new Date().toISOString() }) };
  ids.req_id = (await server.request('POST', '/a2a/v1/share-requests', { key: null, body: shareRequest })).json.req_id;
  ids.webhook_id = (await req('POST', '/v1/webhooks', { url: 'https://a-hooks.example.com/gc' })).json.webhook_id;
  // An A2A protocol task (/a2a/v1/tasks/{id}, and {id}:cancel through the :task_operation pattern).
  ids.task_id = (await req('POST', '/a2a/v1/message:send', { message: { messageId: 'a-1', role: 'ROLE_USER', parts: [{ text: 'the first user’s note' }] } })).json.task.id;
  ids.task_operation = `${ids.task_id}:cancel`;
  const aMcp = await connectMcp(server.url, aKey);
  try {
    ids.file_id = (await call(aMcp, 'ingest_context', { text: sampleDocument(), name: 'a-doc' })).data.file_id;
    const memory = (await call(aMcp, 'add_memory', { content: 'The first user’s memory', kind: 'fact', key: 'a-key', value: 'a-value' })).data;
    ids.memory_id = memory.memory_id;
    ids.fact_id = memory.fact_id;
    ids.bundle_id = (await call(aMcp, 'create_handoff_bundle', { notes: 'the first user’s handoff' })).data.bundle_id;
    ids.skill_id = (await call(aMcp, 'gc_skill_author', { name: 'a-skill', tagline: 'the first user’s skill', category: 'other', body: '# A skill\n\nList the files with `ls`.' })).data.skill_id;
    ids.post_id = (await call(aMcp, 'gc_publish_post', { body: '# The first user’s post' })).data.id;
    ids.playbook_id = (await call(aMcp, 'ace_grow_context', { bullets: [{ content: 'Check the pool size before a load test.' }] })).data.playbook.playbook_id;
    ids.reflection_id = (await call(aMcp, 'ace_reflect', { playbook_id: ids.playbook_id, task: 'size the pool', answer: 'Two threads.' })).data.reflection_id;
    ids.template_id = (await call(aMcp, 'create_prompt_template', { name: 'a-template', template: 'Summarise {{topic}}.' })).data.template_id;
    ids.dataset_id = (await call(aMcp, 'create_dataset', { name: 'a-dataset', cases: [{ variables: { topic: 'pools' } }] })).data.dataset_id;
    // A batch-queue job (GET /v1/batch-queue/:id).
    ids.id = (await call(aMcp, 'batch_compress_queue', { documents: [{ text: sampleDocument() }] })).data.job_id;
    ids.experiment_run_id = (await call(aMcp, 'run_experiment', { template_id: ids.template_id, dataset_id: ids.dataset_id })).data.run_id;
  } finally {
    await aMcp.close();
  }
  // Workflows, runs and plan proposals live in a project: made with a key bound to the first user's project.
  const aProjectMcp = await connectMcp(server.url, (await createApiKey(db, { userId: a.id, plan: 'team', name: 'a-bound', projectId: ids.project_id })).key);
  try {
    ids.workflow_id = (await call(aProjectMcp, 'gc_workflow_create', { name: 'a-workflow', graph: { nodes: [{ id: 'c', type: 'compress', params: { text: 'The first user’s text.' } }] } })).data.workflow_id;
    ids.run_id = (await call(aProjectMcp, 'gc_run_from_workflow', { workflow_id: ids.workflow_id })).data.run_id;
    const plan = (await call(aProjectMcp, 'gc_kb_ingest', { name: 'a-plan', type: 'plan', content: '# Plan\n\n1. One.\n' })).data;
    ids.feed_id = (await call(aProjectMcp, 'create_connector_feed', { type: 'rss', source: 'https://a-feed.example.com/feed.xml' })).data.feed_id;
    ids.a2a_task_id = (await call(aProjectMcp, 'gc_a2a_task_create', { assignee_peer_id: ids.peer_id, title: 'a-task' })).data.task_id;
    ids.proposal_id = (await call(aProjectMcp, 'gc_plan_propose', { item_id: plan.item_id, base_version_id: plan.version_id, title: 'a-proposal', content: '# Plan\n\n1. One.\n2. Two.\n' })).data.proposal_id;
  } finally {
    await aProjectMcp.close();
  }
  for (const [k, v] of Object.entries(ids)) if (!v) throw new Error(`fixture ${k} was not created`);

  const b = await createUser(db, { plan: 'team', name: 'tenant-b' });
  bKey = (await createApiKey(db, { userId: b.id, plan: 'team', name: 'b' })).key;
  const bProject = (await server.request('POST', '/v1/projects', { key: bKey, body: { name: 'b-project' } })).json.project_id;
  bProjectKey = (await createApiKey(db, { userId: b.id, plan: 'team', name: 'b-bound', projectId: bProject })).key;
});
afterAll(async () => {
  await server?.close();
});

describe(`cross-tenant matrix (${DB_KIND})`, () => {
  // A path parameter starts a segment; a colon inside one is literal (the A2A binding's /message:send).
  const withIds = allRoutes.filter((r) => r.auth === 'key' && /\/:\w+/.test(r.path));

  it('covers every authenticated REST route that takes an id', () => {
    expect(withIds.length).toBeGreaterThanOrEqual(20);
  });

  for (const route of withIds) {
    const key = `${route.method} ${route.path}`;
    it(`${key}: another user's resource answers ${EXPECTED[key]?.join(' or ') ?? 404}`, async () => {
      const path = route.path.replace(/(?<=\/):(\w+)/g, (_, name: string) => {
        if (!ids[name]) throw new Error(`no fixture for path parameter :${name}; add one to this test`);
        return encodeURIComponent(ids[name]!);
      });
      const query = key.endsWith('/diff') ? `?from_version_id=${ids.version_id}&to_version_id=${ids.version_id}` : '';
      const res = await server.request(route.method, path + query, { key: bKey, body: route.method === 'GET' || route.method === 'DELETE' ? undefined : (BODIES[key] ?? {}) });
      expect(EXPECTED[key] ?? [404], `${key} answered ${res.status}: ${res.text.slice(0, 200)}`).toContain(res.status);
      expect(res.text).not.toContain('a-second');
    });
  }

  it('covers every MCP tool that takes a resource id', () => {
    const covered = new Set(TOOL_CALLS.map((c) => c.tool));
    const missing = allTools()
      .filter((t) => {
        const fields = objectFields(t.input);
        return fields.some((f) => ID_ARGUMENTS.includes(f));
      })
      .map((t) => t.name)
      .filter((name) => !covered.has(name));
    expect(missing, 'tools with an id argument but no cross-tenant case').toEqual([]);
  });

  for (const c of TOOL_CALLS) {
    it(`${c.tool}: another user's resource is ${c.error.join(' or ')}`, async () => {
      const client = await connectMcp(server.url, c.projectKey ? bProjectKey : bKey);
      try {
        const res = await call(client, c.tool, c.args());
        expect(res.isError, JSON.stringify(res.data).slice(0, 200)).toBe(true);
        expect(c.error).toContain(res.data.error);
      } finally {
        await client.close();
      }
    });
  }

  it("POST /v1/expand: another user's marker id answers 404 (the owner's answers 200)", async () => {
    const stolen = await server.request('POST', '/v1/expand', { key: bKey, body: { id: ids.marker_id } });
    expect(stolen.status, stolen.text.slice(0, 200)).toBe(404);
    expect(stolen.text).not.toContain('Installation');
    expect((await server.request('POST', '/v1/expand', { body: { ids: [ids.marker_id] }, key: aKeyForChecks })).status).toBe(200);
  });

  it("the first user's resources are all still there and unchanged", async () => {
    const aList = await server.app.services.db.query<{ name: string }>('select name from api_keys where key_id = $1 and revoked_at is null', [ids.key_id]);
    expect(aList[0]?.name).toBe('a-second');
    const [item] = await server.app.services.db.query<{ name: string; deleted_at: Date | null }>('select name, deleted_at from kb_items where id = $1', [ids.item_id]);
    expect(item).toMatchObject({ name: 'a-item', deleted_at: null });
    const [doc] = await server.app.services.db.query('select id from documents where id = $1', [ids.file_id]);
    expect(doc).toBeDefined();
    const [fact] = await server.app.services.db.query<{ memory_id: string; invalidated_at: Date | null }>('select memory_id, invalidated_at from memory_facts where id = $1', [ids.fact_id]);
    expect(fact).toMatchObject({ memory_id: ids.memory_id, invalidated_at: null });
  });
});

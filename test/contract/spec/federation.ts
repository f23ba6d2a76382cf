// Spec: "Endpoints > Shares" (the share, share-request, A2A task and peer routes), "Resources > Shares"
// and "A2A task", "States and transitions > A2A task / Inbound share request", the platform: A2A
// tasks tools, and "Events" (webhooks). The peer is a key pair the suite holds (test/federation/helpers.ts);
// docs/federation.md describes the flow.
import { resultHash } from '../../../src/domain/federation/jws.js';
import { makePeer, type TestPeer } from '../../federation/helpers.js';
import { t, type ContractContext, type ContractFile, type Fields } from '../contract.js';
import { call } from '../../helpers/mcp.js';
import { waitFor } from '../../helpers/waitFor.js';

const STATUSES = ['draft', 'pending', 'claimed', 'completed', 'cancelled', 'failed', 'expired', 'reassigned'] as const;
const TASK: Fields = { task_id: t.uuid, status: t.enum(...STATUSES), assignee_peer_id: t.uuid, contract_jws: t.string };
const SHARE: Fields = { share_id: t.uuid, peer_id: t.uuid, item_id: t.uuid };
const TASK_SPEC = 'A2A task: a task contract delegated from a requester peer to an assignee peer, signed with Ed25519. Status values: draft, pending, claimed, completed, cancelled, failed, expired, reassigned.';

let peer: TestPeer | null = null;
let other: TestPeer | null = null;

/** The suite's peers, registered once by the owner (also used by the gc_kb_share entry). */
export async function ensurePeers(c: ContractContext): Promise<{ peer: TestPeer; peerId: string; otherId: string }> {
  if (!c.fx.peer_id) {
    peer = await makePeer();
    other = await makePeer();
    c.fx.peer_id = (await c.ok('POST', '/v1/agents/a2a-peers', { name: 'contract-peer', base_url: 'https://peer.example.com', public_keys: [peer.publicJwk] })).peer_id;
    c.fx.other_peer_id = (await c.ok('POST', '/v1/agents/a2a-peers', { name: 'contract-peer-2', base_url: 'https://peer2.example.com', public_keys: [other.publicJwk] })).peer_id;
  }
  return { peer: peer!, peerId: c.fx.peer_id, otherId: c.fx.other_peer_id };
}

async function shareableItem(c: ContractContext, name: string): Promise<string> {
  return (await c.ok('POST', `/v1/projects/${c.fx.project_id}/knowledge/items`, { name, content: `# ${name}\n\nShared notes.` })).item_id;
}

async function shareRequest(c: ContractContext): Promise<string> {
  const { peer } = await ensurePeers(c);
  const jws = await peer.sign({ project_id: c.fx.project_id, requested_resource: await shareableItem(c, 'contract-requested'), requested_at: new Date().toISOString(), nonce: crypto.randomUUID() });
  return (await c.ok('POST', '/a2a/v1/share-requests', { request_jws: jws }, null)).req_id;
}

/** A task in the state a call needs, in the owner's project. */
async function task(c: ContractContext, state: 'draft' | 'pending' | 'claimed' | 'expired'): Promise<string> {
  const { peer, peerId } = await ensurePeers(c);
  const id = (await c.tool('gc_a2a_task_create', { assignee_peer_id: peerId, title: `contract ${state}`, ...(state === 'expired' ? { deadline_seconds: 1 } : {}) }, 'project')).task_id;
  if (state === 'draft') return id;
  await c.tool('gc_a2a_task_approve', { task_id: id }, 'project');
  if (state === 'claimed') await c.ok('POST', '/a2a/v1/tasks/claim', { task_id: id, from_peer_id: peerId, proof_jws: await peer.sign({ task_id: id, action: 'claim' }) }, null);
  if (state === 'expired') {
    // Past its one-second deadline, the inbox (which expires due tasks) lists it as expired.
    await waitFor(`task ${id} to expire`, async () => ((await c.tool('gc_a2a_task_inbox', { status: 'expired' }, 'project')).tasks as { task_id: string }[]).some((x) => x.task_id === id));
  }
  return id;
}

export default {
  area: 'Shares, share requests, A2A peers and tasks (federation)',
  setup: async (c) => {
    await ensurePeers(c);
    c.fx.share_item_id = await shareableItem(c, 'contract-shared');
    c.fx.share_id = (await c.ok('POST', `/v1/projects/${c.fx.project_id}/shares`, { peer_id: c.fx.peer_id, item_id: c.fx.share_item_id })).share_id;
    c.fx.req_id = await shareRequest(c);
  },
  routes: [
    {
      method: 'GET', path: '/v1/agents/a2a-peers',
      spec: 'GET /v1/agents/a2a-peers | - | lists the caller\'s registered A2A peers and their ids',
      status: 200,
      fields: { 'peers[].peer_id': t.uuid },
    },
    {
      method: 'POST', path: '/v1/agents/a2a-peers',
      spec: 'Shares: granted to a peer (UUID peer_id)',
      outsideSpec: 'How a peer is registered is not shown by the spec: the caller posts the peer\'s name, base URL and Ed25519 public JWKs (or lets them be fetched from the peer\'s /.well-known/a2a-jwks.json) (docs/federation.md).',
      request: async () => ({ body: { name: 'contract-registered', base_url: 'https://registered.example.com', public_keys: [(await makePeer()).publicJwk] } }),
      status: 201,
      fields: { peer_id: t.uuid },
    },
    {
      method: 'DELETE', path: '/v1/agents/a2a-peers/:peer_id',
      spec: 'GET /v1/agents/a2a-peers | lists the caller\'s registered A2A peers',
      outsideSpec: 'Removes a registered peer (its shares stay recorded, its tasks go) (docs/federation.md).',
      request: async (c) => ({ params: { peer_id: (await c.ok('POST', '/v1/agents/a2a-peers', { name: 'contract-gone', base_url: 'https://gone.example.com', public_keys: [(await makePeer()).publicJwk] })).peer_id } }),
      status: 204,
      body: 'none',
    },
    {
      method: 'POST', path: '/v1/agents/a2a-peers/:peer_id/share-requests',
      spec: 'POST /a2a/v1/share-requests | InboundShareRequestPayload (contains request_jws)',
      outsideSpec: 'The sending side of an inbound share request: this service signs the request with its own key and posts it to the peer\'s /a2a/v1/share-requests (docs/federation.md). The sample peer is this server itself, registered by URL (its keys fetched from its /.well-known/a2a-jwks.json; loopback allowed through FEDERATION_ALLOWED_HOSTS).',
      request: async (c) => {
        // The suite's server was started without it; its settings object is the one the service reads.
        c.server.app.services.config.federation.allowedHosts.push(new URL(c.server.url).host);
        const self = await c.ok('POST', '/v1/agents/a2a-peers', { name: 'contract-self', base_url: c.server.url });
        return { params: { peer_id: self.peer_id }, body: { project_id: c.fx.project_id, requested_resource: c.fx.share_item_id } };
      },
      status: 200,
      fields: { peer_id: t.uuid, request_jws: t.string, peer_status: t.const(202), 'peer_answer.req_id': t.uuid },
    },
    {
      method: 'POST', path: '/v1/agents/a2a-proofs',
      spec: 'Claim and complete carry from_peer_id and proof_jws bound to the task_id and action.',
      outsideSpec: 'The assignee side of a task: this service signs a claim or complete proof (with result_hash) with its own key, for the requester\'s /a2a/v1/tasks/claim|complete (docs/federation.md).',
      request: { body: { task_id: '6f1d8a52-3c1e-4e0b-9d0a-7b6f2f3c9e11', action: 'complete', result_payload: { b: 1, a: [1, 2] } } },
      status: 200,
      fields: { proof_jws: t.string, result_hash: t.pattern(/^[0-9a-f]{64}$/) },
      check: (res) => {
        if (res.json.result_hash !== resultHash({ a: [1, 2], b: 1 })) throw new Error('result_hash should be the SHA-256 of the canonical JSON of result_payload');
      },
    },
    {
      method: 'GET', path: '/v1/projects/:project_id/shares',
      spec: 'GET /v1/projects/{project_id}/shares | query peer_id -> ListSharesResponse | 200',
      request: (c) => ({ params: { project_id: c.fx.project_id }, query: { peer_id: c.fx.peer_id } }),
      status: 200,
      fields: Object.fromEntries(Object.entries(SHARE).map(([k, v]) => [`shares[].${k}`, v])),
    },
    {
      method: 'POST', path: '/v1/projects/:project_id/shares',
      spec: 'POST /v1/projects/{project_id}/shares | GrantShareRequest -> ShareResponse | 201; grants or refreshes',
      request: (c) => ({ params: { project_id: c.fx.project_id }, body: { peer_id: c.fx.peer_id, item_id: c.fx.share_item_id } }),
      status: 201,
      fields: SHARE,
      check: (res, c) => {
        if (res.json.share_id !== c.fx.share_id) throw new Error('granting an existing share should refresh it (same share_id)');
      },
    },
    {
      method: 'DELETE', path: '/v1/projects/:project_id/shares/:share_id',
      spec: 'DELETE /v1/projects/{project_id}/shares/{share_id} | - | 204',
      request: async (c) => {
        const item = await shareableItem(c, 'contract-revoked');
        const share = await c.ok('POST', `/v1/projects/${c.fx.project_id}/shares`, { peer_id: c.fx.peer_id, item_id: item });
        return { params: { project_id: c.fx.project_id, share_id: share.share_id } };
      },
      status: 204,
      body: 'none',
    },
    {
      method: 'GET', path: '/v1/projects/:project_id/share-requests',
      spec: 'GET /v1/projects/{project_id}/share-requests | query status -> ListInboxResponse | 200; inbound share request: UUID req_id, status (pending initially), requested_resource, signed request_jws',
      request: (c) => ({ params: { project_id: c.fx.project_id }, query: { status: 'pending' } }),
      status: 200,
      fields: { 'requests[].req_id': t.uuid, 'requests[].status': t.const('pending'), 'requests[].requested_resource': t.string, 'requests[].request_jws': t.string },
    },
    {
      method: 'POST', path: '/v1/projects/:project_id/share-requests/:req_id/decide',
      spec: 'POST /v1/projects/{project_id}/share-requests/{req_id}/decide | DecideRequest (decision approve or deny) -> DecideResponse | 200; approve creates an outbound share when requested_resource is a valid item UUID in the project',
      request: async (c) => ({ params: { project_id: c.fx.project_id, req_id: await shareRequest(c) }, body: { decision: 'approve' } }),
      status: 200,
      fields: { req_id: t.uuid, 'share.share_id': t.uuid },
      note: 'DecideResponse fields are not shown; the outcome (status approved) and the created share are checked.',
    },
    {
      method: 'POST', path: '/a2a/v1/share-requests',
      spec: 'POST /a2a/v1/share-requests | InboundShareRequestPayload (contains request_jws) -> JSON object | 202; signature verified against the peer\'s registered public key; requested_at inside the JWS within 5 minutes; every invalid request returns 400 with detail invalid_request',
      request: async (c) => {
        const { peer } = await ensurePeers(c);
        return { key: null, body: { request_jws: await peer.sign({ project_id: c.fx.project_id, requested_resource: 'kb', requested_at: new Date().toISOString(), nonce: crypto.randomUUID() }) } };
      },
      status: 202,
      fields: { req_id: t.uuid, status: t.const('pending') },
      check: async (_res, c) => {
        const stale = await c.server.request('POST', '/a2a/v1/share-requests', { key: null, body: { request_jws: await (await ensurePeers(c)).peer.sign({ project_id: c.fx.project_id, requested_resource: 'kb', requested_at: new Date(Date.now() - 600_000).toISOString() }) } });
        if (stale.status !== 400 || stale.json.detail !== 'invalid_request') throw new Error(`a stale requested_at should be 400 invalid_request: ${stale.status} ${stale.text}`);
      },
    },
    {
      method: 'POST', path: '/a2a/v1/tasks/claim',
      spec: 'POST /a2a/v1/tasks/claim | assignee proof, no API key | public equivalent of gc_a2a_task_claim',
      request: async (c) => {
        const { peer, peerId } = await ensurePeers(c);
        const id = await task(c, 'pending');
        return { key: null, body: { task_id: id, from_peer_id: peerId, proof_jws: await peer.sign({ task_id: id, action: 'claim' }) } };
      },
      status: 200,
      fields: { ...TASK, status: t.const('claimed') },
    },
    {
      method: 'POST', path: '/a2a/v1/tasks/complete',
      spec: 'POST /a2a/v1/tasks/complete | assignee proof and result, no API key | public equivalent of gc_a2a_task_complete; no plan gate; result_hash equals the SHA-256 of the canonical JSON of result_payload',
      request: async (c) => {
        const { peer, peerId } = await ensurePeers(c);
        const id = await task(c, 'claimed');
        const result = { answer: 42 };
        return { key: null, body: { task_id: id, from_peer_id: peerId, proof_jws: await peer.sign({ task_id: id, action: 'complete', result_hash: resultHash(result) }), result_payload: result } };
      },
      status: 200,
      fields: { ...TASK, status: t.const('completed'), result_hash: t.pattern(/^[0-9a-f]{64}$/) },
    },
    {
      method: 'GET', path: '/v1/webhooks',
      spec: 'a2a.task.status | pushed to the user\'s registered webhooks that subscribe to this event (registered in the dashboard)',
      outsideSpec: 'Lists the user\'s webhooks that events such as a2a.task.status are pushed to (docs/federation.md).',
      request: async (c) => {
        await c.ok('POST', '/v1/webhooks', { url: 'https://hooks.example.com/gc' });
        return {};
      },
      status: 200,
      fields: { 'webhooks[].webhook_id': t.uuid, 'webhooks[].url': t.string, 'webhooks[].events': t.array },
    },
    {
      method: 'POST', path: '/v1/webhooks',
      spec: 'a2a.task.status | pushed to the user\'s registered webhooks that subscribe to this event',
      outsideSpec: 'Registers a webhook (https URL, events; the HMAC-SHA256 signing secret is returned once) (docs/federation.md).',
      request: { body: { url: 'https://hooks.example.com/contract', events: ['a2a.task.status'] } },
      status: 201,
      fields: { webhook_id: t.uuid, secret: t.pattern(/^whsec_[0-9a-f]{48}$/), events: t.array },
    },
    {
      method: 'DELETE', path: '/v1/webhooks/:webhook_id',
      spec: 'a2a.task.status | pushed to the user\'s registered webhooks',
      outsideSpec: 'Removes a webhook (docs/federation.md).',
      request: async (c) => ({ params: { webhook_id: (await c.ok('POST', '/v1/webhooks', { url: 'https://hooks.example.com/gone' })).webhook_id } }),
      status: 204,
      body: 'none',
    },
  ],
  tools: [
    {
      tool: 'gc_a2a_task_create',
      spec: `gc_a2a_task_create (optional requester_peer_id overrides the auto-resolved requester); (none) -> draft: returns signed task contract; not visible in assignee inbox. ${TASK_SPEC}`,
      args: async (c) => ({ assignee_peer_id: (await ensurePeers(c)).peerId, title: 'contract task', input: { item: 'x' } }),
      key: 'project',
      fields: { ...TASK, status: t.const('draft') },
      check: async (data, c) => {
        const inbox = await c.tool('gc_a2a_task_inbox', {}, 'project');
        if (inbox.tasks.some((x: { task_id: string }) => x.task_id === data.task_id)) throw new Error('a draft should not be visible in the inbox');
        const unbound = await call(c.mcp('owner'), 'gc_a2a_task_create', { assignee_peer_id: c.fx.peer_id, title: 'x' });
        if (unbound.data.error !== 'no_project_selected') throw new Error('an unbound key should get no_project_selected');
      },
    },
    {
      tool: 'gc_a2a_task_approve', spec: 'draft -> pending (gc_a2a_task_approve; caller created it); assignee inbox can now see it',
      args: async (c) => ({ task_id: await task(c, 'draft') }), key: 'project', fields: { ...TASK, status: t.const('pending') },
    },
    {
      tool: 'gc_a2a_task_cancel', spec: 'draft or pending -> cancelled (gc_a2a_task_cancel; never for claimed or completed)',
      args: async (c) => ({ task_id: await task(c, 'pending') }), key: 'project', fields: { ...TASK, status: t.const('cancelled') },
    },
    {
      tool: 'gc_a2a_task_claim', spec: 'pending -> claimed (gc_a2a_task_claim: valid Ed25519 proof from the assignee peer bound to task_id and action claim)',
      args: async (c) => {
        const { peer, peerId } = await ensurePeers(c);
        const id = await task(c, 'pending');
        return { task_id: id, from_peer_id: peerId, proof_jws: await peer.sign({ task_id: id, action: 'claim' }) };
      },
      key: 'project', fields: { ...TASK, status: t.const('claimed') },
    },
    {
      tool: 'gc_a2a_task_complete', spec: 'claimed -> completed (gc_a2a_task_complete: proof valid; result_hash matches SHA-256 of canonical result_payload; signed result stored)',
      args: async (c) => {
        const { peer, peerId } = await ensurePeers(c);
        const id = await task(c, 'claimed');
        return { task_id: id, from_peer_id: peerId, proof_jws: await peer.sign({ task_id: id, action: 'complete', result_hash: resultHash(['ok']) }), result_payload: ['ok'] };
      },
      key: 'project', fields: { ...TASK, status: t.const('completed'), result_hash: t.pattern(/^[0-9a-f]{64}$/), result_proof_jws: t.string },
    },
    {
      tool: 'gc_a2a_task_reassign', spec: 'pending, claimed or expired -> original becomes reassigned (gc_a2a_task_reassign; target is a different peer); new task created; audit trail kept',
      args: async (c) => ({ task_id: await task(c, 'claimed'), new_assignee_peer_id: (await ensurePeers(c)).otherId }),
      key: 'project', fields: { ...TASK, 'original.status': t.const('reassigned'), reassigned_from: t.uuid },
    },
    {
      tool: 'gc_a2a_task_ack', spec: 'expired -> expired unchanged (gc_a2a_task_ack; user authority; idempotent); warning cleared from the warnings channel',
      args: async (c) => ({ task_id: await task(c, 'expired') }),
      key: 'project', fields: { ...TASK, status: t.const('expired'), warning: t.null },
      check: async (data, c) => {
        const again = await c.tool('gc_a2a_task_ack', { task_id: data.task_id }, 'project');
        if (again.status !== 'expired' || again.warning !== null) throw new Error('ack should be idempotent');
      },
    },
    {
      tool: 'gc_a2a_task_inbox', spec: 'gc_a2a_task_inbox (status filter, default pending)',
      args: async (c) => {
        await task(c, 'pending');
        return {};
      },
      key: 'project', fields: { 'tasks[].task_id': t.uuid, 'tasks[].status': t.const('pending'), warnings: t.array },
    },
    {
      tool: 'gc_a2a_task_status', spec: 'gc_a2a_task_status: full signed state is fetched with gc_a2a_task_status',
      args: async (c) => ({ task_id: await task(c, 'pending') }), key: 'project', fields: { ...TASK, status: t.const('pending'), history: t.array },
    },
  ],
} satisfies ContractFile;

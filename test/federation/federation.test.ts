// Federation on one instance (the other side is a peer the test holds the key of): peers, shares,
// signed inbound share requests, the A2A task state machine through the tools and the public
// claim/complete endpoints, and a2a.task.status webhooks. Two real instances: two-instances.test.ts.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { createUser } from '../../src/domain/identity/users.js';
import { resultHash } from '../../src/domain/federation/jws.js';
import { verifySignature } from '../../src/domain/federation/webhooks.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { makePeer, startReceiver, until, type TestPeer } from './helpers.js';
import { waitFor } from '../helpers/waitFor.js';

let server: TestServer;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let aKey: string;
let aProjectKey: string;
let bKey: string;
let bProjectKey: string;
let projectId: string;
let itemId: string;
let peer: TestPeer;
let other: TestPeer;
let peerId: string;
let otherId: string;
let mcp: Client;
let secret: string;
const clients: Client[] = [];

const req = (method: string, path: string, body?: unknown, key: string | null = aKey) => server.request(method, path, { key, body });
const tool = (name: string, args: Record<string, unknown>) => call(mcp, name, args);

beforeAll(async () => {
  receiver = await startReceiver(1);
  server = await startTestServer({ federation: { allowedHosts: [receiver.host], sweepMs: 5000 } });
  const db = server.app.services.db;
  const a = await createUser(db, { plan: 'team', name: 'fed-a' });
  aKey = (await createApiKey(db, { userId: a.id, plan: 'team', name: 'a' })).key;
  projectId = (await req('POST', '/v1/projects', { name: 'fed' })).json.project_id;
  aProjectKey = (await createApiKey(db, { userId: a.id, plan: 'team', name: 'a-bound', projectId })).key;
  itemId = (await req('POST', `/v1/projects/${projectId}/knowledge/items`, { name: 'Runbook', content: '# Runbook\n\nRestart the pool.' })).json.item_id;
  const b = await createUser(db, { plan: 'team', name: 'fed-b' });
  bKey = (await createApiKey(db, { userId: b.id, plan: 'team', name: 'b' })).key;
  const bProject = (await server.request('POST', '/v1/projects', { key: bKey, body: { name: 'b' } })).json.project_id;
  bProjectKey = (await createApiKey(db, { userId: b.id, plan: 'team', name: 'b-bound', projectId: bProject })).key;
  peer = await makePeer();
  other = await makePeer();
  mcp = await connectMcp(server.url, aProjectKey);
  clients.push(mcp);
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await server?.close();
  await receiver?.close();
});

describe(`A2A federation on one instance (${DB_KIND})`, () => {
  it('registers peers by their public JWK and lists them; refuses private keys and private base URLs', async () => {
    const created = await req('POST', '/v1/agents/a2a-peers', { name: 'peer-b', base_url: 'https://peer-b.example.com', public_keys: { keys: [peer.publicJwk] } });
    expect(created.status, created.text).toBe(201);
    peerId = created.json.peer_id;
    expect(peerId).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.json.public_keys[0].kid).toBe(peer.kid);
    otherId = (await req('POST', '/v1/agents/a2a-peers', { name: 'peer-c', base_url: 'https://peer-c.example.com', public_keys: [other.publicJwk] })).json.peer_id;
    const list = await req('GET', '/v1/agents/a2a-peers');
    expect(list.status).toBe(200);
    expect(list.json.peers.map((p: { peer_id: string }) => p.peer_id)).toEqual([peerId, otherId]);
    const withPrivate = await req('POST', '/v1/agents/a2a-peers', { name: 'x', base_url: 'https://x.example.com', public_keys: [{ ...peer.publicJwk, d: 'AAAA' }] });
    expect(withPrivate.status).toBe(400);
    const loopback = await req('POST', '/v1/agents/a2a-peers', { name: 'x', base_url: 'https://127.0.0.1:8443', public_keys: [peer.publicJwk] });
    expect(loopback.status).toBe(400);
    expect(loopback.json.detail).toMatch(/refus/);
    // Another user sees none of them.
    expect((await req('GET', '/v1/agents/a2a-peers', undefined, bKey)).json.peers).toEqual([]);
  });

  it('shares: grant (refresh when it exists), gc_kb_share gives the same record, list by peer, revoke; unknown or foreign peers are not_found', async () => {
    const first = await req('POST', `/v1/projects/${projectId}/shares`, { peer_id: peerId, item_id: itemId });
    expect(first.status, first.text).toBe(201);
    const again = await req('POST', `/v1/projects/${projectId}/shares`, { peer_id: peerId, item_id: itemId });
    expect(again.json.share_id).toBe(first.json.share_id);
    expect(again.json.created).toBe(false);
    const viaTool = await tool('gc_kb_share', { item_id: itemId, peer_id: peerId });
    expect(viaTool.data.share_id).toBe(first.json.share_id);
    expect((await tool('gc_kb_share', { item_id: itemId, peer_id: '00000000-0000-4000-8000-000000000001' })).data.error).toBe('not_found');
    expect((await tool('gc_kb_share', { item_id: itemId, peer_id: 'peer-1' })).data.error).toBe('not_found');
    const bPeer = (await req('POST', '/v1/agents/a2a-peers', { name: 'b-peer', base_url: 'https://b.example.com', public_keys: [peer.publicJwk] }, bKey)).json.peer_id;
    expect((await tool('gc_kb_share', { item_id: itemId, peer_id: bPeer })).data.error).toBe('not_found');
    expect((await req('POST', `/v1/projects/${projectId}/shares`, { peer_id: bPeer, item_id: itemId })).status).toBe(404);
    const listed = await req('GET', `/v1/projects/${projectId}/shares?peer_id=${peerId}`);
    expect(listed.json.shares.map((s: { share_id: string }) => s.share_id)).toEqual([first.json.share_id]);
    expect((await req('GET', `/v1/projects/${projectId}/shares?peer_id=${otherId}`)).json.shares).toEqual([]);
    expect((await req('GET', `/v1/projects/${projectId}/shares`, undefined, bKey)).status).toBe(404);
    expect((await req('DELETE', `/v1/projects/${projectId}/shares/${first.json.share_id}`, undefined, bKey)).status).toBe(404);
    expect((await req('DELETE', `/v1/projects/${projectId}/shares/${first.json.share_id}`)).status).toBe(204);
    expect((await req('DELETE', `/v1/projects/${projectId}/shares/${first.json.share_id}`)).status).toBe(404);
    expect((await req('GET', `/v1/projects/${projectId}/shares`)).json.shares).toEqual([]);
  });

  it('inbound share requests: signed by the peer key, 202, replay makes no second request; every invalid one is 400 invalid_request', async () => {
    const payload = { project_id: projectId, requested_resource: itemId, requested_at: new Date().toISOString() };
    const jws = await peer.sign(payload);
    const accepted = await req('POST', '/a2a/v1/share-requests', { request_jws: jws }, null);
    expect(accepted.status, accepted.text).toBe(202);
    const replay = await req('POST', '/a2a/v1/share-requests', { request_jws: jws }, null);
    expect(replay.json.req_id).toBe(accepted.json.req_id);
    const { n } = (await server.app.services.db.query<{ n: number }>('select count(*)::int as n from a2a_share_requests where project_id = $1', [projectId]))[0]!;
    expect(n).toBe(1);

    const [h, , s] = jws.split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ ...payload, requested_resource: 'everything' })).toString('base64url');
    const stranger = await makePeer();
    const invalids: [string, unknown][] = [
      ['forged signature', { request_jws: `${h}.${forgedPayload}.${s}` }],
      ['wrong key (unregistered)', { request_jws: await stranger.sign(payload) }],
      ['wrong key (kid of the peer, signed by another)', { request_jws: await stranger.sign(payload, peer.kid) }],
      ['stale requested_at', { request_jws: await peer.sign({ ...payload, requested_at: new Date(Date.now() - 6 * 60_000).toISOString() }) }],
      ['future requested_at', { request_jws: await peer.sign({ ...payload, requested_at: new Date(Date.now() + 6 * 60_000).toISOString() }) }],
      ['no requested_at', { request_jws: await peer.sign({ project_id: projectId, requested_resource: itemId }) }],
      ['unknown project', { request_jws: await peer.sign({ ...payload, project_id: '00000000-0000-4000-8000-000000000009' }) }],
      ['not a JWS', { request_jws: 'abc' }],
      ['no body fields', {}],
      ['a list', [1, 2]],
    ];
    for (const [label, body] of invalids) {
      const r = await req('POST', '/a2a/v1/share-requests', body, null);
      expect(r.status, label).toBe(400);
      expect(r.json, label).toEqual({ detail: 'invalid_request' });
    }
    // A peer that user B registered cannot reach user A's project.
    const inbox = await req('GET', `/v1/projects/${projectId}/share-requests?status=pending`);
    expect(inbox.json.requests.map((r: { req_id: string }) => r.req_id)).toEqual([accepted.json.req_id]);
    expect(inbox.json.requests[0]).toMatchObject({ status: 'pending', peer_id: peerId, requested_resource: itemId, request_jws: jws });
    expect((await req('GET', `/v1/projects/${projectId}/share-requests`, undefined, bKey)).status).toBe(404);
    expect((await req('POST', `/v1/projects/${projectId}/share-requests/${accepted.json.req_id}/decide`, { decision: 'approve' }, bKey)).status).toBe(404);

    const decided = await req('POST', `/v1/projects/${projectId}/share-requests/${accepted.json.req_id}/decide`, { decision: 'approve' });
    expect(decided.status, decided.text).toBe(200);
    expect(decided.json.status).toBe('approved');
    expect(decided.json.share.item_id).toBe(itemId);
    expect((await req('GET', `/v1/projects/${projectId}/shares?peer_id=${peerId}`)).json.shares[0].share_id).toBe(decided.json.share.share_id);
    const twice = await req('POST', `/v1/projects/${projectId}/share-requests/${accepted.json.req_id}/decide`, { decision: 'deny' });
    expect(twice.status).toBe(409);

    const denyMe = await req('POST', '/a2a/v1/share-requests', { request_jws: await other.sign({ ...payload, requested_at: new Date().toISOString() }) }, null);
    expect(denyMe.status).toBe(202);
    const denied = await req('POST', `/v1/projects/${projectId}/share-requests/${denyMe.json.req_id}/decide`, { decision: 'deny' });
    expect(denied.json).toMatchObject({ status: 'denied', share: null });
    expect((await req('GET', `/v1/projects/${projectId}/shares?peer_id=${otherId}`)).json.shares).toEqual([]);
    expect((await req('GET', `/v1/projects/${projectId}/share-requests?status=denied`)).json.requests).toHaveLength(1);
  });

  it('webhooks: create (secret once), list, delete; private URLs refused', async () => {
    const hook = await req('POST', '/v1/webhooks', { url: receiver.url, events: ['a2a.task.status'] });
    expect(hook.status, hook.text).toBe(201);
    secret = hook.json.secret;
    expect(secret).toMatch(/^whsec_/);
    expect((await req('GET', '/v1/webhooks')).json.webhooks).toEqual([{ webhook_id: hook.json.webhook_id, url: receiver.url, events: ['a2a.task.status'], created_at: hook.json.created_at }]);
    expect((await req('POST', '/v1/webhooks', { url: 'https://169.254.169.254/latest' })).status).toBe(400);
    expect((await req('POST', '/v1/webhooks', { url: 'http://example.com/hook' })).status).toBe(400);
    const spare = (await req('POST', '/v1/webhooks', { url: receiver.url })).json.webhook_id;
    expect((await req('DELETE', `/v1/webhooks/${spare}`, undefined, bKey)).status).toBe(404);
    expect((await req('DELETE', `/v1/webhooks/${spare}`)).status).toBe(204);
  });

  it('tasks: every row of the state table through the tools and the public claim/complete', async () => {
    const created = await tool('gc_a2a_task_create', { assignee_peer_id: peerId, title: 'Summarise the runbook', input: { item_id: itemId } });
    expect(created.isError, JSON.stringify(created.data)).toBe(false);
    const id = created.data.task_id;
    expect(created.data.status).toBe('draft');
    expect(created.data.contract_jws.split('.')).toHaveLength(3);
    expect((await tool('gc_a2a_task_inbox', {})).data.tasks).toEqual([]);
    expect((await tool('gc_a2a_task_claim', { task_id: id, from_peer_id: peerId, proof_jws: await peer.sign({ task_id: id, action: 'claim' }) })).data.error).toBe('invalid_transition');

    expect((await tool('gc_a2a_task_approve', { task_id: id })).data.status).toBe('pending');
    const again = await tool('gc_a2a_task_approve', { task_id: id });
    expect(again.data.error).toBe('invalid_transition');
    expect(again.data.current_status).toBe('pending');
    expect(JSON.stringify(again.data)).toContain('is pending');
    expect((await tool('gc_a2a_task_inbox', {})).data.tasks.map((t: { task_id: string }) => t.task_id)).toEqual([id]);

    const claimProof = await peer.sign({ task_id: id, action: 'claim' });
    const badClaims: [string, unknown][] = [
      ['other peer signs', { task_id: id, from_peer_id: otherId, proof_jws: await other.sign({ task_id: id, action: 'claim' }) }],
      ['other key for the assignee', { task_id: id, from_peer_id: peerId, proof_jws: await other.sign({ task_id: id, action: 'claim' }, peer.kid) }],
      ['proof for another task', { task_id: id, from_peer_id: peerId, proof_jws: await peer.sign({ task_id: crypto.randomUUID(), action: 'claim' }) }],
      ['complete proof used to claim', { task_id: id, from_peer_id: peerId, proof_jws: await peer.sign({ task_id: id, action: 'complete' }) }],
      ['unknown task', { task_id: crypto.randomUUID(), from_peer_id: peerId, proof_jws: claimProof }],
      ['garbage', { task_id: 'x' }],
    ];
    for (const [label, body] of badClaims) {
      const r = await req('POST', '/a2a/v1/tasks/claim', body, null);
      expect(r.status, label).toBe(400);
      expect(r.json, label).toEqual({ detail: 'invalid_request' });
    }
    const claimed = await req('POST', '/a2a/v1/tasks/claim', { task_id: id, from_peer_id: peerId, proof_jws: claimProof }, null);
    expect(claimed.status, claimed.text).toBe(200);
    expect(claimed.json.status).toBe('claimed');
    const reclaim = await req('POST', '/a2a/v1/tasks/claim', { task_id: id, from_peer_id: peerId, proof_jws: claimProof }, null);
    expect(reclaim.status).toBe(409);
    expect(reclaim.json.detail).toContain('is claimed');
    const cancelClaimed = await tool('gc_a2a_task_cancel', { task_id: id });
    expect(cancelClaimed.data.error).toBe('invalid_transition');
    expect(cancelClaimed.data.current_status).toBe('claimed');

    const result = { summary: 'Restart the pool.', lines: [1, 2], ok: true };
    const hash = resultHash(result);
    expect(hash).toBe(resultHash({ ok: true, lines: [1, 2], summary: 'Restart the pool.' }));
    const badCompletes: [string, unknown][] = [
      ['claim proof reused for complete', { task_id: id, from_peer_id: peerId, proof_jws: claimProof, result_payload: result }],
      ['wrong result_hash in the proof', { task_id: id, from_peer_id: peerId, proof_jws: await peer.sign({ task_id: id, action: 'complete', result_hash: resultHash({ other: 1 }) }), result_payload: result }],
      ['payload changed after signing', { task_id: id, from_peer_id: peerId, proof_jws: await peer.sign({ task_id: id, action: 'complete', result_hash: hash }), result_payload: { ...result, ok: false } }],
      ['wrong result_hash field', { task_id: id, from_peer_id: peerId, proof_jws: await peer.sign({ task_id: id, action: 'complete', result_hash: hash }), result_payload: result, result_hash: '0'.repeat(64) }],
      ['no result_payload', { task_id: id, from_peer_id: peerId, proof_jws: await peer.sign({ task_id: id, action: 'complete', result_hash: hash }) }],
      ['other peer', { task_id: id, from_peer_id: otherId, proof_jws: await other.sign({ task_id: id, action: 'complete', result_hash: hash }), result_payload: result }],
    ];
    for (const [label, body] of badCompletes) {
      const r = await req('POST', '/a2a/v1/tasks/complete', body, null);
      expect(r.status, label).toBe(400);
      expect(r.json, label).toEqual({ detail: 'invalid_request' });
    }
    const completeProof = await peer.sign({ task_id: id, action: 'complete', result_hash: hash });
    const completed = await req('POST', '/a2a/v1/tasks/complete', { task_id: id, from_peer_id: peerId, proof_jws: completeProof, result_payload: result }, null);
    expect(completed.status, completed.text).toBe(200);
    expect(completed.json).toMatchObject({ status: 'completed', result_hash: hash, result_payload: result, result_proof_jws: completeProof });
    expect((await tool('gc_a2a_task_cancel', { task_id: id })).data.current_status).toBe('completed');
    expect((await tool('gc_a2a_task_reassign', { task_id: id, new_assignee_peer_id: otherId })).data.current_status).toBe('completed');
    expect((await tool('gc_a2a_task_ack', { task_id: id })).data.current_status).toBe('completed');
    const status = await tool('gc_a2a_task_status', { task_id: id });
    expect(status.data.history.map((h: { status: string }) => h.status)).toEqual(['draft', 'pending', 'claimed', 'completed']);

    // Tools claim/complete, the same checks: a claim proof never completes.
    const t2 = (await tool('gc_a2a_task_create', { assignee_peer_id: peerId, title: 'Second' })).data.task_id;
    await tool('gc_a2a_task_approve', { task_id: t2 });
    const p2 = await peer.sign({ task_id: t2, action: 'claim' });
    expect((await tool('gc_a2a_task_claim', { task_id: t2, from_peer_id: peerId, proof_jws: await other.sign({ task_id: t2, action: 'claim' }, peer.kid) })).data.error).toBe('invalid_request');
    expect((await tool('gc_a2a_task_claim', { task_id: t2, from_peer_id: peerId, proof_jws: p2 })).data.status).toBe('claimed');
    expect((await tool('gc_a2a_task_complete', { task_id: t2, from_peer_id: peerId, proof_jws: p2, result_payload: 'done' })).data.error).toBe('invalid_request');
    const done = await tool('gc_a2a_task_complete', { task_id: t2, from_peer_id: peerId, proof_jws: await peer.sign({ task_id: t2, action: 'complete', result_hash: resultHash('done') }), result_payload: 'done' });
    expect(done.data.status).toBe('completed');

    // Cancel from draft and from pending.
    const t3 = (await tool('gc_a2a_task_create', { assignee_peer_id: peerId, title: 'Third' })).data.task_id;
    expect((await tool('gc_a2a_task_cancel', { task_id: t3 })).data.status).toBe('cancelled');
    const t4 = (await tool('gc_a2a_task_create', { assignee_peer_id: peerId, title: 'Fourth' })).data.task_id;
    await tool('gc_a2a_task_approve', { task_id: t4 });
    expect((await tool('gc_a2a_task_cancel', { task_id: t4 })).data.status).toBe('cancelled');
    expect((await tool('gc_a2a_task_inbox', { status: 'cancelled' })).data.tasks).toHaveLength(2);

    // Reassign: pending → reassigned, a new pending task for the other peer; never to the same peer.
    const t5 = (await tool('gc_a2a_task_create', { assignee_peer_id: peerId, title: 'Fifth' })).data.task_id;
    await tool('gc_a2a_task_approve', { task_id: t5 });
    expect((await tool('gc_a2a_task_reassign', { task_id: t5, new_assignee_peer_id: peerId })).data.error).toBe('invalid_request');
    const moved = await tool('gc_a2a_task_reassign', { task_id: t5, new_assignee_peer_id: otherId });
    expect(moved.data).toMatchObject({ status: 'pending', assignee_peer_id: otherId, reassigned_from: t5, original: { status: 'reassigned', reassigned_to: moved.data.task_id } });
    // The old assignee's proof no longer claims either task.
    expect((await req('POST', '/a2a/v1/tasks/claim', { task_id: moved.data.task_id, from_peer_id: peerId, proof_jws: await peer.sign({ task_id: moved.data.task_id, action: 'claim' }) }, null)).status).toBe(400);

    // Unknown and another user's task: not_found; an unbound key: no_project_selected.
    expect((await tool('gc_a2a_task_status', { task_id: crypto.randomUUID() })).data.error).toBe('not_found');
    const bMcp = await connectMcp(server.url, bProjectKey);
    clients.push(bMcp);
    for (const name of ['gc_a2a_task_status', 'gc_a2a_task_approve', 'gc_a2a_task_cancel', 'gc_a2a_task_ack']) {
      expect((await call(bMcp, name, { task_id: id })).data.error, name).toBe('not_found');
    }
    expect((await call(bMcp, 'gc_a2a_task_create', { assignee_peer_id: peerId, title: 'x' })).data.error).toBe('not_found');
    const unbound = await connectMcp(server.url, aKey);
    clients.push(unbound);
    expect((await call(unbound, 'gc_a2a_task_inbox', {})).data.error).toBe('no_project_selected');
  });

  it('expiry: a pending task past its deadline expires with a warning; ack clears it (idempotent); reassign from expired', async () => {
    const id = (await tool('gc_a2a_task_create', { assignee_peer_id: peerId, title: 'Too slow', deadline_seconds: 1 })).data.task_id;
    await tool('gc_a2a_task_approve', { task_id: id });
    expect((await tool('gc_a2a_task_ack', { task_id: id })).data.current_status).toBe('pending');
    const inbox = await waitFor('the task expired', async () => {
      const r = await tool('gc_a2a_task_inbox', { status: 'expired' });
      return r.data.tasks.some((t: { task_id: string }) => t.task_id === id) && r;
    }, { everyMs: 100 });
    expect(inbox.data.tasks.map((t: { task_id: string }) => t.task_id)).toContain(id);
    expect(inbox.data.warnings.map((w: { task_id: string }) => w.task_id)).toContain(id);
    expect((await req('POST', '/a2a/v1/tasks/claim', { task_id: id, from_peer_id: peerId, proof_jws: await peer.sign({ task_id: id, action: 'claim' }) }, null)).json.detail).toContain('is expired');
    const acked = await tool('gc_a2a_task_ack', { task_id: id });
    expect(acked.data).toMatchObject({ status: 'expired', warning: null });
    expect((await tool('gc_a2a_task_ack', { task_id: id })).data).toMatchObject({ status: 'expired', warning: null, updated_at: acked.data.updated_at });
    expect((await tool('gc_a2a_task_inbox', {})).data.warnings.map((w: { task_id: string }) => w.task_id)).not.toContain(id);
    const moved = await tool('gc_a2a_task_reassign', { task_id: id, new_assignee_peer_id: otherId });
    expect(moved.data.status).toBe('pending');
    expect(moved.data.original.status).toBe('reassigned');
  });

  it('every transition reached the webhook as a2a.task.status, signed, each with its own id (a failed delivery retried)', async () => {
    const rows = await server.app.services.db.query<{ id: string; to_status: string }>(
      `select e.id, e.to_status from a2a_task_events e join a2a_tasks t on t.id = e.task_id where t.project_id = $1 order by e.created_at, e.id`,
      [projectId],
    );
    const got = await until(() => receiver.received.length, (n) => n >= rows.length, 20_000);
    expect(got).toBe(rows.length);
    const ids = new Set<string>();
    for (const r of receiver.received) {
      expect(r.headers['x-gc-event']).toBe('a2a.task.status');
      expect(verifySignature(secret, r.headers['x-gc-signature'] as string, r.body)).toBe(true);
      expect(verifySignature(secret, r.headers['x-gc-signature'] as string, `${r.body} `)).toBe(false);
      const event = JSON.parse(r.body);
      expect(event.id).toBe(r.headers['x-gc-event-id']);
      expect(event.type).toBe('a2a.task.status');
      expect(Object.keys(event.data).sort()).toEqual(['assignee_peer_id', 'previous_status', 'project_id', 'reassigned_from', 'reassigned_to', 'status', 'task_id']);
      ids.add(event.id);
    }
    expect([...ids].sort()).toEqual(rows.map((r) => r.id).sort());
    const { retried } = (await server.app.services.db.query<{ retried: number }>(`select count(*)::int as retried from outbox where kind = 'webhook' and attempts > 1`))[0]!;
    expect(retried).toBeGreaterThanOrEqual(1);
  });
});

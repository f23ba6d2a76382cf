// Two real service processes (dist/src/main.js), two databases, federated end to end: each registers
// the other as a peer by URL (keys fetched from /.well-known/a2a-jwks.json through the SSRF guard,
// loopback allowed with FEDERATION_ALLOWED_HOSTS), A grants B a share, B's signed share request is
// approved on A, and a task A delegates to B is claimed and completed on A's public endpoints with
// proofs signed by B's own key. A's webhook receiver gets every a2a.task.status event, signed.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentCard } from '@a2a-js/sdk';
import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnUntil, stop } from '../../bench/lib/spawn.js';
import { verifySignature } from '../../src/domain/federation/webhooks.js';
import { packageRoot } from '../../src/lib/root.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, freshDatabase } from '../helpers/server.js';
import { startReceiver, until } from './helpers.js';

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn().catch(() => undefined);
});

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

async function instance(port: number, allowed: string[]) {
  const db = await freshDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'gc-fed-'));
  const env = {
    DATABASE_URL: db.databaseUrl ?? '', DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', POOL_THREADS: '1',
    FEDERATION_ALLOWED_HOSTS: allowed.join(','), PUBLIC_URL: `http://127.0.0.1:${port}`, LLM_LOCAL_SERVER: 'off',
  };
  const proc = await spawnUntil(join(packageRoot(), 'dist/src/main.js'), env, /"port":(\d+)[\s\S]*?(gc_[0-9a-f]{32})/);
  cleanup.push(async () => {
    if (proc.child.exitCode === null && proc.child.signalCode === null) await stop(proc.child);
    await db.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const url = `http://127.0.0.1:${port}`;
  const key = proc.match[2]!;
  const req = async (method: string, path: string, body?: unknown, auth: string | null = key) => {
    const res = await fetch(url + path, { method, headers: { ...(auth ? { authorization: `Bearer ${auth}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, text, json: text ? JSON.parse(text) : null };
  };
  return { url, key, req };
}

describe(`two federated instances (${DB_KIND})`, () => {
  it('peers, share, signed share request, task delegated A → B completed with B\'s key, every event on A\'s webhook', async () => {
    const started = performance.now();
    const receiver = await startReceiver();
    cleanup.push(() => receiver.close());
    const [portA, portB] = [await freePort(), await freePort()];
    const [A, B] = await Promise.all([
      instance(portA, [`127.0.0.1:${portB}`, receiver.host]),
      instance(portB, [`127.0.0.1:${portA}`]),
    ]);

    // Each registers the other by URL: the keys come from the peer's /.well-known/a2a-jwks.json.
    const bOnA = await A.req('POST', '/v1/agents/a2a-peers', { name: 'instance B', base_url: B.url });
    expect(bOnA.status, bOnA.text).toBe(201);
    const aOnB = await B.req('POST', '/v1/agents/a2a-peers', { name: 'instance A', base_url: A.url });
    expect(aOnB.status, aOnB.text).toBe(201);
    const bJwks = (await B.req('GET', '/.well-known/a2a-jwks.json', undefined, null)).json;
    expect(bOnA.json.public_keys.map((k: { kid: string }) => k.kid)).toEqual(bJwks.keys.map((k: { kid: string }) => k.kid));
    const peerB = bOnA.json.peer_id as string;
    const peerA = aOnB.json.peer_id as string;
    expect((await A.req('GET', '/v1/agents/a2a-peers')).json.peers.map((p: { peer_id: string }) => p.peer_id)).toEqual([peerB]);

    // A's project, items and a key bound to it; A's webhook.
    const projectA = (await A.req('POST', '/v1/projects', { name: 'federated' })).json.project_id;
    const boundA = (await A.req('POST', '/v1/keys', { name: 'a-bound', project_id: projectA })).json.key;
    const item1 = (await A.req('POST', `/v1/projects/${projectA}/knowledge/items`, { name: 'Runbook', content: '# Runbook\n\nRestart the pool.' })).json.item_id;
    const item2 = (await A.req('POST', `/v1/projects/${projectA}/knowledge/items`, { name: 'Design', content: '# Design\n\nOne door to the compute.' })).json.item_id;
    const hook = await A.req('POST', '/v1/webhooks', { url: receiver.url, events: ['a2a.task.status'] });
    expect(hook.status, hook.text).toBe(201);

    // A grants B a share.
    const share = await A.req('POST', `/v1/projects/${projectA}/shares`, { peer_id: peerB, item_id: item1 });
    expect(share.status, share.text).toBe(201);

    // B asks A for the second item (signed with B's key); A approves; the share appears.
    const sent = await B.req('POST', `/v1/agents/a2a-peers/${peerA}/share-requests`, { project_id: projectA, requested_resource: item2 });
    expect(sent.status, sent.text).toBe(200);
    expect(sent.json.peer_status).toBe(202);
    const inbox = (await A.req('GET', `/v1/projects/${projectA}/share-requests?status=pending`)).json.requests;
    expect(inbox.map((r: { req_id: string; peer_id: string }) => [r.req_id, r.peer_id])).toEqual([[sent.json.peer_answer.req_id, peerB]]);
    // The same JWS again (a replay) creates nothing new.
    expect((await A.req('POST', '/a2a/v1/share-requests', { request_jws: sent.json.request_jws }, null)).json.req_id).toBe(sent.json.peer_answer.req_id);
    expect((await A.req('GET', `/v1/projects/${projectA}/share-requests`)).json.requests).toHaveLength(1);
    const decided = await A.req('POST', `/v1/projects/${projectA}/share-requests/${inbox[0].req_id}/decide`, { decision: 'approve' });
    expect(decided.json.status).toBe('approved');
    const shares = (await A.req('GET', `/v1/projects/${projectA}/shares?peer_id=${peerB}`)).json.shares;
    expect(shares.map((s: { item_id: string }) => s.item_id).sort()).toEqual([item1, item2].sort());

    // A delegates a task to B.
    const mcp = await connectMcp(A.url, boundA);
    cleanup.push(() => mcp.close());
    const created = await call(mcp, 'gc_a2a_task_create', { assignee_peer_id: peerB, title: 'Summarise the runbook', input: { item_id: item1 } });
    expect(created.isError, JSON.stringify(created.data)).toBe(false);
    const taskId = created.data.task_id as string;
    expect((await call(mcp, 'gc_a2a_task_approve', { task_id: taskId })).data.status).toBe('pending');

    // B signs the proofs with its own key; they are sent to A's public endpoints (no API key).
    const claimProof = (await B.req('POST', '/v1/agents/a2a-proofs', { task_id: taskId, action: 'claim' })).json.proof_jws;
    const claimed = await A.req('POST', '/a2a/v1/tasks/claim', { task_id: taskId, from_peer_id: peerB, proof_jws: claimProof }, null);
    expect(claimed.status, claimed.text).toBe(200);
    expect(claimed.json.status).toBe('claimed');
    const result = { summary: 'Restart the pool.', sources: [item1] };
    expect((await A.req('POST', '/a2a/v1/tasks/complete', { task_id: taskId, from_peer_id: peerB, proof_jws: claimProof, result_payload: result }, null)).json).toEqual({ detail: 'invalid_request' });
    const completeProof = (await B.req('POST', '/v1/agents/a2a-proofs', { task_id: taskId, action: 'complete', result_payload: result })).json;
    expect((await A.req('POST', '/a2a/v1/tasks/complete', { task_id: taskId, from_peer_id: peerB, proof_jws: completeProof.proof_jws, result_payload: { ...result, summary: 'x' } }, null)).status).toBe(400);
    // A's own key is not B's: a proof A signs for B's peer id is refused.
    const aProof = (await A.req('POST', '/v1/agents/a2a-proofs', { task_id: taskId, action: 'complete', result_payload: result })).json.proof_jws;
    expect((await A.req('POST', '/a2a/v1/tasks/complete', { task_id: taskId, from_peer_id: peerB, proof_jws: aProof, result_payload: result }, null)).status).toBe(400);
    const completed = await A.req('POST', '/a2a/v1/tasks/complete', { task_id: taskId, from_peer_id: peerB, proof_jws: completeProof.proof_jws, result_payload: result }, null);
    expect(completed.status, completed.text).toBe(200);
    expect(completed.json).toMatchObject({ status: 'completed', result_hash: completeProof.result_hash, result_payload: result });
    const status = await call(mcp, 'gc_a2a_task_status', { task_id: taskId });
    expect(status.data.history.map((h: { status: string }) => h.status)).toEqual(['draft', 'pending', 'claimed', 'completed']);

    // Every transition reached A's webhook, signed with its secret, each event with its own id.
    await until(() => receiver.received.length, (n) => n >= 4, 20_000);
    const events = receiver.received.map((r) => {
      expect(verifySignature(hook.json.secret, r.headers['x-gc-signature'] as string, r.body)).toBe(true);
      return JSON.parse(r.body) as { id: string; type: string; data: { task_id: string; status: string } };
    });
    // Deliveries are retried independently, so they may arrive out of order: each carries its id and
    // created_at, and together they are exactly the task's history (docs/federation.md).
    const history = status.data.history as { event_id: string; status: string }[];
    const byId = new Map(events.map((e) => [e.id, e]));
    expect(byId.size).toBe(4);
    expect(history.map((h) => { const e = byId.get(h.event_id); return e && [e.type, e.data.task_id, e.data.status]; })).toEqual(
      ['draft', 'pending', 'claimed', 'completed'].map((s) => ['a2a.task.status', taskId, s]),
    );
    const ordered = [...events].sort((a, b) => Date.parse((a as { created_at?: string }).created_at ?? '') - Date.parse((b as { created_at?: string }).created_at ?? ''));
    expect(ordered.map((e) => e.data.status)).toEqual(['draft', 'pending', 'claimed', 'completed']);

    // The agent card still validates with the official A2A SDK and lists the task tools as skills.
    const card = await new DefaultAgentCardResolver().resolve(A.url);
    AgentCard.fromJSON(AgentCard.toJSON(AgentCard.fromJSON(card)));
    for (const name of ['gc_a2a_task_create', 'gc_a2a_task_claim', 'gc_a2a_task_complete']) expect(card.skills.map((s) => s.id)).toContain(name);
    console.log(`[federation] two instances federated end to end in ${(performance.now() - started).toFixed(0)} ms (${DB_KIND})`);
  }, 120_000);
});

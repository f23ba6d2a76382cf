// A2A federation (docs/federation.md): peers, outbound shares, inbound share requests, the public
// task claim/complete endpoints, and the user's event webhooks.
import { z } from 'zod';
import { deletePeer, listPeers, peerResponse, registerPeer, sendShareRequest } from '../domain/federation/peers.js';
import {
  decideShareRequest, grantShare, listShareRequests, listShares, receiveShareRequest, revokeShare, shareRequestResponse, shareResponse,
} from '../domain/federation/shares.js';
import { claimTask, completeTask, signProof, taskResponse } from '../domain/federation/tasks.js';
import { createWebhook, deleteWebhook, listWebhooks, WEBHOOK_EVENTS, webhookResponse } from '../domain/federation/webhooks.js';
import { resolveProject } from '../domain/knowledge/items.js';
import { HttpError } from '../http/errors.js';
import { defineRoute } from '../http/route.js';
import { isoTime } from './schemas.js';
import { taskSchema } from '../domain/federation/taskSchema.js';

const uuid = z.string().uuid();
const SHARES = '/v1/projects/:project_id/shares';
const REQUESTS = '/v1/projects/:project_id/share-requests';

const RegisterPeerBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    base_url: z.string().min(1).max(2048),
    public_keys: z.union([z.array(z.record(z.string(), z.unknown())).max(10), z.object({ keys: z.array(z.record(z.string(), z.unknown())).max(10) }).passthrough()]).optional(),
  })
  .strict();

const Peer = z.object({ peer_id: z.string(), name: z.string(), base_url: z.string(), public_keys: z.array(z.looseObject({})).describe('JWKs'), created_at: isoTime });
const Share = z.object({ share_id: z.string(), project_id: z.string(), item_id: z.string(), peer_id: z.string(), created_at: isoTime, refreshed_at: isoTime });
const REQUEST_STATUSES = ['pending', 'approved', 'denied'] as const;
const ShareRequest = z.object({
  req_id: z.string(),
  project_id: z.string(),
  peer_id: z.string(),
  status: z.enum(REQUEST_STATUSES),
  requested_resource: z.string(),
  request_jws: z.string(),
  requested_at: isoTime,
  share_id: z.string().nullable(),
  decided_at: isoTime.nullable(),
  created_at: isoTime,
});
const Task = taskSchema;
const Webhook = z.object({ webhook_id: z.string(), url: z.string(), events: z.array(z.enum(WEBHOOK_EVENTS)), created_at: isoTime });

/** Every invalid inbound request gets the same answer. */
const invalidRequest = () => new HttpError(400, 'invalid_request');

const ProofBody = z.object({ task_id: z.string().max(100), from_peer_id: z.string().max(100), proof_jws: z.string().max(16_384) }).strict();
const CompleteBody = ProofBody.extend({ result_payload: z.unknown(), result_hash: z.string().max(128).optional() }).strict();

export const federationRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/agents/a2a-peers',
    auth: 'key',
    response: z.object({ peers: z.array(Peer) }),
    async handler({ principal, services }) {
      return { body: { peers: (await listPeers(services.db, principal)).map(peerResponse) } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/agents/a2a-peers',
    auth: 'key',
    response: Peer,
    doc: { status: 201 },
    body: RegisterPeerBody,
    async handler({ principal, services, body }) {
      return { status: 201, body: peerResponse(await registerPeer(services.db, principal, body)) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/agents/a2a-peers/:peer_id',
    auth: 'key',
    doc: { status: 204 },
    async handler({ principal, services, params }) {
      await deletePeer(services.db, principal, params.peer_id!);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/agents/a2a-peers/:peer_id/share-requests',
    auth: 'key',
    response: z.object({ peer_id: z.string(), peer_status: z.number().int(), peer_answer: z.unknown().describe("The peer's JSON answer, or null when it was not JSON"), request_jws: z.string() }),
    body: z.object({ project_id: uuid, requested_resource: z.string().min(1).max(500) }).strict(),
    async handler({ principal, services, params, body }) {
      return { body: await sendShareRequest(services.db, principal, params.peer_id!, body) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/agents/a2a-proofs',
    auth: 'key',
    response: z.object({ task_id: z.string(), action: z.enum(['claim', 'complete']), proof_jws: z.string(), result_hash: z.string().nullable() }),
    plan: 'pro',
    body: z.object({ task_id: uuid, action: z.enum(['claim', 'complete']), result_payload: z.unknown().optional() }).strict(),
    async handler({ services, body }) {
      return { body: await signProof(services, body) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: SHARES,
    auth: 'key',
    response: z.object({ shares: z.array(Share) }),
    query: z.object({ peer_id: z.string().max(100).optional() }),
    async handler({ principal, services, params, query }) {
      return { body: { shares: (await listShares(services.db, principal, params.project_id!, query.peer_id)).map(shareResponse) } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: SHARES,
    auth: 'key',
    response: Share.extend({ created: z.boolean() }),
    doc: { status: 201 },
    body: z.object({ peer_id: z.string().min(1).max(100), item_id: z.string().min(1).max(100) }).strict(),
    async handler({ principal, services, params, body }) {
      const project = await resolveProject(services.db, principal, params.project_id!);
      const { share, created } = await grantShare(services.db, principal, project.id, body.item_id, body.peer_id);
      return { status: 201, body: { ...shareResponse(share), created } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: `${SHARES}/:share_id`,
    auth: 'key',
    doc: { status: 204 },
    async handler({ principal, services, params }) {
      await revokeShare(services.db, principal, params.project_id!, params.share_id!);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'GET',
    path: REQUESTS,
    auth: 'key',
    response: z.object({ requests: z.array(ShareRequest) }),
    query: z.object({ status: z.enum(REQUEST_STATUSES).optional() }),
    async handler({ principal, services, params, query }) {
      return { body: { requests: (await listShareRequests(services.db, principal, params.project_id!, query.status)).map(shareRequestResponse) } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: `${REQUESTS}/:req_id/decide`,
    auth: 'key',
    response: ShareRequest.extend({ decision: z.enum(['approve', 'deny']), share: Share.nullable() }),
    body: z.object({ decision: z.enum(['approve', 'deny']) }).strict(),
    async handler({ principal, services, params, body }) {
      const { request, share } = await decideShareRequest(services.db, principal, params.project_id!, params.req_id!, body.decision);
      return { body: { ...shareRequestResponse(request), decision: body.decision, share: share ? shareResponse(share) : null } };
    },
  }),
  // Public, signed by the peer: every invalid request is 400 invalid_request (never which check failed).
  defineRoute({
    method: 'POST',
    path: '/a2a/v1/share-requests',
    auth: 'public',
    response: z.object({ req_id: z.string(), status: z.enum(REQUEST_STATUSES) }),
    doc: { status: 202 },
    body: z.unknown(),
    async handler({ services, body }) {
      const req = await receiveShareRequest(services.db, body);
      if (!req) throw invalidRequest();
      return { status: 202, body: { req_id: req.id, status: req.status } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/a2a/v1/tasks/claim',
    auth: 'public',
    response: Task,
    body: z.unknown(),
    async handler({ services, body }) {
      const parsed = ProofBody.safeParse(body);
      if (!parsed.success) throw invalidRequest();
      return { body: taskResponse(await claimTask(services, null, parsed.data)) };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/a2a/v1/tasks/complete',
    auth: 'public',
    response: Task,
    body: z.unknown(),
    async handler({ services, body }) {
      const parsed = CompleteBody.safeParse(body);
      if (!parsed.success || parsed.data.result_payload === undefined) throw invalidRequest();
      return { body: taskResponse(await completeTask(services, null, { ...parsed.data, result_payload: parsed.data.result_payload })) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/webhooks',
    auth: 'key',
    response: z.object({ webhooks: z.array(Webhook) }),
    async handler({ principal, services }) {
      return { body: { webhooks: (await listWebhooks(services.db, principal)).map((w) => webhookResponse(w)) } };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/webhooks',
    auth: 'key',
    response: Webhook.extend({ secret: z.string().describe('The signing secret: shown once, here') }),
    doc: { status: 201 },
    body: z.object({ url: z.string().min(1).max(2048), events: z.array(z.enum(WEBHOOK_EVENTS)).max(10).optional() }).strict(),
    async handler({ principal, services, body }) {
      return { status: 201, body: webhookResponse(await createWebhook(services.db, principal, body), true) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/webhooks/:webhook_id',
    auth: 'key',
    doc: { status: 204 },
    async handler({ principal, services, params }) {
      await deleteWebhook(services.db, principal, params.webhook_id!);
      return { status: 204 };
    },
  }),
];

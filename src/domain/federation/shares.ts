// Outbound shares (the kb_shares grants) and inbound share requests from registered peers.
import type { Principal } from '../../auth/principal.js';
import type { Db, Queryable } from '../../store/db.js';
import { notFound, conflict } from '../errors.js';
import { resolveProject, UUID } from '../knowledge/items.js';
import { grantShare, shareResponse, type ShareRow } from '../knowledge/shares.js';
import type { PeerRow } from './peers.js';
import { kidOf, sha256, verifyWith } from './jws.js';
import { iso, isoOrNull } from '../../lib/time.js';

/** Clock tolerance of requested_at in an inbound share request (spec: plus or minus 5 minutes). */
export const SHARE_REQUEST_TOLERANCE_MS = 5 * 60_000;

export async function listShares(db: Queryable, principal: Principal, projectId: string, peerId?: string): Promise<ShareRow[]> {
  const project = await resolveProject(db, principal, projectId);
  if (peerId !== undefined && !UUID.test(peerId)) return [];
  return db.query<ShareRow>(
    `select * from kb_shares where project_id = $1 and ($2::text is null or peer_id = $2::text) order by created_at, id`,
    [project.id, peerId ?? null],
  );
}

export async function revokeShare(db: Queryable, principal: Principal, projectId: string, shareId: string): Promise<void> {
  const project = await resolveProject(db, principal, projectId);
  if (!UUID.test(shareId)) throw notFound(`Share '${shareId}' not found`);
  const rows = await db.query('delete from kb_shares where id = $1 and project_id = $2 returning id', [shareId, project.id]);
  if (rows.length === 0) throw notFound(`Share '${shareId}' not found`);
}

export { grantShare, shareResponse };

export interface ShareRequestRow {
  id: string;
  project_id: string;
  peer_id: string;
  requested_resource: string;
  request_jws: string;
  requested_at: Date;
  status: 'pending' | 'approved' | 'denied';
  share_id: string | null;
  decided_at: Date | null;
  created_at: Date;
}

/**
 * An inbound share request: a compact JWS (EdDSA, kid) whose payload names project_id (a project of
 * this service), requested_resource and requested_at (ISO 8601, within 5 minutes of now). It must be
 * signed by a key of a peer the project's owner registered. Returns null for every invalid request
 * (the caller answers 400 invalid_request without saying which check failed). A replay of the same
 * JWS returns the request it first created.
 */
export async function receiveShareRequest(db: Db, body: unknown, now = Date.now()): Promise<ShareRequestRow | null> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const jws = (body as { request_jws?: unknown }).request_jws;
  if (typeof jws !== 'string' || jws.length > 16_384 || !kidOf(jws)) return null;
  const unverified = decodePayload(jws);
  const projectId = unverified?.project_id;
  if (typeof projectId !== 'string' || !UUID.test(projectId)) return null;
  const [project] = await db.query<{ id: string; owner_id: string }>('select id, owner_id from projects where id = $1', [projectId]);
  if (!project) return null;
  const kid = kidOf(jws)!;
  const peers = await db.query<PeerRow>(
    `select * from a2a_peers where user_id = $1 and public_keys @> $2::text::jsonb order by created_at`,
    [project.owner_id, JSON.stringify([{ kid }])],
  );
  let peer: PeerRow | null = null;
  let payload: Record<string, unknown> | null = null;
  for (const p of peers) {
    payload = await verifyWith(jws, p.public_keys);
    if (payload) {
      peer = p;
      break;
    }
  }
  if (!peer || !payload || payload.project_id !== projectId) return null;
  const resource = payload.requested_resource;
  if (typeof resource !== 'string' || resource.length === 0 || resource.length > 500) return null;
  const at = typeof payload.requested_at === 'string' ? Date.parse(payload.requested_at) : NaN;
  if (!Number.isFinite(at) || Math.abs(now - at) > SHARE_REQUEST_TOLERANCE_MS) return null;
  const hash = sha256(jws);
  const [created] = await db.query<ShareRequestRow>(
    `insert into a2a_share_requests (project_id, peer_id, requested_resource, request_jws, jws_sha256, requested_at)
     values ($1, $2, $3, $4, $5, $6) on conflict (jws_sha256) do nothing returning *`,
    [project.id, peer.id, resource, jws, hash, iso(at)],
  );
  if (created) return created;
  const [first] = await db.query<ShareRequestRow>('select * from a2a_share_requests where jws_sha256 = $1', [hash]);
  return first ?? null;
}

function decodePayload(jws: string): Record<string, unknown> | null {
  const part = jws.split('.')[1];
  if (!part) return null;
  try {
    const v = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export async function listShareRequests(db: Queryable, principal: Principal, projectId: string, status?: string): Promise<ShareRequestRow[]> {
  const project = await resolveProject(db, principal, projectId);
  return db.query<ShareRequestRow>(
    `select * from a2a_share_requests where project_id = $1 and ($2::text is null or status = $2::text) order by created_at, id`,
    [project.id, status ?? null],
  );
}

/** Approve or deny a pending request; approving a request for an item UUID of the project grants the share. */
export async function decideShareRequest(db: Db, principal: Principal, projectId: string, reqId: string, decision: 'approve' | 'deny') {
  const project = await resolveProject(db, principal, projectId);
  if (!UUID.test(reqId)) throw notFound(`Share request '${reqId}' not found`);
  return db.transaction(async (tx) => {
    const [req] = await tx.query<ShareRequestRow>('select * from a2a_share_requests where id = $1 and project_id = $2 for update', [reqId, project.id]);
    if (!req) throw notFound(`Share request '${reqId}' not found`);
    if (req.status !== 'pending') throw conflict(`Share request '${reqId}' is already ${req.status}`, { extra: { status: req.status } });
    let share: ShareRow | null = null;
    if (decision === 'approve' && UUID.test(req.requested_resource)) {
      const [item] = await tx.query<{ id: string }>(
        `select id from kb_items where id = $1 and project_id = $2 and deleted_at is null and visibility <> 'private'`,
        [req.requested_resource, project.id],
      );
      if (item) share = (await grantShare(tx, principal, project.id, item.id, req.peer_id)).share;
    }
    const [updated] = await tx.query<ShareRequestRow>(
      `update a2a_share_requests set status = $2, decided_at = now(), share_id = $3 where id = $1 returning *`,
      [req.id, decision === 'approve' ? 'approved' : 'denied', share?.id ?? null],
    );
    return { request: updated!, share };
  });
}

export function shareRequestResponse(r: ShareRequestRow) {
  return {
    req_id: r.id,
    project_id: r.project_id,
    peer_id: r.peer_id,
    status: r.status,
    requested_resource: r.requested_resource,
    request_jws: r.request_jws,
    requested_at: iso(r.requested_at),
    share_id: r.share_id,
    decided_at: isoOrNull(r.decided_at),
    created_at: iso(r.created_at),
  };
}


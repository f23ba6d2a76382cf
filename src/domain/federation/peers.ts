// The caller's A2A peers: other services (instances) this user federates with, each with the
// Ed25519 public keys its JWS (share requests, task proofs) are verified against.
import type { JWK } from 'jose';
import type { Principal } from '../../auth/principal.js';
import type { Db, Queryable } from '../../store/db.js';
import { invalid, notFound } from '../errors.js';
import { UUID } from '../knowledge/items.js';
import { signPayload } from './jws.js';
import { checkTarget, getJson, postJson } from './urls.js';
import { iso, nowIso } from '../../lib/time.js';

export interface PeerRow {
  id: string;
  user_id: string;
  name: string;
  base_url: string;
  public_keys: JWK[];
  created_at: Date;
}

export const peerNotFound = (id: string) => notFound(`A2A peer '${id}' not found`);

/** Only Ed25519 public keys with a kid are kept (private members are refused, never stored). */
export function publicEd25519Keys(raw: unknown): JWK[] {
  const list = Array.isArray(raw) ? raw : raw && typeof raw === 'object' && Array.isArray((raw as { keys?: unknown }).keys) ? (raw as { keys: unknown[] }).keys : null;
  if (!list) throw invalid('public_keys must be a JWK Set ({keys: [...]}) or a list of JWKs');
  const keys: JWK[] = [];
  for (const k of list) {
    if (!k || typeof k !== 'object') continue;
    const j = k as JWK;
    if ('d' in j) throw invalid('public_keys must hold public keys only (a JWK with "d" is a private key)');
    if (j.kty === 'OKP' && j.crv === 'Ed25519' && typeof j.x === 'string' && typeof j.kid === 'string' && j.kid) {
      keys.push({ kty: 'OKP', crv: 'Ed25519', x: j.x, kid: j.kid, alg: 'EdDSA', use: 'sig' });
    }
  }
  if (keys.length === 0) throw invalid('No Ed25519 public key with a kid was given (kty OKP, crv Ed25519, x, kid)');
  if (keys.length > 10) throw invalid('At most 10 public keys per peer');
  return keys;
}

export interface RegisterPeerInput {
  name: string;
  base_url: string;
  /** The peer's public JWKs; when absent they are fetched from {base_url}/.well-known/a2a-jwks.json. */
  public_keys?: unknown;
}

export async function registerPeer(db: Queryable, principal: Principal, input: RegisterPeerInput): Promise<PeerRow> {
  const baseUrl = input.base_url.replace(/\/+$/, '');
  await checkTarget(db, baseUrl, 'base_url', input.public_keys !== undefined);
  const keys = publicEd25519Keys(input.public_keys ?? (await getJson(db, `${baseUrl}/.well-known/a2a-jwks.json`, 'base_url')));
  const [row] = await db.query<PeerRow>(
    'insert into a2a_peers (user_id, name, base_url, public_keys) values ($1, $2, $3, $4::text::jsonb) returning *',
    [principal.userId, input.name, baseUrl, JSON.stringify(keys)],
  );
  return row!;
}

export async function listPeers(db: Queryable, principal: Principal): Promise<PeerRow[]> {
  return db.query<PeerRow>('select * from a2a_peers where user_id = $1 order by created_at, id', [principal.userId]);
}

/** The caller's peer; an unknown id or another user's peer is not_found. */
export async function requirePeer(db: Queryable, principal: Principal, peerId: string): Promise<PeerRow> {
  if (!UUID.test(peerId)) throw peerNotFound(peerId);
  const [row] = await db.query<PeerRow>('select * from a2a_peers where id = $1 and user_id = $2', [peerId, principal.userId]);
  if (!row) throw peerNotFound(peerId);
  return row;
}

export async function deletePeer(db: Queryable, principal: Principal, peerId: string): Promise<void> {
  const peer = await requirePeer(db, principal, peerId);
  await db.query('delete from a2a_peers where id = $1', [peer.id]);
}

export function peerResponse(p: PeerRow) {
  return {
    peer_id: p.id,
    name: p.name,
    base_url: p.base_url,
    public_keys: p.public_keys,
    created_at: iso(p.created_at),
  };
}

/**
 * Sends a share request to a peer as this service: the payload is signed with this service's key
 * and POSTed to {base_url}/a2a/v1/share-requests. project_id is the peer's project the request is for.
 */
export async function sendShareRequest(db: Db, principal: Principal, peerId: string, input: { project_id: string; requested_resource: string }) {
  const peer = await requirePeer(db, principal, peerId);
  const requestJws = await signPayload(db, {
    project_id: input.project_id,
    requested_resource: input.requested_resource,
    requested_at: nowIso(),
    nonce: crypto.randomUUID(),
  });
  // An unreachable, slow or redirecting peer is a 502 naming it (postJson translates every transport failure).
  const answer = await postJson(db, `${peer.base_url}/a2a/v1/share-requests`, JSON.stringify({ request_jws: requestJws }), {});
  let body: unknown = null;
  try {
    body = JSON.parse(answer.text);
  } catch {
    body = null;
  }
  return { peer_id: peer.id, peer_status: answer.status, peer_answer: body, request_jws: requestJws };
}

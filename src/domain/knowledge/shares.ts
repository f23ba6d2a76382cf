// Share grants of KB items to the caller's registered A2A peers (gc_kb_share, POST
// /v1/projects/{project_id}/shares, an approved share request): validated and recorded, idempotently.
import type { Principal } from '../../auth/principal.js';
import { invalid } from '../errors.js';
import type { Queryable } from '../../store/db.js';
import { requirePeer } from '../federation/peers.js';
import { requireVisibleItem } from './items.js';
import { iso } from '../../lib/time.js';

export const cannotSharePrivate = (itemId: string) =>
  invalid(`cannot_share_private: item '${itemId}' is private; make it project-visible before sharing`, { code: 'cannot_share_private' });

export interface ShareRow {
  id: string;
  project_id: string;
  item_id: string;
  peer_id: string;
  granted_by_key_id: string | null;
  created_at: Date;
  refreshed_at: Date;
}

/** Grants (or refreshes) a share; the same (item, peer) always yields the same share_id. */
export async function grantShare(db: Queryable, principal: Principal, projectId: string, itemId: string, peerId: string): Promise<{ share: ShareRow; created: boolean }> {
  const peer = await requirePeer(db, principal, peerId);
  const item = await requireVisibleItem(db, principal, projectId, itemId);
  if (item.visibility === 'private') throw cannotSharePrivate(item.id);
  const [inserted] = await db.query<ShareRow>(
    `insert into kb_shares (project_id, item_id, peer_id, granted_by_key_id) values ($1, $2, $3, $4)
     on conflict (item_id, peer_id) do nothing returning *`,
    [projectId, item.id, peer.id, principal.keyId],
  );
  if (inserted) return { share: inserted, created: true };
  const [existing] = await db.query<ShareRow>(
    'update kb_shares set refreshed_at = now() where item_id = $1 and peer_id = $2 returning *',
    [item.id, peer.id],
  );
  return { share: existing!, created: false };
}

export function shareResponse(s: ShareRow) {
  return {
    share_id: s.id,
    project_id: s.project_id,
    item_id: s.item_id,
    peer_id: s.peer_id,
    created_at: iso(s.created_at),
    refreshed_at: iso(s.refreshed_at),
  };
}

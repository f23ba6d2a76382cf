// gc_lookup's per-session memory of the chunks it returned. Keyed by the MCP session's state
// object, so it lives exactly as long as the session (a one-shot call without a session gets a
// fresh state, hence no dedup across such calls). Bounded by the index size (a few thousand ids).
import type { SeenChunks } from './lookup.js';

const bySession = new WeakMap<object, SeenChunks>();

export function seenChunks(session: object): SeenChunks {
  let s = bySession.get(session);
  if (!s) bySession.set(session, (s = new Set()));
  return s;
}

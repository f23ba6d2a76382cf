import type { Queryable } from '../../store/db.js';

/** One usage event of an MCP session, as gc_session_summary totals them. */
export interface SessionEvent {
  tool_name: string | null;
  method: string;
  status: string;
  input_tokens: number;
  output_tokens: number;
  latency_ms: number;
  fidelity: string | null;
  created_at: Date;
}

export interface SessionDocument {
  id: string;
  name: string | null;
  file_path: string | null;
  source_url: string | null;
  node_count: number;
  total_tokens: number;
}

/**
 * What a caller did since a session started: its MCP usage events (of this key, when the caller has
 * one) and the documents it ingested or changed, oldest first.
 */
export async function sessionActivity(db: Queryable, caller: { userId: string; keyId: string | null }, since: Date) {
  const events = await db.query<SessionEvent>(
    `select tool_name, method, status, input_tokens, output_tokens, latency_ms, fidelity, created_at
       from usage_events
      where user_id = $1 and created_at >= $2 and method in ('MCP', 'mcp_advisory')
        and ($3::text is null or key_id = $3)
      order by created_at`,
    [caller.userId, since, caller.keyId],
  );
  const documents = await db.query<SessionDocument>(
    `select id, name, file_path, source_url, node_count, total_tokens from documents
      where user_id = $1 and updated_at >= $2 order by updated_at`,
    [caller.userId, since],
  );
  return { events, documents };
}

-- MCP sessions any instance can serve (docs/deployment.md): the record a process rebuilds a session's
-- transport and server from when a request names a session it does not hold in memory.
-- owner is the key id (or `user:<id>`) that opened the session, never a secret.
create table mcp_sessions (
  id text primary key,
  owner text not null,
  protocol_version text not null,
  client_info jsonb,
  client_capabilities jsonb,
  -- profile, overrides, toolsets, logLevel: replaced whole when one changes (last writer wins).
  settings jsonb not null,
  -- gc_session_summary's history (at most 200 entries) and gc_lookup's dedup (chunk ids): appended to.
  history jsonb not null default '[]',
  seen jsonb not null default '[]',
  -- Bumped by every write: an instance holding the session re-reads it when the number moved.
  revision bigint not null default 0,
  created_at timestamptz not null default now(),
  -- Touched at most once per MCP_SESSION_TOUCH_MS per instance, not on every request.
  last_seen timestamptz not null default now()
);
create index mcp_sessions_owner_idx on mcp_sessions (owner, last_seen);
create index mcp_sessions_last_seen_idx on mcp_sessions (last_seen);

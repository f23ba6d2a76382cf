-- Issue 19: agent memory. Everything is scoped to a user and a project: scope is the project id of a
-- project-bound key, or '' for the user's own (unbound keys). Another user's rows are never visible.

-- One row per scope; version moves on every write, so cached search indexes know when they are stale.
create table memory_scopes (
  user_id uuid not null references users(id) on delete cascade,
  scope text not null,
  version bigint not null default 0,
  primary key (user_id, scope)
);

create table memories (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  scope text not null,
  session_id text,
  kind text not null check (kind in ('note', 'preference', 'fact', 'event')),
  title text not null,
  content text not null,
  tags jsonb not null default '[]',
  tokens integer not null,
  -- float32 little-endian, dims values
  embedding bytea not null,
  dims integer not null,
  created_at timestamptz not null default now()
);
create index memories_scope_idx on memories (user_id, scope, created_at desc, id desc);
create index memories_session_idx on memories (user_id, scope, session_id, created_at);

-- Bi-temporal facts: valid_from / valid_to is when the fact holds in the world; recorded_at /
-- invalidated_at is when we learnt and retracted it. A newer value for the same key ends the older
-- one (valid_to, superseded_by). Nothing here is ever deleted by a tool.
create table memory_facts (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  scope text not null,
  memory_id uuid references memories(id) on delete set null,
  kind text not null check (kind in ('preference', 'fact')),
  key text not null,
  value text not null,
  valid_from timestamptz not null,
  valid_to timestamptz,
  recorded_at timestamptz not null default now(),
  invalidated_at timestamptz,
  invalidation_reason text,
  superseded_by uuid references memory_facts(id)
);
create index memory_facts_key_idx on memory_facts (user_id, scope, key, valid_from);

-- Adaptive memory (AFM): a conversation's messages with their importance class; the conversation's
-- version moves on every write (cached packings know when they are stale).
create table afm_conversations (
  user_id uuid not null references users(id) on delete cascade,
  scope text not null,
  conversation_id text not null,
  version bigint not null default 0,
  primary key (user_id, scope, conversation_id)
);

create table afm_messages (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  scope text not null,
  conversation_id text not null,
  seq integer not null,
  role text not null,
  content text not null,
  importance text not null check (importance in ('CRITICAL', 'RELEVANT', 'TRIVIAL')),
  reason text,
  tokens integer not null,
  created_at timestamptz not null default now(),
  unique (user_id, scope, conversation_id, seq)
);

-- Handoff bundles: a session's state for another agent, content-hashed (SHA-256 of the canonical JSON).
create table handoff_bundles (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  scope text not null,
  session_id text,
  title text not null,
  content text not null,
  content_hash text not null,
  tokens integer not null,
  created_at timestamptz not null default now(),
  replayed_count integer not null default 0
);
create index handoff_bundles_scope_idx on handoff_bundles (user_id, scope, created_at desc, id desc);

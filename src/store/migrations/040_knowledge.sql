-- Knowledge Hub: per-project items, their versions, chunks with persisted embeddings (so a
-- project's HNSW index can always be rebuilt), signed uploads, share grants, index bookkeeping.

create table kb_items (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references projects(id) on delete cascade,
  owner_id uuid not null references users(id) on delete cascade,
  created_by_key_id text,
  name text not null,
  type text not null default 'document',
  source text not null default 'text' check (source in ('text', 'url', 'upload', 'empty')),
  source_url text,
  metadata jsonb not null default '{}',
  mcp_exposed boolean not null default true,
  visibility text not null default 'project' check (visibility in ('private', 'project')),
  status text not null default 'pending' check (status in ('pending', 'indexing', 'ready', 'FAILED')),
  error text,
  chunk_count integer not null default 0,
  current_version_id uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  deleted_at timestamptz
);
create index kb_items_project_list_idx on kb_items (project_id, created_at desc, id desc) where deleted_at is null;
create index kb_items_status_idx on kb_items (status) where deleted_at is null and status in ('pending', 'indexing');

-- Every content edit is a new version; content is kept in full for diffs and audit.
create table kb_versions (
  id uuid primary key default gen_random_uuid(),
  item_id uuid not null references kb_items(id) on delete cascade,
  number integer not null,
  content text not null,
  content_hash text not null,
  created_by_key_id text,
  created_at timestamptz not null default now(),
  unique (item_id, number)
);

-- Chunks of one version. label is the project-local HNSW label (dense, from kb_index_state).
-- embedding holds the float32 little-endian vector.
create table kb_chunks (
  project_id uuid not null references projects(id) on delete cascade,
  label integer not null,
  item_id uuid not null references kb_items(id) on delete cascade,
  version_id uuid not null references kb_versions(id) on delete cascade,
  ordinal integer not null,
  heading text,
  raw_text text not null,
  skeleton text not null,
  tokens integer not null,
  embedding bytea not null,
  primary key (project_id, label)
);
create index kb_chunks_version_idx on kb_chunks (version_id, ordinal);
create index kb_chunks_item_idx on kb_chunks (item_id);

-- Per project: next free label and a generation bumped on every index-visible change, so an
-- instance whose in-memory index is behind (another instance wrote) knows to resync.
create table kb_index_state (
  project_id uuid primary key references projects(id) on delete cascade,
  next_label integer not null default 0,
  generation bigint not null default 0,
  dims integer,
  model_id text
);

-- Signed uploads: issued once per (project, idempotency_key); the content arrives at the signed URL.
create table kb_uploads (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references projects(id) on delete cascade,
  owner_id uuid not null references users(id) on delete cascade,
  key_id text,
  idempotency_key text not null,
  name text not null,
  type text not null default 'document',
  content_type text not null default 'text/plain',
  metadata jsonb not null default '{}',
  visibility text not null default 'project',
  max_bytes integer not null,
  status text not null default 'issued' check (status in ('issued', 'uploaded', 'completed')),
  content text,
  size_bytes integer,
  item_id uuid references kb_items(id) on delete set null,
  expires_at timestamptz not null,
  created_at timestamptz not null default now(),
  unique (project_id, idempotency_key)
);

-- Share grants recorded by gc_kb_share (the A2A peer side arrives with the A2A issue).
create table kb_shares (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references projects(id) on delete cascade,
  item_id uuid not null references kb_items(id) on delete cascade,
  peer_id text not null,
  granted_by_key_id text,
  created_at timestamptz not null default now(),
  refreshed_at timestamptz not null default now(),
  unique (item_id, peer_id)
);

-- Service-wide secrets (the upload-URL HMAC key), created on first use; shared by all instances.
create table kb_secrets (
  name text primary key,
  value bytea not null,
  created_at timestamptz not null default now()
);

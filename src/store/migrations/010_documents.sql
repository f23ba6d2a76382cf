-- Ingested documents (ingest_context and its family); owner-scoped by user_id.
create table documents (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  key_id text,
  project_id uuid,
  name text,
  source text not null check (source in ('inline', 'url')),
  source_url text,
  file_path text,
  content text not null,
  content_hash text not null,
  metadata jsonb not null default '{}',
  node_count integer not null,
  total_tokens integer not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index documents_user_idx on documents (user_id, created_at desc);
-- Sync tracking: one document per (owner, file_path); re-ingesting the path replaces it.
create unique index documents_user_path_idx on documents (user_id, file_path) where file_path is not null;

-- A document split into nodes (sections by headings, or blank-line blocks); text is an exact slice.
create table document_nodes (
  document_id uuid not null references documents(id) on delete cascade,
  ordinal integer not null,
  node_id text not null,
  heading text,
  level integer not null default 0,
  content text not null,
  tokens integer not null,
  primary key (document_id, ordinal)
);

-- Inference benchmark runs (gc_submit_benchmark): public once stored.
create table benchmarks (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  key_id text,
  model text not null,
  quantization text not null,
  hardware text not null,
  tokens_per_second double precision not null,
  notes text,
  created_at timestamptz not null default now()
);
create index benchmarks_key_time_idx on benchmarks (key_id, created_at desc);
create index benchmarks_user_time_idx on benchmarks (user_id, created_at desc);
create index benchmarks_group_idx on benchmarks (model, quantization, hardware);

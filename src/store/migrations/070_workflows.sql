-- Issue 18: customers' LLM providers, workflows with versions, durable runs, plan proposals.

-- A project's LLM providers, by name. The customer's key is stored sealed (AES-256-GCM with the
-- server's PROVIDER_KEY_SECRET; additional data binds it to the project and name): never in plain text.
create table llm_providers (
  project_id uuid not null references projects(id) on delete cascade,
  name text not null,
  api text not null check (api in ('openai', 'anthropic', 'local')),
  base_url text,
  default_model text,
  key_sealed text,
  created_by_key_id text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  primary key (project_id, name)
);

create table workflows (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references projects(id) on delete cascade,
  owner_id uuid not null references users(id) on delete cascade,
  created_by_key_id text,
  name text not null,
  description text,
  current_version_id uuid,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index workflows_project_idx on workflows (project_id, created_at desc, id desc);

-- Every saved graph is a version; graph is the canonical JSON text (sorted keys), graph_hash its SHA-256.
create table workflow_versions (
  id uuid primary key default gen_random_uuid(),
  workflow_id uuid not null references workflows(id) on delete cascade,
  number integer not null,
  graph text not null,
  graph_hash text not null,
  created_by_key_id text,
  created_at timestamptz not null default now(),
  unique (workflow_id, number)
);

-- A run's state machine: queued -> running -> succeeded | failed | cancelled. An instance works on a
-- run while it holds the lease (lease_owner, lease_expires_at, renewed by a heartbeat); a run whose
-- lease lapsed (its process died) is claimed again, attempts counts the claims.
create table workflow_runs (
  id uuid primary key default gen_random_uuid(),
  workflow_id uuid not null references workflows(id) on delete cascade,
  version_id uuid not null references workflow_versions(id) on delete cascade,
  project_id uuid not null references projects(id) on delete cascade,
  owner_id uuid not null references users(id) on delete cascade,
  key_id text,
  status text not null default 'queued' check (status in ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  inputs jsonb not null default '{}',
  error text,
  cancel_requested boolean not null default false,
  lease_owner text,
  lease_expires_at timestamptz,
  attempts integer not null default 0,
  provider_calls integer not null default 0,
  input_tokens bigint not null default 0,
  output_tokens bigint not null default 0,
  cost_micros bigint not null default 0,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz,
  updated_at timestamptz not null default now()
);
create index workflow_runs_project_idx on workflow_runs (project_id, created_at desc, id desc);
create index workflow_runs_open_idx on workflow_runs (created_at) where status in ('queued', 'running');

create table workflow_run_nodes (
  run_id uuid not null references workflow_runs(id) on delete cascade,
  node_id text not null,
  type text not null,
  ordinal integer not null,
  status text not null default 'pending' check (status in ('pending', 'running', 'succeeded', 'failed', 'skipped', 'cancelled')),
  output jsonb,
  error text,
  attempts integer not null default 0,
  input_tokens bigint not null default 0,
  output_tokens bigint not null default 0,
  cost_micros bigint,
  started_at timestamptz,
  finished_at timestamptz,
  primary key (run_id, node_id)
);

-- Change proposals on plan items (Knowledge Hub items of type plan): a unified diff against a pinned base version.
create table plan_proposals (
  id uuid primary key default gen_random_uuid(),
  item_id uuid not null references kb_items(id) on delete cascade,
  project_id uuid not null references projects(id) on delete cascade,
  base_version_id uuid not null references kb_versions(id) on delete cascade,
  title text not null,
  rationale text,
  diff text not null,
  source text not null default 'manual' check (source in ('manual', 'distilled')),
  status text not null default 'open' check (status in ('open', 'merged', 'rejected')),
  author_user_id uuid not null references users(id) on delete cascade,
  author_key_id text,
  decided_by_key_id text,
  decision_comment text,
  decided_at timestamptz,
  merged_version_id uuid references kb_versions(id) on delete set null,
  created_at timestamptz not null default now()
);
create index plan_proposals_item_idx on plan_proposals (item_id, created_at desc, id desc);

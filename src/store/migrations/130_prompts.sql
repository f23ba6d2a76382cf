-- Issue 21: prompt templates with versions and deployment labels, datasets, and durable experiment runs.
-- Everything is scoped like memory: user_id plus scope (the key's project id, or '' for the user's own).

create table prompt_templates (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  scope text not null,
  name text not null,
  description text,
  latest_version integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (user_id, scope, name)
);
create index prompt_templates_scope_idx on prompt_templates (user_id, scope, updated_at desc, id desc);

-- Every update is a new version; variables holds the declared (or inferred) typed variables.
create table prompt_template_versions (
  id uuid primary key default gen_random_uuid(),
  template_id uuid not null references prompt_templates(id) on delete cascade,
  number integer not null,
  body text not null,
  variables jsonb not null,
  note text,
  created_by_key_id text,
  created_at timestamptz not null default now(),
  unique (template_id, number)
);

-- Which version each label (production, staging, canary) points at; moved only with an audit row.
create table prompt_labels (
  template_id uuid not null references prompt_templates(id) on delete cascade,
  label text not null check (label in ('production', 'staging', 'canary')),
  version_id uuid not null references prompt_template_versions(id) on delete cascade,
  updated_at timestamptz not null default now(),
  primary key (template_id, label)
);

create table prompt_label_audit (
  id bigserial primary key,
  template_id uuid not null references prompt_templates(id) on delete cascade,
  label text not null,
  from_version integer,
  to_version integer not null,
  actor_user_id uuid not null,
  actor_key_id text,
  moved_at timestamptz not null default now()
);
create index prompt_label_audit_idx on prompt_label_audit (template_id, id);

-- A dataset's cases: input variables and what a good output looks like (expected, contains, json_schema).
create table prompt_datasets (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  scope text not null,
  name text not null,
  description text,
  cases jsonb not null,
  case_count integer not null,
  source text not null default 'manual',
  created_at timestamptz not null default now()
);
create index prompt_datasets_scope_idx on prompt_datasets (user_id, scope, created_at desc, id desc);

-- Experiment runs follow workflow_runs' design: queued -> running -> succeeded | failed | cancelled,
-- worked on under a lease renewed by a heartbeat; a run whose lease lapsed is claimed again and
-- resumes at its first unfinished cell.
create table experiment_runs (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  scope text not null,
  key_id text,
  template_id uuid not null references prompt_templates(id) on delete cascade,
  dataset_id uuid not null references prompt_datasets(id) on delete cascade,
  version_numbers jsonb not null,
  models jsonb not null,
  provider text not null,
  max_tokens integer not null,
  temperature real not null default 0,
  status text not null default 'queued' check (status in ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  error text,
  lease_owner text,
  lease_expires_at timestamptz,
  attempts integer not null default 0,
  total_cells integer not null,
  done_cells integer not null default 0,
  input_tokens bigint not null default 0,
  output_tokens bigint not null default 0,
  cost_micros bigint not null default 0,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz,
  updated_at timestamptz not null default now()
);
create index experiment_runs_scope_idx on experiment_runs (user_id, scope, created_at desc, id desc);
create index experiment_runs_open_idx on experiment_runs (created_at) where status in ('queued', 'running');

-- One cell: a case × a template version × a model, with its output and scores.
create table experiment_results (
  run_id uuid not null references experiment_runs(id) on delete cascade,
  ordinal integer not null,
  case_index integer not null,
  version_number integer not null,
  model text not null,
  status text not null default 'pending' check (status in ('pending', 'succeeded', 'failed')),
  output text,
  scores jsonb,
  error text,
  input_tokens integer not null default 0,
  output_tokens integer not null default 0,
  cost_micros bigint,
  finished_at timestamptz,
  primary key (run_id, ordinal)
);

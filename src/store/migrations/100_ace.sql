-- Issue 19: Agentic Context Engineering playbooks. Scoped like agent memory: scope is the project id of
-- a project-bound key, or '' for the user's own (unbound keys). A playbook only ever changes by deltas
-- (bullets inserted, counters moved, near-duplicates merged, harmful ones pruned): rows a delta does
-- not name are never written.

create table ace_playbooks (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  scope text not null,
  name text not null,
  -- moves on every delta; cached retrieval indexes key on it
  version bigint not null default 0,
  -- the next bullet label number (b1, b2, ...); labels are never reused
  next_seq integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (user_id, scope, name)
);

create table ace_bullets (
  id uuid primary key default gen_random_uuid(),
  playbook_id uuid not null references ace_playbooks(id) on delete cascade,
  seq integer not null,
  section text not null,
  content text not null,
  helpful_count integer not null default 0,
  harmful_count integer not null default 0,
  tokens integer not null,
  -- float32 little-endian, dims values (the pool's embedding model)
  embedding bytea not null,
  dims integer not null,
  version integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (playbook_id, seq)
);

-- A reflector's output on one attempt: insights and helpful/harmful tags of the bullets it used.
create table ace_reflections (
  id uuid primary key default gen_random_uuid(),
  playbook_id uuid not null references ace_playbooks(id) on delete cascade,
  task text not null,
  answer text not null,
  feedback text,
  ground_truth text,
  outcome text not null check (outcome in ('success', 'failure', 'unknown')),
  bullets_used jsonb not null default '[]',
  insights jsonb not null default '[]',
  bullet_tags jsonb not null default '[]',
  raw text not null,
  path text not null check (path in ('model', 'fallback')),
  model text,
  cost_micros bigint,
  created_at timestamptz not null default now()
);
create index ace_reflections_playbook_idx on ace_reflections (playbook_id, created_at desc);

-- Every delta applied, in order: what the curator, a direct grow or a refine did.
create table ace_deltas (
  id uuid primary key default gen_random_uuid(),
  playbook_id uuid not null references ace_playbooks(id) on delete cascade,
  source text not null check (source in ('curate', 'grow', 'refine')),
  reflection_id uuid references ace_reflections(id) on delete set null,
  -- curate: whether the model's JSON or the deterministic fallback proposed the ADDs
  path text check (path in ('model', 'fallback')),
  operations jsonb not null,
  playbook_version bigint not null,
  created_at timestamptz not null default now()
);
create index ace_deltas_playbook_idx on ace_deltas (playbook_id, created_at);
-- A reflection is curated once: curating it again returns the delta it produced.
create unique index ace_deltas_reflection_idx on ace_deltas (reflection_id) where source = 'curate';

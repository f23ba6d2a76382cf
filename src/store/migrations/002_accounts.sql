-- Accounts: identity-provider users, projects, key binding, confirm tokens, fidelity profiles,
-- and the indexes the usage analytics need.

-- Identity-provider users are found by the token's `sub`; created on first sight.
alter table users add column external_id text unique;
alter table users add column billing_customer_id text;

-- Projects; exactly one Default per owner (partial unique index makes auto-creation race-free).
create table projects (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid not null references users(id) on delete cascade,
  name text not null,
  description text,
  is_default boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index projects_owner_idx on projects (owner_id, created_at desc);
create unique index projects_one_default_idx on projects (owner_id) where is_default;

-- A key may be bound to a project; deleting the project unbinds it (back to the Default).
alter table api_keys add constraint api_keys_project_fk foreign key (project_id) references projects(id) on delete set null;
create index api_keys_project_idx on api_keys (project_id);
alter table api_keys add column scopes text[] not null default '{}';

-- Single-use confirm tokens: only the SHA-256 of the token is stored.
create table confirm_tokens (
  id uuid primary key default gen_random_uuid(),
  token_hash text not null unique,
  user_id uuid not null references users(id) on delete cascade,
  operation text not null check (operation in ('rotate', 'revoke', 'scope_grant')),
  key_id text not null references api_keys(key_id) on delete cascade,
  params jsonb not null default '{}',
  expires_at timestamptz not null,
  consumed_at timestamptz,
  created_at timestamptz not null default now()
);
create index confirm_tokens_user_idx on confirm_tokens (user_id, created_at desc);

-- Fidelity profiles: integer ids, owned by a user.
create table fidelity_profiles (
  id serial primary key,
  user_id uuid not null references users(id) on delete cascade,
  name text not null,
  description text,
  fidelity text not null default 'balanced',
  skeleton_ratio real,
  chunk_size integer,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index fidelity_profiles_user_idx on fidelity_profiles (user_id, created_at desc, id desc);

-- Analytics: quota counts and by-key / activation (per key, by time), per-project counts.
create index usage_events_key_time_idx on usage_events (key_id, created_at);
create index usage_events_project_time_idx on usage_events (project_id, created_at);

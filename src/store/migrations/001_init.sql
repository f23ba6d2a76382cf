-- Users own everything; plan drives gating.
create table users (
  id uuid primary key default gen_random_uuid(),
  email text unique,
  name text,
  plan text not null default 'free' check (plan in ('free', 'pro', 'team', 'enterprise')),
  is_admin boolean not null default false,
  created_at timestamptz not null default now()
);

-- API keys: only the SHA-256 of the key is stored; key_prefix is for display.
create table api_keys (
  key_id text primary key,
  user_id uuid not null references users(id) on delete cascade,
  key_hash text not null unique,
  key_prefix text not null,
  name text not null default '',
  plan text not null,
  environment text not null default 'production',
  status text not null default 'active',
  default_model text,
  monthly_quota integer,
  enforce_quota boolean not null default false,
  quota_alert_state text not null default 'none',
  quota_period_start timestamptz not null default now(),
  project_id uuid,
  replaces_key_id text,
  replaced_by_key_id text,
  expires_at timestamptz,
  revoked_at timestamptz,
  last_used_at timestamptz,
  created_at timestamptz not null default now()
);
create index api_keys_user_idx on api_keys (user_id, created_at desc);

-- One row per call; input_preview is the first line, at most 100 characters.
create table usage_events (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  key_id text,
  project_id uuid,
  environment text,
  method text not null,
  tool_name text,
  client text,
  fidelity text,
  model text,
  status text not null,
  input_tokens integer not null default 0,
  output_tokens integer not null default 0,
  savings_percent real not null default 0,
  latency_ms integer not null default 0,
  cache_hit boolean not null default false,
  input_preview text,
  created_at timestamptz not null default now()
);
create index usage_events_user_time_idx on usage_events (user_id, created_at desc);

-- Originals of compressions that removed more than 80% of the tokens.
create table preserved_originals (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  content text not null,
  content_tokens integer not null,
  created_at timestamptz not null default now()
);
create index preserved_originals_user_idx on preserved_originals (user_id, created_at desc);

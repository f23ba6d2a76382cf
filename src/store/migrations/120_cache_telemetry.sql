-- Issue 22: prompt-cache telemetry, one row per provider call a user reports. Only hashes of the
-- prompt are kept (its first prefix_tokens tokens, and the rest), never the text. Rows belong to one
-- user; another user's rows are never read.
create table cache_telemetry (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  provider text not null,
  model text not null,
  input_tokens integer not null check (input_tokens >= 0),
  cached_tokens integer not null check (cached_tokens >= 0),
  cache_write_tokens integer not null default 0 check (cache_write_tokens >= 0),
  prefix_hash text not null,
  prefix_tokens integer,
  continuation_hash text,
  occurred_at timestamptz not null default now(),
  created_at timestamptz not null default now()
);
create index cache_telemetry_user_prefix_idx on cache_telemetry (user_id, prefix_hash, occurred_at);
create index cache_telemetry_user_time_idx on cache_telemetry (user_id, occurred_at desc);

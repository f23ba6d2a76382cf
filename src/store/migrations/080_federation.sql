-- A2A federation (docs/federation.md): the caller's peers with their Ed25519 public keys, inbound
-- share requests, delegated A2A tasks and the user's event webhooks. kb_shares.peer_id (040) holds
-- a2a_peers.id as text from now on.

create table a2a_peers (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  name text not null,
  base_url text not null,
  -- Public JWKs (OKP / Ed25519) with their kid; a JWS from this peer must name one of them.
  public_keys jsonb not null,
  created_at timestamptz not null default now()
);
create index a2a_peers_user_idx on a2a_peers (user_id, created_at);

create table a2a_share_requests (
  id uuid primary key default gen_random_uuid(),
  project_id uuid not null references projects(id) on delete cascade,
  peer_id uuid not null references a2a_peers(id) on delete cascade,
  requested_resource text not null,
  request_jws text not null,
  -- SHA-256 of the compact JWS: a replayed request finds its first record instead of making a second.
  jws_sha256 text not null unique,
  requested_at timestamptz not null,
  status text not null default 'pending' check (status in ('pending', 'approved', 'denied')),
  share_id uuid,
  decided_at timestamptz,
  created_at timestamptz not null default now()
);
create index a2a_share_requests_project_idx on a2a_share_requests (project_id, status, created_at);

create table a2a_tasks (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  project_id uuid not null references projects(id) on delete cascade,
  requester_peer_id uuid references a2a_peers(id) on delete set null,
  assignee_peer_id uuid not null references a2a_peers(id) on delete cascade,
  title text not null,
  input jsonb not null default '{}'::jsonb,
  status text not null default 'draft'
    check (status in ('draft', 'pending', 'claimed', 'completed', 'cancelled', 'failed', 'expired', 'reassigned')),
  contract_jws text not null,
  deadline timestamptz not null,
  result_payload jsonb,
  result_hash text,
  claim_proof_jws text,
  result_proof_jws text,
  reassigned_from uuid references a2a_tasks(id) on delete set null,
  reassigned_to uuid references a2a_tasks(id) on delete set null,
  warning_acked_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index a2a_tasks_project_idx on a2a_tasks (project_id, status, created_at);
create index a2a_tasks_due_idx on a2a_tasks (deadline) where status in ('pending', 'claimed');

-- Every transition of a task, in order (the audit trail reassignment keeps).
create table a2a_task_events (
  id uuid primary key default gen_random_uuid(),
  task_id uuid not null references a2a_tasks(id) on delete cascade,
  from_status text,
  to_status text not null,
  created_at timestamptz not null default now()
);
create index a2a_task_events_task_idx on a2a_task_events (task_id, created_at);

-- The user's webhooks; the secret signs each delivery (HMAC-SHA256), so it is kept to sign with.
create table user_webhooks (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references users(id) on delete cascade,
  url text not null,
  events text[] not null,
  secret text not null,
  created_at timestamptz not null default now()
);
create index user_webhooks_user_idx on user_webhooks (user_id);

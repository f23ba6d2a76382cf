-- Issue 22: queued batch compression (batch_compress_queue, GET /v1/batch-queue/{id}).
-- A job is a row; each document is a row of its own carrying its result. Documents are leased one by
-- one like workflow runs (lease_owner, lease_expires_at): a document whose lease lapsed (its process
-- died) is claimed again; attempts counts the claims. A stored result (status succeeded or failed) is
-- final: every write is conditioned on status = 'running' and the lease.
create table batch_jobs (
  id uuid primary key default gen_random_uuid(),
  owner_id uuid not null references users(id) on delete cascade,
  key_id text,
  status text not null default 'queued' check (status in ('queued', 'running', 'completed')),
  total integer not null,
  succeeded integer not null default 0,
  failed integer not null default 0,
  original_tokens bigint not null default 0,
  compressed_tokens bigint not null default 0,
  created_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz,
  updated_at timestamptz not null default now()
);
create index batch_jobs_owner_idx on batch_jobs (owner_id, created_at desc);

create table batch_job_documents (
  job_id uuid not null references batch_jobs(id) on delete cascade,
  ordinal integer not null,
  doc_id text,
  text text not null,
  fidelity text not null,
  query text,
  model text,
  status text not null default 'pending' check (status in ('pending', 'running', 'succeeded', 'failed')),
  lease_owner text,
  lease_expires_at timestamptz,
  attempts integer not null default 0,
  result jsonb,
  error text,
  created_at timestamptz not null default now(),
  finished_at timestamptz,
  primary key (job_id, ordinal)
);
create index batch_job_documents_open_idx on batch_job_documents (created_at, job_id, ordinal) where status in ('pending', 'running');

-- A2A protocol (v1.0) tasks: one per message sent to the agent's /a2a/v1 interfaces (HTTP+JSON and
-- JSON-RPC bindings). Not the federation's delegated A2A tasks (gc_a2a_task_*, /a2a/v1/tasks/claim),
-- which are a different resource with their own table.
-- state holds the protocol's own enum names. A task that is submitted or working is held by one
-- process (runner_id) whose lease it renews; a lease that lapses means that process died, and the
-- task is failed with a reason (docs/a2a.md), never left working.

create table a2a_protocol_tasks (
  id uuid primary key,
  context_id text not null,
  user_id uuid not null references users(id) on delete cascade,
  key_id text,
  skill text,
  state text not null check (state in ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED')),
  status_message jsonb,
  status_at timestamptz not null default now(),
  history jsonb not null default '[]',
  artifacts jsonb not null default '[]',
  metadata jsonb not null default '{}',
  runner_id uuid,
  lease_until timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index a2a_protocol_tasks_owner_idx on a2a_protocol_tasks (user_id, status_at desc, id desc);
create index a2a_protocol_tasks_open_idx on a2a_protocol_tasks (lease_until) where state in ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING');

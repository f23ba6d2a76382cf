// Delegated A2A tasks (spec "States and transitions > A2A task"). The requester side lives here: a
// task of the caller's project is delegated to one of the caller's registered peers (the assignee),
// which claims and completes it with Ed25519 proofs signed by its own key.
import type { Principal } from '../../auth/principal.js';
import type { Services } from '../../services.js';
import type { Queryable } from '../../store/db.js';
import { DomainError, invalid, notFound } from '../errors.js';
import { UUID } from '../knowledge/items.js';
import { signPayload, resultHash, verifyWith } from './jws.js';
import { requirePeer, type PeerRow } from './peers.js';
import { enqueueEvent } from './webhooks.js';
import { iso, nowIso } from '../../lib/time.js';

export const TASK_STATUSES = ['draft', 'pending', 'claimed', 'completed', 'cancelled', 'failed', 'expired', 'reassigned'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
/** Deadline rule: created_at + deadline_seconds (default one day, at most 30 days); pending and claimed tasks past it expire. */
export const DEFAULT_DEADLINE_SECONDS = 86_400;
export const MAX_DEADLINE_SECONDS = 30 * 86_400;

export interface TaskRow {
  id: string;
  user_id: string;
  project_id: string;
  requester_peer_id: string | null;
  assignee_peer_id: string;
  title: string;
  input: Record<string, unknown>;
  status: TaskStatus;
  contract_jws: string;
  deadline: Date;
  result_payload: unknown;
  result_hash: string | null;
  claim_proof_jws: string | null;
  result_proof_jws: string | null;
  reassigned_from: string | null;
  reassigned_to: string | null;
  warning_acked_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const taskNotFound = (id: string) => notFound(`A2A task '${id}' not found`);

/** An illegal transition names the current state. */
const wrongState = (task: TaskRow, action: string, allowed: string) =>
  new DomainError('conflict', `Task '${task.id}' is ${task.status}; ${action} needs ${allowed}`, { code: 'invalid_transition', extra: { current_status: task.status } });

/** Every proof failure is the same answer: which check failed is not said. */
export const invalidProof = () => invalid('invalid_request', { code: 'invalid_request' });

async function ownTask(db: Queryable, principal: Principal, projectId: string, taskId: string, lock = false): Promise<TaskRow> {
  if (!UUID.test(taskId)) throw taskNotFound(taskId);
  const [row] = await db.query<TaskRow>(
    `select * from a2a_tasks where id = $1 and user_id = $2 and project_id = $3${lock ? ' for update' : ''}`,
    [taskId, principal.userId, projectId],
  );
  if (!row) throw taskNotFound(taskId);
  return row;
}

/** Writes a state change (guarded by the state it was read in), its audit row and its event. */
async function transition(tx: Queryable, task: TaskRow, to: TaskStatus, sets: Record<string, unknown> = {}): Promise<TaskRow> {
  const cols = Object.keys(sets);
  const [row] = await tx.query<TaskRow>(
    `update a2a_tasks set status = $3, updated_at = now()${cols.map((c, i) => `, ${c} = $${i + 4}${c === 'result_payload' ? '::text::jsonb' : ''}`).join('')}
      where id = $1 and status = $2 returning *`,
    [task.id, task.status, to, ...cols.map((c) => sets[c])],
  );
  if (!row) {
    const [now] = await tx.query<TaskRow>('select * from a2a_tasks where id = $1', [task.id]);
    throw wrongState(now ?? task, to, task.status);
  }
  await recordEvent(tx, row, task.status);
  return row;
}

async function recordEvent(tx: Queryable, task: TaskRow, from: TaskStatus | null): Promise<void> {
  const [ev] = await tx.query<{ id: string; created_at: Date }>(
    'insert into a2a_task_events (task_id, from_status, to_status) values ($1, $2, $3) returning id, created_at',
    [task.id, from, task.status],
  );
  await enqueueEvent(tx, task.user_id, {
    id: ev!.id,
    type: 'a2a.task.status',
    created_at: iso(ev!.created_at),
    data: {
      task_id: task.id,
      project_id: task.project_id,
      status: task.status,
      previous_status: from,
      assignee_peer_id: task.assignee_peer_id,
      reassigned_to: task.reassigned_to,
      reassigned_from: task.reassigned_from,
    },
  });
}

/** Deliveries go out now rather than at the sender's next poll. */
function kick(services: Services): void {
  void services.commerce.outbox.drainOnce().catch(() => 0);
}

async function contractFor(services: Services, t: { id: string; project_id: string; requester_peer_id: string | null; assignee_peer_id: string; title: string; input: unknown; deadline: Date }) {
  return signPayload(services.db, {
    typ: 'a2a-task-contract',
    task_id: t.id,
    project_id: t.project_id,
    requester_peer_id: t.requester_peer_id,
    assignee_peer_id: t.assignee_peer_id,
    title: t.title,
    input: t.input,
    deadline: t.deadline.toISOString(),
    issued_at: nowIso(),
  });
}

export interface CreateTaskInput {
  assignee_peer_id: string;
  title: string;
  input?: Record<string, unknown>;
  requester_peer_id?: string;
  deadline_seconds?: number;
}

export async function createTask(services: Services, principal: Principal, projectId: string, input: CreateTaskInput): Promise<TaskRow> {
  const { db } = services;
  const assignee = await requirePeer(db, principal, input.assignee_peer_id);
  const requester = input.requester_peer_id ? await requirePeer(db, principal, input.requester_peer_id) : null;
  const seconds = input.deadline_seconds ?? DEFAULT_DEADLINE_SECONDS;
  const id = crypto.randomUUID();
  const deadline = new Date(Date.now() + seconds * 1000);
  const contract = await contractFor(services, {
    id, project_id: projectId, requester_peer_id: requester?.id ?? null, assignee_peer_id: assignee.id, title: input.title, input: input.input ?? {}, deadline,
  });
  const task = await db.transaction(async (tx) => {
    const [row] = await tx.query<TaskRow>(
      `insert into a2a_tasks (id, user_id, project_id, requester_peer_id, assignee_peer_id, title, input, contract_jws, deadline)
       values ($1, $2, $3, $4, $5, $6, $7::text::jsonb, $8, $9) returning *`,
      [id, principal.userId, projectId, requester?.id ?? null, assignee.id, input.title, JSON.stringify(input.input ?? {}), contract, deadline.toISOString()],
    );
    await recordEvent(tx, row!, null);
    return row!;
  });
  kick(services);
  return task;
}

async function change(services: Services, principal: Principal, projectId: string, taskId: string, fn: (tx: Queryable, task: TaskRow) => Promise<TaskRow>): Promise<TaskRow> {
  await expireDue(services, projectId);
  const task = await services.db.transaction(async (tx) => fn(tx, await ownTask(tx, principal, projectId, taskId, true)));
  kick(services);
  return task;
}

export function approveTask(services: Services, principal: Principal, projectId: string, taskId: string) {
  return change(services, principal, projectId, taskId, async (tx, task) => {
    if (task.status !== 'draft') throw wrongState(task, 'approve', 'draft');
    return transition(tx, task, 'pending');
  });
}

export function cancelTask(services: Services, principal: Principal, projectId: string, taskId: string) {
  return change(services, principal, projectId, taskId, async (tx, task) => {
    if (task.status !== 'draft' && task.status !== 'pending') throw wrongState(task, 'cancel', 'draft or pending');
    return transition(tx, task, 'cancelled');
  });
}

/** Acknowledges an expired task's warning; idempotent (acknowledging again changes nothing). */
export function ackTask(services: Services, principal: Principal, projectId: string, taskId: string) {
  return change(services, principal, projectId, taskId, async (tx, task) => {
    if (task.status !== 'expired') throw wrongState(task, 'ack', 'expired');
    if (task.warning_acked_at) return task;
    const [row] = await tx.query<TaskRow>('update a2a_tasks set warning_acked_at = now(), updated_at = now() where id = $1 returning *', [task.id]);
    return row!;
  });
}

/** The original becomes reassigned; a new pending task goes to the other peer (both linked: the audit trail). */
export async function reassignTask(services: Services, principal: Principal, projectId: string, taskId: string, newPeerId: string): Promise<{ original: TaskRow; task: TaskRow }> {
  const { db } = services;
  await expireDue(services, projectId);
  const peer = await requirePeer(db, principal, newPeerId);
  const id = crypto.randomUUID();
  const result = await db.transaction(async (tx) => {
    const task = await ownTask(tx, principal, projectId, taskId, true);
    if (!['pending', 'claimed', 'expired'].includes(task.status)) throw wrongState(task, 'reassign', 'pending, claimed or expired');
    if (peer.id === task.assignee_peer_id) throw invalid('The task is already assigned to this peer; reassign needs a different peer');
    const duration = Math.max(1000, new Date(task.deadline).getTime() - new Date(task.created_at).getTime());
    const deadline = new Date(Date.now() + duration);
    const contract = await contractFor(services, { ...task, id, assignee_peer_id: peer.id, deadline });
    const [created] = await tx.query<TaskRow>(
      `insert into a2a_tasks (id, user_id, project_id, requester_peer_id, assignee_peer_id, title, input, contract_jws, deadline, status, reassigned_from)
       values ($1, $2, $3, $4, $5, $6, $7::text::jsonb, $8, $9, 'pending', $10) returning *`,
      [id, task.user_id, task.project_id, task.requester_peer_id, peer.id, task.title, JSON.stringify(task.input), contract, deadline.toISOString(), task.id],
    );
    const original = await transition(tx, task, 'reassigned', { reassigned_to: id, warning_acked_at: task.warning_acked_at ?? nowIso() });
    await recordEvent(tx, created!, null);
    return { original, task: created! };
  });
  kick(services);
  return result;
}

export interface ProofInput {
  task_id: string;
  from_peer_id: string;
  proof_jws: string;
}

/**
 * Checks an assignee's proof: from_peer_id is the task's assignee, the JWS verifies against that
 * peer's registered keys and its payload names this task_id and this action. Null when any check fails.
 */
async function verifiedProof(db: Queryable, task: TaskRow, input: ProofInput, action: 'claim' | 'complete'): Promise<Record<string, unknown> | null> {
  if (input.from_peer_id !== task.assignee_peer_id) return null;
  const [peer] = await db.query<PeerRow>('select * from a2a_peers where id = $1 and user_id = $2', [task.assignee_peer_id, task.user_id]);
  if (!peer) return null;
  const payload = await verifyWith(input.proof_jws, peer.public_keys);
  if (!payload || payload.task_id !== task.id || payload.action !== action) return null;
  return payload;
}

/**
 * Claim or complete. With a principal (the tools) the task must be in the caller's project; without
 * one (the public /a2a/v1/tasks/claim|complete) the proof alone authorises. An unknown task and a bad
 * proof give the same invalid_request; a valid proof on a task in the wrong state names the state.
 */
async function assigneeAction(
  services: Services,
  scope: { principal: Principal; projectId: string } | null,
  input: ProofInput & { result_payload?: unknown; result_hash?: string },
  action: 'claim' | 'complete',
): Promise<TaskRow> {
  const { db } = services;
  if (!UUID.test(input.task_id) || !UUID.test(input.from_peer_id) || typeof input.proof_jws !== 'string') {
    if (scope && !UUID.test(input.task_id)) throw taskNotFound(input.task_id);
    throw invalidProof();
  }
  if (scope) await ownTask(db, scope.principal, scope.projectId, input.task_id);
  const [found] = await db.query<{ project_id: string }>('select project_id from a2a_tasks where id = $1', [input.task_id]);
  if (!found) throw invalidProof();
  await expireDue(services, found.project_id);
  const task = await db.transaction(async (tx) => {
    const [task] = await tx.query<TaskRow>('select * from a2a_tasks where id = $1 for update', [input.task_id]);
    if (!task) throw invalidProof();
    const payload = await verifiedProof(tx, task, input, action);
    if (!payload) throw invalidProof();
    if (action === 'claim') {
      if (task.status !== 'pending') throw wrongState(task, 'claim', 'pending');
      return transition(tx, task, 'claimed', { claim_proof_jws: input.proof_jws });
    }
    if (task.status !== 'claimed') throw wrongState(task, 'complete', 'claimed');
    if (input.result_payload === undefined) throw invalidProof();
    let hash: string;
    try {
      hash = resultHash(input.result_payload);
    } catch {
      throw invalidProof();
    }
    if (payload.result_hash !== hash || (input.result_hash !== undefined && input.result_hash !== hash)) throw invalidProof();
    return transition(tx, task, 'completed', {
      result_payload: JSON.stringify(input.result_payload),
      result_hash: hash,
      result_proof_jws: input.proof_jws,
    });
  });
  kick(services);
  return task;
}

export const claimTask = (services: Services, scope: { principal: Principal; projectId: string } | null, input: ProofInput) =>
  assigneeAction(services, scope, input, 'claim');

export const completeTask = (services: Services, scope: { principal: Principal; projectId: string } | null, input: ProofInput & { result_payload: unknown; result_hash?: string }) =>
  assigneeAction(services, scope, input, 'complete');

export async function taskStatus(services: Services, principal: Principal, projectId: string, taskId: string) {
  await expireDue(services, projectId);
  const task = await ownTask(services.db, principal, projectId, taskId);
  const history = await services.db.query<{ id: string; from_status: string | null; to_status: string; created_at: Date }>(
    'select id, from_status, to_status, created_at from a2a_task_events where task_id = $1 order by created_at, id',
    [task.id],
  );
  return { task, history };
}

/** The assignees' view: tasks of the project they can see (never drafts), by status (default pending). */
export async function taskInbox(services: Services, principal: Principal, projectId: string, status: Exclude<TaskStatus, 'draft'> = 'pending', peerId?: string) {
  await expireDue(services, projectId);
  if (peerId !== undefined) await requirePeer(services.db, principal, peerId);
  const tasks = await services.db.query<TaskRow>(
    `select * from a2a_tasks where project_id = $1 and user_id = $2 and status = $3 and status <> 'draft'
       and ($4::uuid is null or assignee_peer_id = $4::uuid) order by created_at, id limit 200`,
    [projectId, principal.userId, status, peerId ?? null],
  );
  const warnings = await services.db.query<TaskRow>(
    `select * from a2a_tasks where project_id = $1 and user_id = $2 and status = 'expired' and warning_acked_at is null order by deadline, id limit 200`,
    [projectId, principal.userId],
  );
  return { tasks, warnings: warnings.map(warningOf).filter((w) => w !== null) };
}

export function warningOf(t: TaskRow) {
  if (t.status !== 'expired' || t.warning_acked_at) return null;
  return { task_id: t.id, code: 'a2a_task_expired', message: `Task '${t.title}' expired at ${iso(t.deadline)} before it was completed; reassign or acknowledge it (gc_a2a_task_ack).` };
}

/** Pending and claimed tasks past their deadline become expired (with their event). */
export async function expireDue(services: Services, projectId?: string): Promise<number> {
  const due = await services.db.query<{ id: string }>(
    `select id from a2a_tasks where status in ('pending', 'claimed') and deadline <= now() and ($1::uuid is null or project_id = $1::uuid) order by deadline limit 100`,
    [projectId ?? null],
  );
  let n = 0;
  for (const { id } of due) {
    const done = await services.db.transaction(async (tx) => {
      const [task] = await tx.query<TaskRow>(`select * from a2a_tasks where id = $1 and status in ('pending', 'claimed') and deadline <= now() for update`, [id]);
      if (!task) return false;
      await transition(tx, task, 'expired');
      return true;
    });
    if (done) n++;
  }
  if (n) kick(services);
  return n;
}

/** The periodic sweeper (every FEDERATION_SWEEP_MS, default 5 s) started by app.ts. */
export function startTaskSweeper(services: Services): () => Promise<void> {
  const ms = services.config.federation.sweepMs;
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = expireDue(services)
      .catch((err) => services.log.error('a2a task sweep failed', { error: (err as Error).message }))
      .finally(() => {
        running = null;
      });
  }, ms);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

export function taskResponse(t: TaskRow) {
  return {
    task_id: t.id,
    status: t.status,
    project_id: t.project_id,
    requester_peer_id: t.requester_peer_id,
    assignee_peer_id: t.assignee_peer_id,
    title: t.title,
    input: t.input,
    contract_jws: t.contract_jws,
    deadline: iso(t.deadline),
    result_payload: t.result_payload ?? null,
    result_hash: t.result_hash,
    result_proof_jws: t.result_proof_jws,
    reassigned_from: t.reassigned_from,
    reassigned_to: t.reassigned_to,
    warning: warningOf(t),
    created_at: iso(t.created_at),
    updated_at: iso(t.updated_at),
  };
}

/** The assignee side: a proof signed with this service's key (the peer's own key, seen from the requester). */
export async function signProof(services: Services, input: { task_id: string; action: 'claim' | 'complete'; result_payload?: unknown }) {
  let hash: string | undefined;
  if (input.action === 'complete') {
    if (input.result_payload === undefined) throw invalid('result_payload is required for a complete proof');
    hash = resultHash(input.result_payload);
  }
  const proof = await signPayload(services.db, {
    task_id: input.task_id,
    action: input.action,
    ...(hash ? { result_hash: hash } : {}),
    iat: Math.floor(Date.now() / 1000),
  });
  return { task_id: input.task_id, action: input.action, proof_jws: proof, result_hash: hash ?? null };
}


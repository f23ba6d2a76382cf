import type { Queryable } from '../../store/db.js';
import { OPEN_STATES, TERMINAL_STATES, type Artifact, type Message, type Task, type TaskState, type TaskStatus } from './wire.js';
import { iso, nowIso } from '../../lib/time.js';

/** One row of a2a_protocol_tasks (src/store/migrations/050_a2a_protocol.sql). */
export interface TaskRow {
  id: string;
  context_id: string;
  user_id: string;
  key_id: string | null;
  skill: string | null;
  state: TaskState;
  status_message: Message | null;
  status_at: Date | string;
  history: Message[];
  artifacts: Artifact[];
  metadata: Record<string, unknown>;
  runner_id: string | null;
  lease_until: Date | string | null;
}

const OPEN = `('${OPEN_STATES.join("', '")}')`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isTaskId(id: string): boolean {
  return UUID.test(id);
}


/** The stored status of a row, as the protocol shows it. */
export function statusOf(row: TaskRow): TaskStatus {
  return { state: row.state, ...(row.status_message ? { message: row.status_message } : {}), timestamp: iso(row.status_at) };
}

export interface TaskView {
  /** Most recent messages to include; undefined: all; 0: none. */
  historyLength?: number;
  includeArtifacts?: boolean;
}

/** A row as the protocol's Task. */
export function taskOf(row: TaskRow, view: TaskView = {}): Task {
  const history = view.historyLength === undefined ? row.history : view.historyLength === 0 ? [] : row.history.slice(-view.historyLength);
  return {
    id: row.id,
    contextId: row.context_id,
    status: statusOf(row),
    ...(view.includeArtifacts === false || row.artifacts.length === 0 ? {} : { artifacts: row.artifacts }),
    ...(history.length ? { history } : {}),
    ...(Object.keys(row.metadata).length ? { metadata: row.metadata } : {}),
  };
}

export interface NewTask {
  id: string;
  contextId: string;
  userId: string;
  keyId: string | null;
  skill: string | null;
  history: Message[];
  metadata: Record<string, unknown>;
  runnerId: string;
  leaseMs: number;
  at: string;
}

export async function insertTask(db: Queryable, t: NewTask): Promise<TaskRow> {
  const [row] = await db.query<TaskRow>(
    `insert into a2a_protocol_tasks (id, context_id, user_id, key_id, skill, state, status_at, history, metadata, runner_id, lease_until)
     values ($1, $2, $3, $4, $5, 'TASK_STATE_SUBMITTED', $6::timestamptz, $7::text::jsonb, $8::text::jsonb, $9, now() + ($10::int * interval '1 millisecond'))
     returning *`,
    [t.id, t.contextId, t.userId, t.keyId, t.skill, t.at, JSON.stringify(t.history), JSON.stringify(t.metadata), t.runnerId, t.leaseMs],
  );
  return row!;
}

/** The caller's task, or null: another user's task is indistinguishable from none. */
export async function getTaskRow(db: Queryable, userId: string, id: string): Promise<TaskRow | null> {
  if (!isTaskId(id)) return null;
  const [row] = await db.query<TaskRow>('select * from a2a_protocol_tasks where id = $1 and user_id = $2', [id, userId]);
  return row ?? null;
}

/**
 * Moves an open task to a new status (and artifacts), only while it is still open: a task canceled, or
 * failed by the orphan sweep, in the meantime stays as it is (null is returned). A terminal status
 * drops the lease.
 */
export async function setStatus(db: Queryable, id: string, status: TaskStatus, artifacts?: Artifact[]): Promise<TaskRow | null> {
  const terminal = TERMINAL_STATES.has(status.state);
  const [row] = await db.query<TaskRow>(
    `update a2a_protocol_tasks
        set state = $2, status_message = $3::text::jsonb, status_at = $4::timestamptz,
            artifacts = coalesce($5::text::jsonb, artifacts), updated_at = now()${terminal ? ', lease_until = null' : ''}
      where id = $1 and state in ${OPEN}
      returning *`,
    [id, status.state, status.message ? JSON.stringify(status.message) : null, status.timestamp, artifacts ? JSON.stringify(artifacts) : null],
  );
  return row ?? null;
}

/** Extends the lease of every open task this process runs; answers the ids still open (others were canceled or swept). */
export async function renewLeases(db: Queryable, runnerId: string, leaseMs: number): Promise<Set<string>> {
  const rows = await db.query<{ id: string }>(
    `update a2a_protocol_tasks set lease_until = now() + ($2::int * interval '1 millisecond')
      where runner_id = $1 and state in ${OPEN} returning id`,
    [runnerId, leaseMs],
  );
  return new Set(rows.map((r) => r.id));
}

/**
 * Fails open tasks whose process is gone: those whose lease lapsed, or (everyOpen, for a store only one
 * process can open) every open task not run by `runnerId`. Optionally only one user's tasks.
 */
export async function failOrphans(db: Queryable, message: Message, options: { runnerId: string; everyOpen?: boolean; userId?: string }): Promise<TaskRow[]> {
  const params: unknown[] = [JSON.stringify(message), nowIso(), options.runnerId];
  let where = `state in ${OPEN} and runner_id is distinct from $3`;
  if (!options.everyOpen) where += ' and lease_until < now()';
  if (options.userId) {
    params.push(options.userId);
    where += ` and user_id = $${params.length}`;
  }
  return db.query<TaskRow>(
    `update a2a_protocol_tasks
        set state = 'TASK_STATE_FAILED', status_message = $1::text::jsonb, status_at = $2::timestamptz, lease_until = null, updated_at = now()
      where ${where}
      returning *`,
    params,
  );
}

export interface ListFilter {
  contextId?: string;
  state?: TaskState;
  /** Only tasks whose status changed at or after this instant. */
  statusAfter?: string;
  pageSize: number;
  pageToken?: string;
}

/** Page token: the last row's (status_at, id), opaque to clients. */
function encodeToken(row: TaskRow): string {
  return Buffer.from(`${iso(row.status_at)}|${row.id}`).toString('base64url');
}

export function decodeToken(token: string): { at: string; id: string } | null {
  const [at, id] = Buffer.from(token, 'base64url').toString('utf8').split('|');
  if (!at || !id || !isTaskId(id) || Number.isNaN(Date.parse(at))) return null;
  return { at, id };
}

/** The caller's tasks, most recently updated first, keyset-paginated. */
export async function listTaskRows(db: Queryable, userId: string, f: ListFilter): Promise<{ rows: TaskRow[]; next: string; total: number }> {
  const params: unknown[] = [userId];
  let where = 'user_id = $1';
  if (f.contextId) {
    params.push(f.contextId);
    where += ` and context_id = $${params.length}`;
  }
  if (f.state) {
    params.push(f.state);
    where += ` and state = $${params.length}`;
  }
  if (f.statusAfter) {
    params.push(f.statusAfter);
    where += ` and status_at >= $${params.length}::timestamptz`;
  }
  const [count] = await db.query<{ n: number }>(`select count(*)::int as n from a2a_protocol_tasks where ${where}`, params);
  let page = where;
  const pageParams = [...params];
  const cursor = f.pageToken ? decodeToken(f.pageToken) : null;
  if (cursor) {
    pageParams.push(cursor.at, cursor.id);
    page += ` and (status_at, id) < ($${pageParams.length - 1}::timestamptz, $${pageParams.length}::uuid)`;
  }
  pageParams.push(f.pageSize + 1);
  const rows = await db.query<TaskRow>(`select * from a2a_protocol_tasks where ${page} order by status_at desc, id desc limit $${pageParams.length}`, pageParams);
  const more = rows.length > f.pageSize;
  const shown = more ? rows.slice(0, f.pageSize) : rows;
  return { rows: shown, next: more ? encodeToken(shown[shown.length - 1]!) : '', total: Number(count?.n ?? 0) };
}

import { randomUUID } from 'node:crypto';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../../auth/principal.js';
import { Call, type ProgressUpdate } from '../../domain/call.js';
import { compressTextCached, type CompressResponse } from '../../domain/compression/text.js';
import { asDomainError } from '../../domain/errors.js';
import { callTool, toolErrorOf } from '../../mcp/call.js';
import { newSessionState } from '../../mcp/session.js';
import type { Services } from '../../services.js';
import { TaskBus } from './bus.js';
import type { ListTasksParams, SendMessage, Work } from './request.js';
import { workOf } from './request.js';
import { failOrphans, getTaskRow, insertTask, listTaskRows, renewLeases, setStatus, statusOf, taskOf, type TaskRow } from './store.js';
import {
  A2AProtocolError,
  taskNotFound,
  TERMINAL_STATES,
  type Artifact,
  type ListTasksResponse,
  type Message,
  type Part,
  type StreamResponse,
  type Task,
  type TaskState,
  type TaskStatus,
} from './wire.js';
import { nowIso } from '../../lib/time.js';

/** How long a running task's process holds it without renewing; a lapsed lease means the process died. */
export const LEASE_MS = 15_000;
const RENEW_MS = 5_000;
/** How often open tasks with a lapsed lease are looked for (also on every read of the owner's tasks). */
const SWEEP_MS = 5_000;
/** A subscriber to a task another instance runs reads its state this often. */
const REMOTE_POLL_MS = 1_000;

/** Tool-level error codes that mean the agent will not do it (the task is rejected rather than failed). */
const REJECTING = new Set(['plan_required', 'forbidden', 'no_project_selected', 'quota_exceeded', 'rate_limited']);

export interface Caller {
  principal: Principal;
  /** The client's User-Agent (the usage event's client). */
  client: string | null;
  /** Public base URL as the client reached us (tools that return URLs use it). */
  baseUrl: string;
}

interface Running {
  bus: TaskBus;
  abort: AbortController;
  done: Promise<void>;
  /** Progress statuses of this run, written in order. The final status does not wait for them: a status is written only while the task is open, so a late progress write after the final one changes nothing. */
  writes: Promise<unknown>;
  /** The stored task once the run has ended (null when canceled or swept meanwhile). */
  final: TaskRow | null;
}

const ORPHANED =
  'The service process running this task stopped before it finished (restart or crash); its result was lost. Send the message again.';
const SHUTDOWN = 'The service shut down before this task finished; its result was lost. Send the message again.';

/**
 * The A2A protocol's tasks (v1.0): one per message. The work runs in the background of this process
 * through the same pipelines as the other surfaces (callTool for skills, the /v1/compress use case for
 * text); the task's state lives in PostgreSQL / PGlite, owner-scoped, and outlives the process.
 * Transport-agnostic: src/routes/a2a.ts puts the HTTP+JSON and JSON-RPC bindings in front of it.
 */
export class A2AProtocol {
  /** This process, as the holder of the tasks it runs. */
  readonly runnerId = randomUUID();
  private readonly running = new Map<string, Running>();
  private timers: NodeJS.Timeout[] = [];
  private closed = false;

  constructor(private readonly services: Services) {}

  /**
   * Resolves what a previous process left open, then keeps this process's leases and sweeps others'
   * lapsed ones. An embedded database (PGlite) belongs to one process, so every open task found at start
   * is an orphan; on PostgreSQL only those whose lease lapsed are (another instance may be running the rest).
   */
  async start(): Promise<number> {
    const swept = await this.sweep(this.services.db.kind === 'pglite');
    const renew = setInterval(() => void this.renew().catch((err) => this.warn('a2a lease renewal failed', err)), RENEW_MS);
    const sweep = setInterval(() => void this.sweep(false).catch((err) => this.warn('a2a orphan sweep failed', err)), SWEEP_MS);
    renew.unref();
    sweep.unref();
    this.timers = [renew, sweep];
    return swept;
  }

  /** Stops the timers; tasks still running are stopped and failed with a reason (not left working). */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    const open = [...this.running.entries()];
    await Promise.all(
      open.map(async ([id, run]) => {
        run.abort.abort(new Error('shutdown'));
        const row = await setStatus(this.services.db, id, this.agentStatus(id, null, 'TASK_STATE_FAILED', [{ text: SHUTDOWN }])).catch(() => null);
        if (row) run.bus.publish({ statusUpdate: { taskId: id, contextId: row.context_id, status: statusOf(row) } });
        run.bus.end();
      }),
    );
    await Promise.race([Promise.allSettled(open.map(([, r]) => r.done)), new Promise((r) => setTimeout(r, 5_000).unref())]);
  }

  private warn(what: string, err: unknown): void {
    this.services.log.warn(what, { error: err instanceof Error ? err.message : String(err) });
  }

  private async renew(): Promise<void> {
    if (this.running.size === 0) return;
    const open = await renewLeases(this.services.db, this.runnerId, LEASE_MS);
    // Canceled (or swept) elsewhere, e.g. through another instance: stop the work here too.
    for (const [id, run] of this.running) if (!open.has(id)) run.abort.abort(new Error('task no longer open'));
  }

  private async sweep(everyOpen: boolean, userId?: string): Promise<number> {
    const rows = await failOrphans(this.services.db, this.agentMessage(null, null, [{ text: ORPHANED }]), { runnerId: this.runnerId, everyOpen, userId });
    if (rows.length) this.services.log.warn('a2a tasks of a stopped process failed', { count: rows.length });
    return rows.length;
  }

  private agentMessage(taskId: string | null, contextId: string | null, parts: Part[], metadata?: Record<string, unknown>): Message {
    return {
      messageId: randomUUID(),
      role: 'ROLE_AGENT',
      ...(taskId ? { taskId } : {}),
      ...(contextId ? { contextId } : {}),
      parts,
      ...(metadata ? { metadata } : {}),
    };
  }

  private agentStatus(taskId: string, contextId: string | null, state: TaskState, parts: Part[] | null, metadata?: Record<string, unknown>): TaskStatus {
    return { state, ...(parts ? { message: this.agentMessage(taskId, contextId, parts, metadata) } : {}), timestamp: nowIso() };
  }

  /** A task for the message, stored as submitted, with its run prepared but not started. */
  private async begin(caller: Caller, send: SendMessage): Promise<{ row: TaskRow; run: Running; start: () => void }> {
    if (this.closed) throw new A2AProtocolError('UnsupportedOperationError', 'The service is shutting down; send the message again shortly');
    if (send.message.taskId) {
      // Every task here is one turn: it never waits for input, so a message cannot continue one.
      const existing = await getTaskRow(this.services.db, caller.principal.userId, send.message.taskId);
      if (!existing) throw taskNotFound(send.message.taskId);
      throw new A2AProtocolError('UnsupportedOperationError', `Task ${existing.id} is ${existing.state}: tasks of this agent take one message; send a new message without taskId`);
    }
    const work = workOf(send.message);
    const id = randomUUID();
    const contextId = send.message.contextId || randomUUID();
    const message: Message = { ...send.message, taskId: id, contextId };
    const row = await insertTask(this.services.db, {
      id,
      contextId,
      userId: caller.principal.userId,
      keyId: caller.principal.keyId,
      skill: work.kind === 'skill' ? work.skill : null,
      history: [message],
      metadata: work.kind === 'skill' ? { skill: work.skill } : { skill: null, fidelity: work.fidelity },
      runnerId: this.runnerId,
      leaseMs: LEASE_MS,
      at: nowIso(),
    });
    let release!: () => void;
    const started = new Promise<void>((r) => (release = r));
    const run: Running = { bus: new TaskBus(), abort: new AbortController(), done: Promise.resolve(), writes: Promise.resolve(), final: null };
    run.done = started.then(() => this.execute(row, work, caller, run));
    this.running.set(id, run);
    return { row, run, start: release };
  }

  /** SendMessage: the task once it is done (or at once, submitted, with returnImmediately). */
  async send(caller: Caller, send: SendMessage): Promise<Task> {
    const { row, run, start } = await this.begin(caller, send);
    start();
    if (send.returnImmediately) return taskOf(row, { historyLength: send.historyLength });
    await run.done;
    const done = run.final ?? (await getTaskRow(this.services.db, caller.principal.userId, row.id));
    return taskOf(done ?? row, { historyLength: send.historyLength });
  }

  /** SendStreamingMessage: the task, then its status updates and artifact until it ends. */
  async stream(caller: Caller, send: SendMessage): Promise<AsyncGenerator<StreamResponse>> {
    const { row, run, start } = await this.begin(caller, send);
    const events = run.bus.follow();
    start();
    return (async function* () {
      try {
        yield { task: taskOf(row, { historyLength: send.historyLength }) };
        yield* events;
      } finally {
        await events.return(undefined);
      }
    })();
  }

  /** The caller's task; open tasks of a process that died are failed first, so none reads as working forever. */
  private async read(userId: string, id: string): Promise<TaskRow> {
    let row = await getTaskRow(this.services.db, userId, id);
    if (!row) throw taskNotFound(id);
    if (!TERMINAL_STATES.has(row.state) && !this.running.has(id) && row.lease_until && new Date(row.lease_until).getTime() < Date.now()) {
      await this.sweep(false, userId);
      row = (await getTaskRow(this.services.db, userId, id)) ?? row;
    }
    return row;
  }

  async get(caller: Caller, id: string, historyLength?: number): Promise<Task> {
    return taskOf(await this.read(caller.principal.userId, id), { historyLength });
  }

  async list(caller: Caller, p: ListTasksParams): Promise<ListTasksResponse> {
    await this.sweep(false, caller.principal.userId);
    const { rows, next, total } = await listTaskRows(this.services.db, caller.principal.userId, {
      contextId: p.contextId,
      state: p.state,
      statusAfter: p.statusAfter,
      pageSize: p.pageSize,
      pageToken: p.pageToken,
    });
    return { tasks: rows.map((r) => taskOf(r, { historyLength: p.historyLength, includeArtifacts: p.includeArtifacts })), nextPageToken: next, pageSize: p.pageSize, totalSize: total };
  }

  /** CancelTask: an open task becomes canceled and its work stops (its pool tasks are dropped). */
  async cancel(caller: Caller, id: string): Promise<Task> {
    const row = await this.read(caller.principal.userId, id);
    if (row.state === 'TASK_STATE_CANCELED') return taskOf(row);
    if (TERMINAL_STATES.has(row.state)) throw new A2AProtocolError('TaskNotCancelableError', `Task ${id} is already ${row.state} and cannot be canceled`);
    const canceled = await setStatus(this.services.db, id, this.agentStatus(id, row.context_id, 'TASK_STATE_CANCELED', [{ text: 'Canceled at the client’s request.' }]));
    if (!canceled) {
      const now = await this.read(caller.principal.userId, id);
      if (now.state === 'TASK_STATE_CANCELED') return taskOf(now);
      throw new A2AProtocolError('TaskNotCancelableError', `Task ${id} finished (${now.state}) before it could be canceled`);
    }
    const run = this.running.get(id);
    if (run) {
      run.abort.abort(new Error('canceled'));
      run.bus.publish({ statusUpdate: { taskId: id, contextId: canceled.context_id, status: statusOf(canceled) } });
    }
    return taskOf(canceled);
  }

  /** SubscribeToTask: the task now, then what happens to it until it ends. */
  async subscribe(caller: Caller, id: string): Promise<AsyncGenerator<StreamResponse>> {
    const events = this.running.get(id)?.bus.follow();
    let row: TaskRow;
    try {
      row = await this.read(caller.principal.userId, id);
      if (TERMINAL_STATES.has(row.state)) {
        throw new A2AProtocolError('UnsupportedOperationError', `Task ${id} is in a terminal state (${row.state}) and cannot be subscribed to; read it with GetTask`);
      }
    } catch (err) {
      await events?.return(undefined);
      throw err;
    }
    const poll = () => this.followStored(caller.principal.userId, row);
    return (async function* () {
      try {
        yield { task: taskOf(row) };
        yield* events ?? poll();
      } finally {
        await events?.return(undefined);
      }
    })();
  }

  /** Follows a task run by another process through the store: status changes, then the artifacts and the end. */
  private async *followStored(userId: string, first: TaskRow): AsyncGenerator<StreamResponse> {
    let last = statusOf(first).timestamp;
    for (;;) {
      await new Promise((r) => setTimeout(r, REMOTE_POLL_MS));
      const row = await this.read(userId, first.id);
      const status = statusOf(row);
      if (status.timestamp === last && status.state === first.state) continue;
      last = status.timestamp;
      if (TERMINAL_STATES.has(row.state)) {
        for (const artifact of row.artifacts) yield { artifactUpdate: { taskId: row.id, contextId: row.context_id, artifact, lastChunk: true } };
      }
      yield { statusUpdate: { taskId: row.id, contextId: row.context_id, status } };
      if (TERMINAL_STATES.has(row.state)) return;
    }
  }

  /** Runs the work, publishing and storing its statuses; never throws (a failure is the task's state). */
  private async execute(row: TaskRow, work: Work, caller: Caller, run: Running): Promise<void> {
    const { id, context_id: contextId } = row;
    const db = this.services.db;
    const publish = (status: TaskStatus, metadata?: Record<string, unknown>) =>
      run.bus.publish({ statusUpdate: { taskId: id, contextId, status, ...(metadata ? { metadata } : {}) } });
    /** A working status: published at once, stored in order behind the previous ones. */
    const working = (text: string, metadata?: Record<string, unknown>) => {
      const status = this.agentStatus(id, contextId, 'TASK_STATE_WORKING', [{ text }], metadata);
      publish(status, metadata);
      run.writes = run.writes.then(() => setStatus(db, id, status)).catch((err) => this.warn('a2a status write failed', err));
    };
    try {
      working(work.kind === 'skill' ? `Running skill ${work.skill}` : `Compressing ${work.text.length} characters at fidelity ${work.fidelity}`);
      const onProgress = (u: ProgressUpdate) => working(u.message, { progress: u.progress, ...(u.total !== undefined ? { total: u.total } : {}) });
      const outcome = work.kind === 'skill' ? await this.runSkill(work, caller, run, onProgress, working) : await this.runText(work, caller, run, onProgress);
      if (run.abort.signal.aborted) return; // canceled (or shutting down): that status is already stored
      const final =
        outcome.ok
          ? this.agentStatus(id, contextId, 'TASK_STATE_COMPLETED', [{ text: outcome.summary }])
          : this.agentStatus(id, contextId, REJECTING.has(String(outcome.error.error)) ? 'TASK_STATE_REJECTED' : 'TASK_STATE_FAILED', [
              { text: `${String(outcome.error.error)}: ${String(outcome.error.detail ?? '')}`.slice(0, 2000) },
              { data: outcome.error, mediaType: 'application/json' },
            ]);
      const stored = await setStatus(db, id, final, outcome.ok ? [outcome.artifact] : undefined);
      if (!stored) return; // it was canceled or swept meanwhile; that status stands
      run.final = stored;
      if (outcome.ok) run.bus.publish({ artifactUpdate: { taskId: id, contextId, artifact: outcome.artifact, lastChunk: true } });
      publish(statusOf(stored));
    } catch (err) {
      this.services.log.error('a2a task failed', { task: id, error: err instanceof Error ? err.message : String(err) });
      const failed = this.agentStatus(id, contextId, 'TASK_STATE_FAILED', [{ text: 'internal_error: the task failed; retry with exponential back-off' }]);
      const stored = await setStatus(db, id, failed).catch(() => null);
      if (stored) publish(statusOf(stored));
    } finally {
      this.running.delete(id);
      run.bus.end();
    }
  }

  /** A skill is an MCP tool: the one tools/call pipeline (registry, plan gate, validation, quota, one usage event). */
  private async runSkill(
    work: Extract<Work, { kind: 'skill' }>,
    caller: Caller,
    run: Running,
    onProgress: (u: ProgressUpdate) => void,
    working: (text: string, metadata?: Record<string, unknown>) => void,
  ): Promise<Outcome> {
    const result: CallToolResult = await callTool(work.skill, work.arguments, {
      services: this.services,
      principal: caller.principal,
      session: newSessionState(null),
      client: caller.client,
      baseUrl: caller.baseUrl,
      signal: run.abort.signal,
      onProgress,
      // The pipeline's "still running" heartbeats (after 1 s, then every 5 s) become status updates too.
      log: (level, data) => {
        if (level === 'info' && typeof data.message === 'string') working(data.message, { elapsed_ms: data.elapsed_ms, steps_done: data.steps_done });
      },
    });
    const structured = (result.structuredContent ?? {}) as Record<string, unknown>;
    if (result.isError) return { ok: false, error: structured };
    const parts: Part[] = [];
    for (const field of ['output', 'compressed_text']) {
      if (typeof structured[field] === 'string') parts.push({ text: structured[field] as string, mediaType: 'text/plain' });
    }
    parts.push({ data: structured, mediaType: 'application/json' });
    return { ok: true, artifact: { artifactId: randomUUID(), name: work.skill, description: `Result of skill ${work.skill}`, parts }, summary: `Skill ${work.skill} done` };
  }

  /** Text parts: the /v1/compress use case (semantic cache, quota, the pool, one usage event) at the message's fidelity. */
  private async runText(work: Extract<Work, { kind: 'text' }>, caller: Caller, run: Running, onProgress: (u: ProgressUpdate) => void): Promise<Outcome> {
    const call = new Call({ services: this.services, principal: caller.principal, surface: 'REST', client: caller.client, signal: run.abort.signal, onProgress });
    let response: CompressResponse;
    try {
      const cached = await compressTextCached(call, { text: work.text, fidelity: work.fidelity, query: work.query });
      response = JSON.parse(Buffer.from(cached.body).toString('utf8')) as CompressResponse;
      await call.finish('success');
    } catch (err) {
      await call.finishWith(err).catch(() => undefined);
      const known = asDomainError(err);
      if (!known) throw err;
      return { ok: false, error: toolErrorOf(known) };
    }
    const { compressed_text, ...figures } = response;
    return {
      ok: true,
      artifact: {
        artifactId: randomUUID(),
        name: 'compressed_text',
        description: `The message's text compressed at fidelity ${work.fidelity}`,
        parts: [
          { text: compressed_text, mediaType: 'text/plain' },
          { data: figures, mediaType: 'application/json' },
        ],
      },
      summary: `Compressed ${figures.original_tokens} tokens to ${figures.compressed_tokens} (${figures.savings_percent}% saved)`,
    };
  }
}

type Outcome = { ok: true; artifact: Artifact; summary: string } | { ok: false; error: Record<string, unknown> };

const instances = new WeakMap<Services, A2AProtocol>();

/** The app's A2A protocol tasks (one per running app). */
export function a2aProtocol(services: Services): A2AProtocol {
  let p = instances.get(services);
  if (!p) {
    p = new A2AProtocol(services);
    instances.set(services, p);
  }
  return p;
}

/** Called by app.ts at start: resolves the tasks a previous process left open, then keeps leases. */
export async function startA2AProtocol(services: Services): Promise<A2AProtocol> {
  const p = a2aProtocol(services);
  await p.start();
  return p;
}

import { join } from 'node:path';
import { Piscina } from 'piscina';
import type { TaskOutcome, tasks } from '../../workers/index.js';
import { packageRoot } from '../lib/root.js';

type Tasks = typeof tasks;
export type TaskName = keyof Tasks;
export type TaskInput<K extends TaskName> = Parameters<Tasks[K]>[0];
export type TaskOutput<K extends TaskName> = Awaited<ReturnType<Tasks[K]>>;

/** The pool's queue is full: the HTTP layer answers 503 with Retry-After. */
export class PoolBusyError extends Error {
  override name = 'PoolBusyError';
}

/** A task failed inside its worker; `name` is the worker-side error class name. */
export class TaskError extends Error {
  constructor(
    override readonly name: string,
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/** A task ran past its deadline: its worker was stopped and replaced (REST 504, MCP timeout). */
export class TaskTimeoutError extends Error {
  override name = 'TaskTimeoutError';
}

export interface PoolOptions {
  threads: number;
  maxQueue: number;
  /** Default time budget of one task; past it the worker is terminated and the task fails. */
  taskDeadlineMs: number;
}

export interface RunOptions {
  /** Aborted when the caller goes away: queued work is dropped, running work stopped. */
  signal?: AbortSignal;
  /** Overrides the pool's default deadline for this task. */
  deadlineMs?: number;
}

/** Typed front of the Piscina pool; routes and domain code never touch Piscina directly. */
export class ComputePool {
  private readonly piscina: Piscina;
  private readonly deadlineMs: number;

  constructor(options: PoolOptions) {
    this.deadlineMs = options.taskDeadlineMs;
    this.piscina = new Piscina({
      filename: join(packageRoot(), 'dist', 'workers', 'index.js'),
      minThreads: options.threads,
      maxThreads: options.threads,
      maxQueue: options.maxQueue,
      idleTimeout: 60_000,
    });
  }

  /**
   * Runs one task. Only src/domain/compute.ts calls this: the use-case layer is the one door to the pool.
   * Aborting a running task makes Piscina terminate its worker and start a fresh one.
   */
  async run<K extends TaskName>(name: K, input: TaskInput<K>, options: RunOptions = {}): Promise<TaskOutput<K>> {
    if (this.piscina.queueSize >= this.piscina.options.maxQueue) throw new PoolBusyError('compute queue is full');
    const deadlineMs = options.deadlineMs ?? this.deadlineMs;
    const deadline = AbortSignal.timeout(deadlineMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    let outcome: TaskOutcome;
    try {
      outcome = await this.piscina.run({ name, input }, { signal });
    } catch (err) {
      if (err instanceof Error && /queue is at limit/i.test(err.message)) throw new PoolBusyError('compute queue is full');
      if (deadline.aborted && !options.signal?.aborted) throw new TaskTimeoutError(`${name} ran past its deadline of ${deadlineMs} ms`);
      throw err;
    }
    if (!outcome.ok) throw new TaskError(outcome.error.name, outcome.error.message, outcome.error.code);
    return outcome.value as TaskOutput<K>;
  }

  /** Loads every worker (grammars, tokenizers, models) before traffic; ignores the queue bound. */
  async warmUp(threads: number): Promise<void> {
    await Promise.all(Array.from({ length: threads }, () => this.piscina.run({ name: 'ping', input: undefined })));
  }

  stats() {
    return {
      threads: this.piscina.threads.length,
      queue_size: this.piscina.queueSize,
      max_queue: this.piscina.options.maxQueue,
      completed: this.piscina.completed,
      utilization: Math.round(this.piscina.utilization * 1000) / 1000,
    };
  }

  /** Waits for queued and running tasks, then stops the threads. */
  close(): Promise<void> {
    return this.piscina.close();
  }
}

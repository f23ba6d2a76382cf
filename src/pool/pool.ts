import { join } from 'node:path';
import { Piscina } from 'piscina';
import type { TaskOutcome } from '../../workers/index.js';
import type { ComputePool as ComputePoolPort, PoolStats, RunOptions, TaskInput, TaskName, TaskOutput } from '../domain/ports/compute.js';
import { packageRoot } from '../lib/root.js';
import { FairQueue } from './fairQueue.js';
import { TaskStop } from './taskStop.js';
import { sharedTokenTables } from '../../workers/shared/tokenTables.js';

export type { RunOptions, TaskInput, TaskName, TaskOutput };

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
  /** Nice value each compute thread sets for itself (Linux nice is per thread); 0 leaves it alone. */
  threadNice?: number;
}

/** How long a running task whose caller went away may still finish before its thread is terminated. */
export const ABANDON_GRACE_MS = 250;

/** A task waiting for a free thread. */
interface Waiting {
  start(): void;
  cancel(reason: unknown): void;
}

/** Typed front of the Piscina pool; routes and domain code never touch Piscina directly. */
export class ComputePool implements ComputePoolPort {
  private readonly piscina: Piscina;
  private readonly deadlineMs: number;
  private readonly threads: number;
  private readonly maxQueue: number;
  private readonly waiting = new FairQueue<Waiting>();
  private running = 0;
  private admittedTotal = 0;
  private readonly admitted = new Map<string, number>();

  constructor(options: PoolOptions) {
    this.deadlineMs = options.taskDeadlineMs;
    this.threads = options.threads;
    this.maxQueue = options.maxQueue;
    this.piscina = new Piscina({
      filename: join(packageRoot(), 'dist', 'workers', 'index.js'),
      minThreads: options.threads,
      maxThreads: options.threads,
      maxQueue: options.maxQueue,
      idleTimeout: 60_000,
      // The byte-pair rank tables, one SharedArrayBuffer copy read by every thread (docs/resident-memory.md).
      workerData: { nice: options.threadNice ?? 0, tokenTables: sharedTokenTables() },
    });
  }

  /**
   * Runs one task. Only src/domain/compute.ts calls this: the use-case layer is the one door to the pool.
   * Tasks go to Piscina only when a thread is free; until then they wait in a fair queue (round-robin
   * by owner, bounded by maxQueue), so one key's burst cannot starve the others. A running task whose
   * caller aborts gets ABANDON_GRACE_MS to finish; past that (or past its deadline) Piscina terminates
   * its worker and starts a fresh one.
   */
  async run<K extends TaskName>(name: K, input: TaskInput<K>, options: RunOptions = {}): Promise<TaskOutput<K>> {
    options.signal?.throwIfAborted();
    if (this.running >= this.threads) await this.waitForThread(options.owner ?? '', options.signal);
    this.running++;
    try {
      return await this.dispatch(name, input, options);
    } finally {
      this.running--;
      this.waiting.shift()?.start();
    }
  }

  /** Waiting tasks one owner may hold: half the queue, so a burst from one key leaves room for the others. */
  private get ownerShare(): number {
    return Math.max(1, Math.floor(this.maxQueue / 2));
  }

  /** Whether a task from `owner` would be refused right now. */
  saturatedFor(owner: string): boolean {
    if (this.running < this.threads) return false;
    return this.waiting.size >= this.maxQueue || this.waiting.sizeOf(owner) >= this.ownerShare;
  }

  /**
   * A place at the door for a metered request, taken before its body is read and held until it is
   * answered; null when the pool could not take it. The pool's own state is a snapshot that a burst
   * arriving at once outruns (every request sees an idle pool, then all bodies are read and parsed
   * for most to be refused), so admissions are counted too: at most the pool's capacity (threads +
   * queue) in all, and a thread's worth plus its queue share per owner.
   */
  admit(owner: string): (() => void) | null {
    const mine = this.admitted.get(owner) ?? 0;
    if (this.saturatedFor(owner) || this.admittedTotal >= this.threads + this.maxQueue || mine >= this.threads + this.ownerShare) return null;
    this.admittedTotal++;
    this.admitted.set(owner, mine + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.admittedTotal--;
      const left = (this.admitted.get(owner) ?? 1) - 1;
      if (left > 0) this.admitted.set(owner, left);
      else this.admitted.delete(owner);
    };
  }

  private waitForThread(owner: string, signal?: AbortSignal): Promise<void> {
    if (this.waiting.size >= this.maxQueue || this.waiting.sizeOf(owner) >= this.ownerShare) {
      return Promise.reject(new PoolBusyError('compute queue is full'));
    }
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        if (this.waiting.remove(owner, entry)) reject(signal!.reason);
      };
      const entry: Waiting = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        cancel: reject,
      };
      this.waiting.push(owner, entry);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private async dispatch<K extends TaskName>(name: K, input: TaskInput<K>, options: RunOptions): Promise<TaskOutput<K>> {
    const deadlineMs = options.deadlineMs ?? this.deadlineMs;
    const caller = options.signal;
    caller?.throwIfAborted();
    // Stopping a running task terminates its thread, and the fresh one loads every module and model
    // again (hundreds of ms of CPU). A caller that goes away (a client disconnect, an MCP cancel) so
    // lets the task run ABANDON_GRACE_MS more and drops its result; only a task still running then,
    // or one past its deadline, costs its thread.
    const stop = new TaskStop();
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      stop.abort(new TaskTimeoutError(`${name} ran past its deadline of ${deadlineMs} ms`));
    }, deadlineMs).unref();
    let grace: NodeJS.Timeout | undefined;
    const onCallerAbort = () => {
      grace = setTimeout(() => stop.abort(caller!.reason), ABANDON_GRACE_MS).unref();
    };
    caller?.addEventListener('abort', onCallerAbort, { once: true });
    let outcome: TaskOutcome;
    try {
      outcome = await this.piscina.run({ name, input }, { signal: stop });
    } catch (err) {
      if (timedOut && !caller?.aborted) throw new TaskTimeoutError(`${name} ran past its deadline of ${deadlineMs} ms`);
      throw caller?.aborted ? caller.reason : err;
    } finally {
      clearTimeout(deadline);
      clearTimeout(grace);
      caller?.removeEventListener('abort', onCallerAbort);
    }
    caller?.throwIfAborted();
    if (!outcome.ok) throw new TaskError(outcome.error.name, outcome.error.message, outcome.error.code);
    return outcome.value as TaskOutput<K>;
  }

  /** Loads every worker (grammars, tokenizers, models) before traffic; ignores the queue bound. */
  async warmUp(threads: number): Promise<void> {
    await Promise.all(Array.from({ length: threads }, () => this.piscina.run({ name: 'ping', input: undefined })));
  }

  stats(): PoolStats {
    return {
      threads: this.piscina.threads.length,
      running: this.running,
      queue_size: this.waiting.size,
      admitted: this.admittedTotal,
      max_queue: this.maxQueue,
      completed: this.piscina.completed,
      utilization: Math.round(this.piscina.utilization * 1000) / 1000,
    };
  }

  /** Refuses waiting tasks, then stops the threads: running tasks finish, unless `force` terminates them. */
  close(options: { force?: boolean } = {}): Promise<void> {
    for (let w = this.waiting.shift(); w; w = this.waiting.shift()) w.cancel(new PoolBusyError('compute pool is shutting down'));
    return options.force ? this.piscina.destroy() : this.piscina.close();
  }
}

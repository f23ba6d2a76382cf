import type { ThreadGate } from '../domain/ports/compute.js';
import { PoolBusyError, TaskTimeoutError, type RunOptions } from './pool.js';

export interface ThreadDoorOptions {
  /** Requests one thread may have outstanding; past it callers get PoolBusyError (503). */
  maxInFlight: number;
  /** Default time a caller waits for an answer (TaskTimeoutError past it). */
  deadlineMs: number;
}

/** One index thread's bounds: the pool's default queue per thread (POOL_MAX_QUEUE = 64 x threads) and task deadline. */
export const THREAD_DOOR_DEFAULTS: ThreadDoorOptions = { maxInFlight: 64, deadlineMs: 120_000 };

/**
 * Admission to one long-lived thread (the knowledge or code index), with the pool's vocabulary: a
 * bounded backlog (PoolBusyError when full), a deadline (TaskTimeoutError) and the caller's abort.
 * The thread serves every project and cannot drop one request, so a caller that gives up gets its
 * answer at once while the request still counts against the bound until the thread has answered it.
 * Only src/domain/compute.ts calls run().
 */
export class ThreadDoor implements ThreadGate {
  private inFlight = 0;

  constructor(
    readonly name: string,
    private readonly options: ThreadDoorOptions,
  ) {}

  get size(): number {
    return this.inFlight;
  }

  async run<T>(work: () => Promise<T>, options: RunOptions = {}): Promise<T> {
    const caller = options.signal;
    caller?.throwIfAborted();
    if (this.inFlight >= this.options.maxInFlight) throw new PoolBusyError(`${this.name} queue is full`);
    this.inFlight++;
    const running = work().finally(() => this.inFlight--);
    const deadlineMs = options.deadlineMs ?? this.options.deadlineMs;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const cut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TaskTimeoutError(`${this.name} did not answer within ${deadlineMs} ms`)), deadlineMs).unref();
      onAbort = () => reject(caller!.reason);
      caller?.addEventListener('abort', onAbort, { once: true });
    });
    running.catch(() => undefined); // answered after the caller left: nobody is waiting
    try {
      return await Promise.race([running, cut]);
    } finally {
      clearTimeout(timer);
      if (onAbort) caller?.removeEventListener('abort', onAbort);
    }
  }
}

// What the domain reaches of the compute pool and of the long-lived index threads (src/pool/ implements
// both). Types only: the pool's errors are classes the domain maps in src/domain/compute.ts.
import type { Tasks } from '../../../workers/index.js';

export type TaskName = keyof Tasks;
export type TaskInput<K extends TaskName> = Parameters<Tasks[K]>[0];
export type TaskOutput<K extends TaskName> = Awaited<ReturnType<Tasks[K]>>;

export interface RunOptions {
  /** Aborted when the caller goes away: queued work is dropped, running work stopped. */
  signal?: AbortSignal;
  /** Overrides the pool's default deadline for this task (counted from when a thread takes it). */
  deadlineMs?: number;
  /** Whose work this is (an API key or user); waiting work is served round-robin across owners. */
  owner?: string;
}

export interface PoolStats {
  threads: number;
  running: number;
  queue_size: number;
  admitted: number;
  max_queue: number;
  completed: number;
  utilization: number;
}

/** services.pool: only src/domain/compute.ts calls run() (the boundaries test holds it). */
export interface ComputePool {
  run<K extends TaskName>(name: K, input: TaskInput<K>, options?: RunOptions): Promise<TaskOutput<K>>;
  /** A place at the door for a metered request, held until answered; null when the pool could not take it. */
  admit(owner: string): (() => void) | null;
  stats(): PoolStats;
}

/** Admission to one long-lived thread (knowledge or code index): bounded backlog, deadline, the caller's abort. */
export interface ThreadGate {
  run<T>(work: () => Promise<T>, options?: RunOptions): Promise<T>;
}

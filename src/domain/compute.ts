import { TaskError } from '../pool/pool.js';
import type { ComputePool, RunOptions, TaskInput, TaskName, TaskOutput, ThreadGate } from './ports/compute.js';
import { asDomainError, DomainError, invalidInput } from './errors.js';

export interface ComputeOptions extends RunOptions {
  /** The input field a worker-side input error is about (reported in the validation error's loc). */
  field?: string;
}

/** Worker-side input errors by class name, in domain terms. */
function inputError(err: TaskError, field: string): DomainError | null {
  if (err.name === 'CodeInputError') return invalidInput(err.message, [{ loc: [field], msg: err.message, type: 'value_error.encoding' }]);
  if (err.name === 'BlastRadiusInputError') {
    return invalidInput(err.message, [{ loc: ['focus_symbols'], msg: err.message, type: 'BlastRadiusInputError' }], { code: 'BlastRadiusInputError' });
  }
  return null;
}

/** An item's failure from a task that reports one outcome per item (compressEach), as runTask would throw it. */
export function itemError(failure: { name: string; message: string; code?: string }, field: string): Error {
  const err = new TaskError(failure.name, failure.message, failure.code);
  return inputError(err, field) ?? err;
}

/**
 * The one door to the compute pool: nothing outside src/domain calls the pool. Pool saturation,
 * deadlines and worker-side input errors come back as DomainErrors (unavailable, timeout, validation).
 */
export async function runTask<K extends TaskName>(services: { pool: ComputePool }, name: K, input: TaskInput<K>, options: ComputeOptions = {}): Promise<TaskOutput<K>> {
  try {
    return await services.pool.run(name, input, options);
  } catch (err) {
    const mapped = err instanceof TaskError ? inputError(err, options.field ?? 'input') : asDomainError(err);
    throw mapped ?? err;
  }
}

/** Readiness probe: one round trip through a worker within timeoutMs, waiting for a free thread included. */
export async function pingPool(services: { pool: ComputePool }, timeoutMs: number): Promise<void> {
  await runTask(services, 'ping', undefined, { deadlineMs: timeoutMs, signal: AbortSignal.timeout(timeoutMs) });
}

/**
 * The same door to a long-lived thread (the knowledge or code index): its backlog bound, deadline and
 * the caller's abort, with saturation and deadlines as DomainErrors (unavailable 503, timeout).
 */
export async function runOnThread<T>(door: ThreadGate, work: () => Promise<T>, options: ComputeOptions = {}): Promise<T> {
  try {
    return await door.run(work, options);
  } catch (err) {
    throw asDomainError(err) ?? err;
  }
}

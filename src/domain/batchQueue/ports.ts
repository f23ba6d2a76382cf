/**
 * What the rest of the service reaches of the batch queue worker (src/domain/batchQueue/worker.ts).
 * `S` is the services object it runs with (src/services.ts fills it in, so this port imports nothing of it).
 */
export interface BatchQueue<S> {
  /** Claims and compresses queued jobs until close(). */
  start(services: S): void;
  /** Stops claiming and waits for the jobs in hand. */
  close(): Promise<void>;
  /** Jobs being compressed by this instance now. */
  readonly running: number;
  /** Looks for queued jobs now rather than at the next poll. */
  kick(): void;
}

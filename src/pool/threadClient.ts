import { Worker, type Transferable } from 'node:worker_threads';

/** One reply read off the wire: which request it answers, and its value or error. */
export type Reply = { id: number; value: unknown } | { id: number; error: Error };

/** Why the thread is gone: it threw (`error`) or exited (`code`); `closing` when close() asked for it. */
export interface Gone {
  error?: Error;
  code?: number;
  closing: boolean;
}

export interface ThreadClientOptions<Req> {
  /** Absolute path of the thread's compiled entry (under dist/). */
  file: string;
  workerData?: unknown;
  /** The message that carries request `id` to the thread. */
  encode(id: number, req: Req): unknown;
  /** Reads one message from the thread; null for one that answers nothing. */
  decode(msg: unknown): Reply | null;
  /** The error every pending and later request rejects with once the thread is gone (log here). */
  gone(why: Gone): Error;
  /** Unreference the thread while nothing is pending, so an idle thread does not hold the process. */
  unrefWhenIdle?: boolean;
}

type Pending = { resolve(v: unknown): void; reject(e: Error): void };

/**
 * Request/reply client of one long-lived thread (the knowledge index, the code index, PGlite): the
 * pending map, exit and crash handling, transfer lists and close, written once. The only other place
 * that starts a thread is the compute pool (src/pool/pool.ts).
 */
export class ThreadClient<Req> {
  readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closing = false;
  /** Set once the thread is gone or closing: every later request rejects with it. */
  private goneError: Error | null = null;

  constructor(private readonly options: ThreadClientOptions<Req>) {
    this.worker = new Worker(options.file, { workerData: options.workerData });
    if (options.unrefWhenIdle) this.worker.unref();
    this.worker.on('message', (msg: unknown) => {
      const reply = options.decode(msg);
      const p = reply && this.pending.get(reply.id);
      if (!reply || !p) return;
      this.pending.delete(reply.id);
      this.idleCheck();
      if ('error' in reply) p.reject(reply.error);
      else p.resolve(reply.value);
    });
    this.worker.on('error', (error) => this.settle(options.gone({ error, closing: this.closing })));
    this.worker.on('exit', (code) => this.settle(options.gone({ code, closing: this.closing })));
  }

  /** Whether the thread is gone (crashed, exited or closed). */
  get closed(): boolean {
    return this.goneError !== null;
  }

  /** Posts `req`; resolves with the thread's answer. `transfer`: buffers handed over, not copied. */
  request<T>(req: Req, transfer: readonly Transferable[] = []): Promise<T> {
    if (this.goneError) return Promise.reject(this.goneError);
    const id = this.nextId++;
    return this.awaitReply<T>(id, () => this.worker.postMessage(this.options.encode(id, req), transfer));
  }

  /** Waits for a reply the thread sends unasked (id 0: PGlite's "opened"). */
  expect<T>(id: number): Promise<T> {
    if (this.goneError) return Promise.reject(this.goneError);
    return this.awaitReply<T>(id, () => undefined);
  }

  private awaitReply<T>(id: number, post: () => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.pending.size === 0 && this.options.unrefWhenIdle) this.worker.ref();
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      try {
        post();
      } catch (err) {
        // Not posted (a value that cannot be cloned): no answer will come, so it must not stay pending.
        this.pending.delete(id);
        this.idleCheck();
        throw err;
      }
    });
  }

  private idleCheck(): void {
    if (this.pending.size === 0 && this.options.unrefWhenIdle) this.worker.unref();
  }

  private settle(err: Error): void {
    this.goneError ??= err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  /**
   * Asks the thread to finish with `goodbye`, then terminates it (at once if it is stuck past
   * `timeoutMs`). Later requests reject with `closedError`. Resolves once it exited.
   */
  async close(goodbye: Req, options: CloseOptions): Promise<void> {
    if (this.goneError) return;
    this.closing = true;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    const answered = this.request(goodbye).then(
      () => undefined,
      () => undefined,
    );
    this.goneError = options.closedError;
    // A thread that exits by itself answers once idle (however long its work takes), then gets timeoutMs
    // to exit; otherwise the answer itself must come within timeoutMs (a close stuck behind a transaction).
    if (options.exitsItself) await answered;
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<void>((resolve) => (timer = setTimeout(() => (options.onTimeout?.(), resolve()), options.timeoutMs)));
    await Promise.race([options.exitsItself ? exited : answered, stuck]);
    clearTimeout(timer);
    await this.worker.terminate();
    await exited;
  }
}

export interface CloseOptions {
  /** Past it the thread is terminated. */
  timeoutMs: number;
  /** What later requests reject with. */
  closedError: Error;
  /** The goodbye makes the thread exit by itself (native resources shut down in order): wait for that. */
  exitsItself?: boolean;
  onTimeout?(): void;
}

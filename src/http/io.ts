import type { RawRequest, RawResponse } from './engine/types.js';
import { STATUS_TEXT } from './errors.js';
import type { Reply } from './route.js';

/** A request's headers by lower-case name (a repeated header keeps its last value). */
export function headersOf(req: RawRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  req.forEach((k, v) => {
    headers[k] = v;
  });
  return headers;
}

/** The declared body length, or -1 when there is none (chunked). */
export function declaredLength(headers: Record<string, string>): number {
  const raw = headers['content-length'];
  return raw === undefined || !/^\d+$/.test(raw) ? -1 : Number(raw);
}

/** Bytes of request bodies held in memory at once, across all requests of this process. */
export class BodyBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  take(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  get inUse(): number {
    return this.used;
  }
}

export type BodyOutcome = Buffer | 'too-large' | 'over-budget' | 'aborted';

/**
 * A refused request whose unread body is at most this large is drained (read and dropped) before the
 * answer, so the connection stays usable and the client reads the answer instead of a reset; a
 * larger unread body closes the connection.
 */
export const DRAIN_UNREAD_BYTES = 64 * 1024;

/**
 * A declared body at most this large is read at arrival instead of paused: refused, it would be
 * drained anyway (DRAIN_UNREAD_BYTES), and pausing then resuming the socket costs two epoll_ctl
 * system calls, about 7% of the event loop's time on a cache hit.
 */
export const EAGER_BODY_BYTES = 16 * 1024;

/**
 * A request body, paused at arrival: nothing is read until read() is called, so a request can be
 * authenticated from its headers first and refused without reading (or buffering) its body. A small
 * declared body (EAGER_BODY_BYTES) is read at once instead. Construct it synchronously in the uWS
 * handler: onData must be attached before the first await.
 * Bytes held count against the process-wide budget until release().
 */
export class BodyReader {
  private chunks: Buffer[] = [];
  private size = 0;
  private held = 0;
  private outcome: BodyOutcome | null = null;
  private waiter: ((o: BodyOutcome) => void) | null = null;
  private discarding: (() => void) | null = null;
  /** True once the whole body came off the socket (the connection can be kept alive). */
  complete = false;
  private paused: boolean;
  /** Set once the request is answered: the response object must not be touched after that. */
  private released = false;

  /** `declaredBytes`: the request's Content-Length, -1 when none (declaredLength). */
  constructor(
    private readonly res: RawResponse,
    private readonly limit: number,
    private readonly budget: BodyBudget,
    declaredBytes = -1,
  ) {
    res.onData((chunk, isLast) => this.onChunk(chunk, isLast));
    this.paused = !(declaredBytes >= 0 && declaredBytes <= EAGER_BODY_BYTES);
    if (this.paused) res.pause();
  }

  private onChunk(chunk: ArrayBuffer, isLast: boolean): void {
    // A socket left paused would stall the next request on this keep-alive connection.
    if (isLast && this.paused) this.resumeSocket();
    // Answered before its body was read (released) or already settled: later chunks are not held.
    if (this.outcome || this.discarding || this.released) {
      if (isLast) {
        this.complete = true;
        this.discarding?.();
      }
      return;
    }
    this.size += chunk.byteLength;
    if (this.size > this.limit) return this.settle('too-large');
    if (!this.budget.take(chunk.byteLength)) return this.settle('over-budget');
    this.held += chunk.byteLength;
    // uWS reuses the chunk's memory after this callback returns: copy it (once).
    this.chunks.push(Buffer.from(chunk.slice(0)));
    if (isLast) {
      this.complete = true;
      this.settle(this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks));
    }
  }

  private settle(outcome: BodyOutcome): void {
    this.outcome = outcome;
    if (Buffer.isBuffer(outcome)) {
      this.chunks = [];
    } else {
      this.release();
    }
    this.waiter?.(outcome);
  }

  /** Resumes the socket and resolves with the body (or why it was refused). */
  read(): Promise<BodyOutcome> {
    if (this.outcome) return Promise.resolve(this.outcome);
    return new Promise((resolve) => {
      this.waiter = resolve;
      this.resumeSocket();
    });
  }

  private resumeSocket(): void {
    if (!this.paused || this.released) return;
    this.paused = false;
    this.res.resume();
  }

  /** The client went away: a pending read resolves 'aborted' and the held bytes go back to the budget. */
  abort(): void {
    this.released = true;
    if (!this.outcome) this.settle('aborted');
    this.release();
  }

  /**
   * Before answering a request whose body was not read: drains a small declared body (so the answer
   * can keep the connection) and tells whether the connection must close.
   */
  async settleUnread(declaredBytes: number): Promise<'keep' | 'close'> {
    if (this.complete) return 'keep';
    if (this.outcome || !(declaredBytes >= 0 && declaredBytes <= DRAIN_UNREAD_BYTES)) return 'close';
    await new Promise<void>((resolve) => {
      this.discarding = resolve;
      this.resumeSocket();
    });
    return 'keep';
  }

  /** Gives the body's bytes back to the budget (call when the request is answered). */
  release(): void {
    this.released = true;
    this.budget.give(this.held);
    this.held = 0;
    this.chunks = [];
  }
}

/** Writes status, headers and body in one cork; large bodies respect back-pressure. `head`: headers only (HEAD). */
export function writeReply(res: RawResponse, status: number, reply: Reply, requestId: string, closeConnection: boolean, head = false): void {
  const payload = reply.raw ?? (reply.body === undefined || status === 204 ? '' : JSON.stringify(reply.body));
  const buffer = typeof payload === 'string' ? Buffer.from(payload) : payload;
  res.cork(() => {
    res.writeStatus(`${status} ${STATUS_TEXT[status] ?? ''}`.trim());
    res.writeHeader('x-request-id', requestId);
    if (buffer.byteLength > 0 || status !== 204) {
      res.writeHeader('content-type', reply.contentType ?? 'application/json');
    }
    for (const [k, v] of Object.entries(reply.headers ?? {})) res.writeHeader(k, v);
    // end(body, true) writes `Connection: close` itself; writing it here too sent the header twice.
    if (head) res.endWithoutBody(buffer.byteLength, closeConnection);
    else sendWithBackpressure(res, buffer, closeConnection);
  });
}

export function sendWithBackpressure(res: RawResponse, body: Uint8Array, closeConnection: boolean): void {
  if (closeConnection) {
    res.end(body, true);
    return;
  }
  const total = body.byteLength;
  const base = res.getWriteOffset();
  const [ok] = res.tryEnd(body, total);
  if (ok) return;
  // The socket is full: resume from what the kernel took whenever uWS says it is writable again.
  res.onWritable((offset) => res.tryEnd(body.subarray(offset - base), total)[0]);
}

/**
 * Writes a streamed reply (Reply.stream): status and headers at once, then each chunk as the iterator
 * yields it, waiting whenever the socket is full. When the client goes away the iterator is closed
 * (its finally blocks run) and the response is never touched again.
 */
export async function writeStream(res: RawResponse, status: number, reply: Reply, requestId: string, isAborted: () => boolean): Promise<void> {
  const iterator = reply.stream![Symbol.asyncIterator]();
  res.cork(() => {
    res.writeStatus(`${status} ${STATUS_TEXT[status] ?? ''}`.trim());
    res.writeHeader('x-request-id', requestId);
    res.writeHeader('content-type', reply.contentType ?? 'text/event-stream');
    for (const [k, v] of Object.entries(reply.headers ?? {})) res.writeHeader(k, v);
  });
  let finished = false;
  try {
    for (;;) {
      const next = await iterator.next();
      if (isAborted()) return;
      if (next.done) {
        finished = true;
        res.cork(() => res.end());
        return;
      }
      let ok = true;
      res.cork(() => {
        ok = res.write(next.value);
      });
      if (!ok) {
        await new Promise<void>((resolve) =>
          res.onWritable(() => {
            resolve();
            return true;
          }),
        );
      }
    }
  } catch (err) {
    // Headers are gone: the stream can only end. The iterator is expected to turn its own failures into events.
    if (!isAborted()) res.cork(() => res.end());
    throw err;
  } finally {
    if (!finished) await iterator.return?.().catch(() => undefined);
  }
}

import type { RawResponse } from '../http/engine/types.js';
import { writeReply } from '../http/io.js';

const SSE_ONLY = new Set(['content-type', 'content-length', 'transfer-encoding', 'cache-control', 'connection', 'x-accel-buffering']);
const EVENT_PREFIX = Buffer.from('event: message\ndata: ');

/** One message as the SDK transport writes it on an SSE stream (no event id: there is no event store). */
export function sseEvent(message: unknown): Buffer {
  return Buffer.concat([EVENT_PREFIX, Buffer.from(`${JSON.stringify(message)}\n\n`)]);
}
const TICK = Symbol('tick');

/**
 * The JSON-RPC message of an SSE body that is exactly one `message` event, or null. The SDK writes
 * each event as `event: message\ndata: <JSON on one line>\n\n` (no event ids: there is no event store).
 */
export function singleEventData(body: Buffer): Buffer | null {
  if (body.length < EVENT_PREFIX.length + 2 || !body.subarray(0, EVENT_PREFIX.length).equals(EVENT_PREFIX)) return null;
  const end = body.indexOf(10, EVENT_PREFIX.length);
  return end === body.length - 2 && body[end + 1] === 10 ? body.subarray(EVENT_PREFIX.length, end) : null;
}

const nextTurn = () => new Promise<typeof TICK>((resolve) => setImmediate(resolve, TICK));

/**
 * Sends the SDK transport's Response. A JSON answer goes out in one write. An SSE stream is held
 * until its first event and whatever follows it in the same turn of the event loop: when that is the
 * whole stream and one event (an answer with no notification before it, the common case), it goes
 * out as one JSON body (the transport spec lets a POST be answered either way), so neither side pays
 * for a stream. Otherwise the events stream as they come, waiting whenever the socket is full.
 */
export async function pipeResponse(res: RawResponse, response: Response, requestId: string, isAborted: () => boolean): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((v, k) => {
    if (k !== 'content-length' && k !== 'transfer-encoding') headers[k] = v;
  });
  const contentType = headers['content-type'] ?? 'application/json';
  if (!contentType.startsWith('text/event-stream') || !response.body) {
    const body = new Uint8Array(await response.arrayBuffer());
    delete headers['content-type'];
    if (!isAborted()) writeReply(res, response.status, { raw: body, contentType, headers }, requestId, false);
    return;
  }
  const reader = response.body.getReader();
  const held: Uint8Array[] = [];
  let streaming = false;
  try {
    let next = reader.read();
    for (;;) {
      const read = held.length && !streaming ? await Promise.race([next, nextTurn()]) : await next;
      if (isAborted()) return;
      if (read === TICK) {
        streaming = true;
        res.cork(() => {
          res.writeStatus(String(response.status));
          res.writeHeader('x-request-id', requestId);
          for (const [k, v] of Object.entries(headers)) res.writeHeader(k, v);
        });
        await write(res, Buffer.concat(held));
        held.length = 0;
        continue;
      }
      if (read.done) {
        if (streaming) res.cork(() => res.end());
        else endHeld(res, response.status, headers, Buffer.concat(held), requestId);
        return;
      }
      next = reader.read();
      if (!streaming) held.push(read.value);
      else await write(res, read.value);
    }
  } finally {
    if (isAborted()) await reader.cancel().catch(() => undefined);
  }
}

/** The whole stream arrived before anything was sent: one write, as JSON when it is a single event. */
function endHeld(res: RawResponse, status: number, headers: Record<string, string>, body: Buffer, requestId: string): void {
  const message = singleEventData(body);
  if (!message) {
    const { 'content-type': contentType, ...rest } = headers;
    writeReply(res, status, { raw: body, contentType, headers: rest }, requestId, false);
    return;
  }
  const rest = Object.fromEntries(Object.entries(headers).filter(([k]) => !SSE_ONLY.has(k)));
  writeReply(res, status, { raw: message, contentType: 'application/json', headers: rest }, requestId, false);
}

/** Writes one chunk; resolves once the socket can take more. */
export async function write(res: RawResponse, chunk: Uint8Array): Promise<void> {
  let ok = true;
  res.cork(() => {
    ok = res.write(chunk);
  });
  if (ok) return;
  await new Promise<void>((resolve) =>
    res.onWritable(() => {
      resolve();
      return true;
    }),
  );
}

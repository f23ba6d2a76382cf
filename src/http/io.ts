import type uWS from 'uWebSockets.js';
import { STATUS_TEXT } from './errors.js';
import type { Reply } from './route.js';

/** Collects the body; stops collecting (and reports) past the limit. */
export function readBody(res: uWS.HttpResponse, limit: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    res.onData((chunk, isLast) => {
      if (!over) {
        size += chunk.byteLength;
        if (size > limit) {
          over = true;
          chunks.length = 0;
          resolve('too-large');
          return;
        }
        // uWS reuses the chunk's memory after this callback returns: copy it.
        chunks.push(Buffer.from(new Uint8Array(chunk).slice()));
      }
      if (isLast && !over) resolve(Buffer.concat(chunks));
    });
  });
}

/** Writes status, headers and body in one cork; large bodies respect back-pressure. */
export function writeReply(res: uWS.HttpResponse, status: number, reply: Reply, requestId: string, closeConnection: boolean): void {
  const payload = reply.raw ?? (reply.body === undefined || status === 204 ? '' : JSON.stringify(reply.body));
  const buffer = typeof payload === 'string' ? Buffer.from(payload) : payload;
  res.cork(() => {
    res.writeStatus(`${status} ${STATUS_TEXT[status] ?? ''}`.trim());
    res.writeHeader('x-request-id', requestId);
    if (buffer.byteLength > 0 || status !== 204) {
      res.writeHeader('content-type', reply.contentType ?? 'application/json');
    }
    for (const [k, v] of Object.entries(reply.headers ?? {})) res.writeHeader(k, v);
    if (closeConnection) res.writeHeader('connection', 'close');
    sendWithBackpressure(res, buffer, closeConnection);
  });
}

export function sendWithBackpressure(res: uWS.HttpResponse, body: Uint8Array, closeConnection: boolean): void {
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

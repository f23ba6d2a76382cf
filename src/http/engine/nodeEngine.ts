import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { EngineInfo, HttpEngine, Listener, RawHandler, RawRequest, RawResponse } from './types.js';

/** uWS closes an idle keep-alive connection after 10 s; the node:http engine does the same. */
const KEEP_ALIVE_MS = 10_000;

class NodeRequest implements RawRequest {
  private readonly path: string;
  private readonly query: string | undefined;

  constructor(private readonly req: IncomingMessage) {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    this.path = q < 0 ? url : url.slice(0, q);
    this.query = q < 0 ? undefined : url.slice(q + 1);
  }

  getCaseSensitiveMethod(): string {
    return this.req.method ?? 'GET';
  }

  getUrl(): string {
    return this.path;
  }

  getQuery(): string | undefined {
    return this.query;
  }

  forEach(cb: (key: string, value: string) => void): void {
    const raw = this.req.rawHeaders;
    for (let i = 0; i < raw.length; i += 2) cb(raw[i]!.toLowerCase(), raw[i + 1]!);
  }
}

/**
 * node:http behind uWS's response surface. Status and headers are held until the first write or the
 * end, so a whole body goes out with its Content-Length in one write and a stream goes out chunked.
 */
class NodeResponse implements RawResponse {
  private status = 200;
  private message: string | undefined;
  private readonly headers: [string, string][] = [];
  private ended = false;
  private written = 0;
  private aborted: (() => void) | null = null;
  private writable: ((offset: number) => boolean) | null = null;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
  ) {
    res.on('close', () => {
      if (this.ended) return;
      this.ended = true;
      this.aborted?.();
      // A stream waiting for the socket to drain learns of the abort instead of waiting forever.
      this.drain();
    });
    res.on('drain', () => this.drain());
  }

  onAborted(handler: () => void): this {
    this.aborted = handler;
    return this;
  }

  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): this {
    this.req.on('data', (chunk: Buffer) => handler(arrayBufferOf(chunk), false));
    this.req.on('end', () => handler(new ArrayBuffer(0), true));
    return this;
  }

  pause(): void {
    this.req.pause();
  }

  resume(): void {
    this.req.resume();
  }

  cork(cb: () => void): this {
    cb();
    return this;
  }

  writeStatus(status: string): this {
    const space = status.indexOf(' ');
    this.status = Number(space < 0 ? status : status.slice(0, space));
    this.message = space < 0 ? undefined : status.slice(space + 1) || undefined;
    return this;
  }

  writeHeader(key: string, value: string): this {
    this.headers.push([key, value]);
    return this;
  }

  write(chunk: Uint8Array | string): boolean {
    if (!this.res.headersSent) this.flushHead(null, false);
    this.written += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    return this.res.write(chunk);
  }

  end(body?: Uint8Array | string, closeConnection = false): this {
    if (this.ended) return this;
    this.ended = true;
    const bytes = body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    if (!this.res.headersSent) this.flushHead(bytes, closeConnection);
    this.written += bytes;
    this.res.end(body);
    return this;
  }

  endWithoutBody(reportedContentLength?: number, closeConnection = false): this {
    if (this.ended) return this;
    this.ended = true;
    if (!this.res.headersSent) this.flushHead(reportedContentLength ?? 0, closeConnection);
    this.res.end();
    return this;
  }

  tryEnd(body: Uint8Array): [boolean, boolean] {
    // node:http buffers what the socket cannot take yet; the body is held in memory either way.
    this.end(body);
    return [true, true];
  }

  getWriteOffset(): number {
    return this.written;
  }

  onWritable(handler: (offset: number) => boolean): this {
    this.writable = handler;
    return this;
  }

  private drain(): void {
    const handler = this.writable;
    if (handler && handler(this.written)) this.writable = null;
  }

  private flushHead(contentLength: number | null, closeConnection: boolean): void {
    const res = this.res;
    res.statusCode = this.status;
    if (this.message) res.statusMessage = this.message;
    for (const [k, v] of this.headers) {
      const prior = res.getHeader(k);
      res.setHeader(k, prior === undefined ? v : [...(Array.isArray(prior) ? prior : [String(prior)]), v]);
    }
    if (contentLength !== null && this.status !== 204 && this.status !== 304) res.setHeader('content-length', contentLength);
    if (closeConnection) res.setHeader('connection', 'close');
  }
}

function arrayBufferOf(chunk: Buffer): ArrayBuffer {
  const whole = chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength;
  return (whole ? chunk.buffer : chunk.buffer.slice(chunk.byteOffset, chunk.byteOffset + chunk.byteLength)) as ArrayBuffer;
}

export function nodeEngine(reason: string): HttpEngine {
  const info: EngineInfo = { engine: 'node', package: null, reason, node: process.version };
  return {
    info,
    listen(host: string, port: number, handler: RawHandler): Promise<Listener> {
      const server: Server = createServer({ keepAliveTimeout: KEEP_ALIVE_MS }, (req, res) => {
        handler(new NodeResponse(req, res), new NodeRequest(req));
      });
      return new Promise((resolve, reject) => {
        server.once('error', (err: NodeJS.ErrnoException) => reject(listenError(host, port, err)));
        // exclusive: never share the port with another process (no SO_REUSEPORT, no cluster handle sharing).
        server.listen({ host, port, exclusive: true }, () => {
          server.removeAllListeners('error');
          server.on('error', () => undefined);
          const address = server.address();
          resolve({
            port: typeof address === 'object' && address ? address.port : port,
            stopAccepting: () => server.close(),
            closeConnections: () => server.closeAllConnections(),
          });
        });
      });
    },
  };
}

export function listenError(host: string, port: number, err?: NodeJS.ErrnoException): Error {
  const why = !err || err.code === 'EADDRINUSE' ? 'the port is in use (another instance of this service, or another program)' : err.message;
  return new Error(`cannot listen on ${host}:${port}: ${why}`);
}

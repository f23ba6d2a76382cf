/**
 * The HTTP boundary's raw surface: the part of uWebSockets.js's HttpRequest/HttpResponse the server
 * uses, so the uWS binary's own objects satisfy it and the node:http engine (nodeEngine.ts) imitates it.
 * Semantics are uWS's: onData must be attached before the handler returns; after onAborted fires the
 * response must not be touched.
 */
export interface RawRequest {
  getCaseSensitiveMethod(): string;
  /** The path as sent (percent-encoded), without the query string. */
  getUrl(): string;
  /** The query string without '?', or undefined/'' when there is none. */
  getQuery(): string | undefined;
  /** Each header, names lower-cased. */
  forEach(cb: (key: string, value: string) => void): void;
}

export interface RawResponse {
  onAborted(handler: () => void): unknown;
  /** Body chunks; the chunk's memory is only valid during the call (copy it). */
  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): unknown;
  pause(): void;
  resume(): void;
  cork(cb: () => void): unknown;
  writeStatus(status: string): unknown;
  writeHeader(key: string, value: string): unknown;
  /** Writes a chunk of a streamed body; false when the socket is full (wait for onWritable). */
  write(chunk: Uint8Array | string): boolean;
  end(body?: Uint8Array | string, closeConnection?: boolean): unknown;
  /** Headers with a Content-Length but no body (HEAD). */
  endWithoutBody(reportedContentLength?: number, closeConnection?: boolean): unknown;
  /** [ok, done]: ok false means the rest waits for onWritable. */
  tryEnd(body: Uint8Array, totalSize: number): [boolean, boolean];
  getWriteOffset(): number;
  /** Called when the socket drains; return true when done waiting. */
  onWritable(handler: (offset: number) => boolean): unknown;
}

export type RawHandler = (res: RawResponse, req: RawRequest) => void;

export type EngineName = 'uws' | 'node';

/** What serves HTTP in this process, and why (start log, /health/diagnostics, /metrics). */
export interface EngineInfo {
  engine: EngineName;
  /** The uWS package and version whose binary loaded; null for node:http. */
  package: string | null;
  reason: string;
  node: string;
}

export interface Listener {
  readonly port: number;
  /** Stops accepting connections; requests on open connections are still served. */
  stopAccepting(): void;
  /** Drops every connection still open (after the drain). */
  closeConnections(): void;
}

export interface HttpEngine {
  readonly info: EngineInfo;
  /** Listens exclusively: a port another process (this service or not) holds is an error, never shared. */
  listen(host: string, port: number, handler: RawHandler): Promise<Listener>;
}

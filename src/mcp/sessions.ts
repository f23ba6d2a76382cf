import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/principal.js';
import { ownerOf } from '../domain/call.js';
import { seenChunks } from '../domain/docs/sessionSeen.js';
import { unavailable } from '../domain/errors.js';
import type { Services } from '../services.js';
import { routeRequestsDirectly } from './direct.js';
import { DirectAnswers } from './directAnswers.js';
import type { Caller } from './caller.js';
import { createMcpServer } from './server.js';
import { applyStored, newSessionState, settingsOf, takeUnsavedHistory, type SessionState } from './session.js';
import { deleteExpired, deleteRecord, insertRecord, isEmptyDelta, readIfChanged, readRecord, touchRecord, writeDelta, type SessionDelta } from './sessionRecords.js';
import type { Toolsets } from './toolsets.js';

export interface McpEntry {
  transport: WebStandardStreamableHTTPServerTransport;
  /** Answers plain requests of an open session without the transport's Request/Response (sessions only). */
  direct?: DirectAnswers;
  server: Server;
  state: SessionState;
  /**
   * Who calls, as authenticated on the current request (at most AUTH_CACHE_MS old): plan, quota and
   * project binding are re-read on every request, never frozen at initialize.
   */
  caller: Caller;
  /** The key (or identity-provider user) that opened the session; only it may use the session. */
  owner: string;
  /** Last request in this instance. */
  lastSeen: number;
  /** Stateless entries serve one request and are closed after it. */
  ephemeral: boolean;
  /** The shared record's revision this entry reflects (-1: re-read it on the next request). */
  revision: number;
  /** The record exists (from the initialize answer on, or rebuilt from it). */
  stored: boolean;
  /** Settings (JSON) and dedup ids as last written to the record. */
  savedSettings: string;
  savedSeen: Set<string>;
  /** When this instance last wrote the record's last_seen. */
  touchedAt: number;
  /** Embedded database only: a write of this entry's changes is scheduled. */
  flushTimer?: NodeJS.Timeout;
}

export interface SessionLimits {
  /** Sessions held in this instance's memory; past it a long-unused one is dropped from memory, else initialize answers 503. */
  maxSessions: number;
  /** Sessions one key may hold across all instances; opening one more closes that key's least recently used session. */
  maxPerKey: number;
  /** A session unused this long (by its shared record's last_seen) is closed everywhere. */
  idleMs: number;
}

/** An entry unused this long in this instance may leave memory to make room (its record stays). */
const EVICTABLE_AFTER_MS = 60_000;
/** Embedded database: a session's changes are written at most this often (one process: nobody else reads them). */
const LOCAL_FLUSH_MS = 1000;

const isAnswer = (m: JSONRPCMessage): m is JSONRPCMessage & { id: string | number } => 'id' in m && ('result' in m || 'error' in m);

/**
 * MCP sessions any instance serves (docs/deployment.md). Each session has a record in the database
 * (sessionRecords.ts); this instance keeps a transport and server per session it served as a cache.
 * A request naming a session not in memory rebuilds them from the record, already initialized.
 *
 * On PostgreSQL, where instances share the database, every request on a held session reads the record
 * by primary key (one statement: it may have been deleted, or changed by a call on another instance)
 * and a call's changes are written before its answer goes out, so the next request, wherever it lands,
 * sees them. On the embedded database (one process per data folder) memory is authoritative: the record
 * is only read after a restart, and changes are written within LOCAL_FLUSH_MS.
 */
export class SessionStore {
  private readonly sessions = new Map<string, McpEntry>();
  private readonly restoring = new Map<string, Promise<McpEntry | null>>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly sweeper: NodeJS.Timeout;
  /** Instances share the record (PostgreSQL): re-read it on every request. */
  private readonly shared: boolean;
  private readonly touchMs: number;

  constructor(
    private readonly services: Services,
    private readonly limits: SessionLimits,
  ) {
    this.shared = services.db.kind === 'postgres';
    this.touchMs = Math.max(250, Math.min(60_000, limits.idleMs / 10));
    this.sweeper = setInterval(() => void this.sweep(), Math.min(60_000, Math.max(1000, limits.idleMs / 2)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /**
   * The caller's session with the caller refreshed, or null (unknown id, idle-expired, deleted, or
   * another key's: all read as absent). Rebuilt from its record when this instance does not hold it.
   */
  async find(id: string, principal: Principal, baseUrl: string): Promise<McpEntry | null> {
    const owner = ownerOf(principal);
    let entry = this.sessions.get(id) ?? null;
    if (entry) {
      if (entry.owner !== owner) return null;
      if (!(await this.refresh(id, entry))) return null;
    } else {
      entry = await this.restore(id, baseUrl, principal);
      if (!entry || entry.owner !== owner) return null;
    }
    entry.lastSeen = Date.now();
    entry.caller.principal = principal;
    return entry;
  }

  async open(principal: Principal, baseUrl: string, toolsets?: Toolsets): Promise<McpEntry> {
    this.makeRoom();
    const state = newSessionState(null, toolsets);
    const entry = this.build(state, principal, baseUrl);
    entry.transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: !this.services.config.mcpSseResponses,
      onsessioninitialized: (id) => {
        state.id = id;
        this.sessions.set(id, entry);
      },
      onsessionclosed: (id) => this.ended(id),
    });
    await this.connect(entry);
    return entry;
  }

  /** A one-shot server for callers that send no session id and no initialize. */
  async oneShot(principal: Principal, baseUrl: string, toolsets?: Toolsets): Promise<McpEntry> {
    const state = newSessionState(null, toolsets);
    const caller: Caller = { principal, baseUrl };
    const server = createMcpServer(this.services, caller, state);
    // Stateless one-shot calls (no session, often curl or a proxy) get a plain JSON body.
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    routeRequestsDirectly(server, transport);
    return { transport, server, state, caller, owner: ownerOf(principal), lastSeen: Date.now(), ephemeral: true, revision: 0, stored: false, savedSettings: '', savedSeen: new Set(), touchedAt: 0 };
  }

  /** Counts a request until it settles (a graceful stop waits for these; the standalone GET stream is not one). */
  track<T>(request: Promise<T>): Promise<T> {
    this.inFlight.add(request);
    const done = () => this.inFlight.delete(request);
    request.then(done, done);
    return request;
  }

  /** Resolves once no tracked request is in flight, or after `timeoutMs`. */
  async settled(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.inFlight.size && Date.now() < deadline) {
      const timer = new Promise((r) => setTimeout(r, Math.max(1, deadline - Date.now())).unref());
      await Promise.race([Promise.allSettled([...this.inFlight]), timer]);
    }
  }

  /** Drops every session from memory (their records stay: another instance, or this one restarted, serves them). */
  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    const entries = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(entries.map((e) => this.flush(e)));
    await Promise.allSettled(entries.map((e) => e.server.close()));
  }

  private build(state: SessionState, principal: Principal, baseUrl: string): McpEntry {
    const caller: Caller = { principal, baseUrl };
    const server = createMcpServer(this.services, caller, state);
    return {
      server, state, caller, owner: ownerOf(principal), lastSeen: Date.now(), ephemeral: false,
      revision: 0, stored: false, savedSettings: JSON.stringify(settingsOf(state)), savedSeen: new Set(), touchedAt: Date.now(),
    } as McpEntry;
  }

  /** Connects server and transport, then routes answers through the record's write (before they go out). */
  private async connect(entry: McpEntry): Promise<void> {
    const { server, transport } = entry;
    await server.connect(transport);
    routeRequestsDirectly(server, transport);
    entry.direct = new DirectAnswers(transport, this.services.config.mcpSseResponses);
    const send = transport.send;
    transport.send = async (message, options) => {
      if (!isAnswer(message)) return send.call(transport, message, options);
      const replaced = await this.beforeAnswer(entry, message);
      return send.call(transport, replaced ?? message, options);
    };
  }

  /** Stores the session on its initialize answer, else writes what the request changed. A replacement message when storing failed. */
  private async beforeAnswer(entry: McpEntry, message: JSONRPCMessage & { id: string | number }): Promise<JSONRPCMessage | null> {
    if (!entry.stored) {
      const result = 'result' in message ? (message.result as { protocolVersion?: unknown }) : null;
      if (typeof result?.protocolVersion !== 'string' || !entry.transport.sessionId) return null;
      const id = entry.transport.sessionId;
      try {
        const doomed = await insertRecord(
          this.services.db,
          {
            id,
            owner: entry.owner,
            protocolVersion: result.protocolVersion,
            clientInfo: entry.server.getClientVersion() ?? null,
            clientCapabilities: entry.server.getClientCapabilities() ?? null,
            settings: settingsOf(entry.state),
            createdAt: entry.state.createdAt,
          },
          this.limits.maxPerKey,
        );
        entry.stored = true;
        entry.touchedAt = Date.now();
        for (const gone of doomed) this.drop(gone);
        return null;
      } catch (err) {
        this.services.log.error('mcp session not stored', { error: err instanceof Error ? err.message : String(err) });
        this.drop(id);
        return { jsonrpc: '2.0', id: message.id, error: { code: -32603, message: 'The session could not be stored; retry initialize shortly' } };
      }
    }
    if (this.shared) await this.flush(entry);
    else this.scheduleFlush(entry);
    return null;
  }

  /** What changed since the last write: settings, history entries, dedup ids. */
  private deltaOf(entry: McpEntry): { delta: SessionDelta; settingsJson: string } {
    const settings = settingsOf(entry.state);
    const settingsJson = JSON.stringify(settings);
    const seen = seenChunks(entry.state);
    const newSeen = seen.size === entry.savedSeen.size ? [] : [...seen].filter((x) => !entry.savedSeen.has(x));
    return { delta: { settings: settingsJson === entry.savedSettings ? null : settings, history: takeUnsavedHistory(entry.state), seen: newSeen }, settingsJson };
  }

  /** Writes the entry's changes (and touches last_seen when due). A failed write is logged: the answer still goes out. */
  private async flush(entry: McpEntry): Promise<void> {
    if (entry.flushTimer) clearTimeout(entry.flushTimer);
    entry.flushTimer = undefined;
    const id = entry.state.id;
    if (!entry.stored || !id) return;
    const { delta, settingsJson } = this.deltaOf(entry);
    try {
      if (isEmptyDelta(delta)) {
        if (Date.now() - entry.touchedAt < this.touchMs) return;
        entry.touchedAt = Date.now();
        if (!(await touchRecord(this.services.db, id))) this.drop(id);
        return;
      }
      const revision = await writeDelta(this.services.db, id, delta);
      entry.touchedAt = Date.now();
      if (revision === null) return this.drop(id);
      entry.savedSettings = settingsJson;
      for (const x of delta.seen) entry.savedSeen.add(x);
      // Another instance wrote in between: its changes are read on the next request.
      entry.revision = revision === entry.revision + 1 ? revision : -1;
    } catch (err) {
      entry.revision = -1;
      this.services.log.warn('mcp session changes not stored', { error: err instanceof Error ? err.message : String(err) });
    }
  }

  private scheduleFlush(entry: McpEntry): void {
    if (entry.flushTimer) return;
    entry.flushTimer = setTimeout(() => void this.flush(entry), LOCAL_FLUSH_MS);
    entry.flushTimer.unref();
  }

  /** A held session checked against its record (shared database) or its local idle time. False: gone. */
  private async refresh(id: string, entry: McpEntry): Promise<boolean> {
    if (!this.shared) {
      if (Date.now() - entry.lastSeen <= this.limits.idleMs) return true;
      await this.expire(id);
      return false;
    }
    const fresh = await readIfChanged(this.services.db, id, entry.revision);
    if (!fresh || fresh.owner !== entry.owner) {
      this.drop(id);
      return false;
    }
    if (fresh.idleMs > this.limits.idleMs) {
      await this.expire(id);
      return false;
    }
    if (fresh.changed) {
      applyStored(entry.state, fresh.changed.settings, fresh.changed.history, []);
      const seen = seenChunks(entry.state);
      for (const x of fresh.changed.seen) {
        seen.add(x);
        entry.savedSeen.add(x);
      }
      entry.savedSettings = JSON.stringify(settingsOf(entry.state));
      entry.revision = fresh.revision;
    }
    return true;
  }

  /** One rebuild per id at a time (concurrent first requests on this instance share it). */
  private restore(id: string, baseUrl: string, principal: Principal): Promise<McpEntry | null> {
    let pending = this.restoring.get(id);
    if (!pending) {
      pending = this.rebuild(id, baseUrl, principal).finally(() => this.restoring.delete(id));
      this.restoring.set(id, pending);
    }
    return pending;
  }

  /** The session's transport and server from its record, as they were after initialize. */
  private async rebuild(id: string, baseUrl: string, principal: Principal): Promise<McpEntry | null> {
    const record = await readRecord(this.services.db, id);
    if (!record || record.owner !== ownerOf(principal)) return null;
    if (record.idleMs > this.limits.idleMs) {
      await this.expire(id);
      return null;
    }
    this.makeRoom();
    const state = newSessionState(id);
    state.createdAt = record.createdAt;
    applyStored(state, record.settings, record.history);
    const seen = seenChunks(state);
    for (const x of record.seen) seen.add(x);
    const entry = this.build(state, principal, baseUrl);
    Object.assign(entry, { stored: true, revision: record.revision, savedSeen: new Set(record.seen), touchedAt: Date.now() - record.idleMs });
    // What the initialize handshake set on the server, restored (the SDK 1.32 has no public way: #1658).
    Object.assign(entry.server as unknown as { _clientCapabilities: unknown; _clientVersion: unknown }, {
      _clientCapabilities: record.clientCapabilities ?? undefined,
      _clientVersion: record.clientInfo ?? undefined,
    });
    entry.transport = initializedTransport(id, !this.services.config.mcpSseResponses, () => this.ended(id));
    await this.connect(entry);
    this.sessions.set(id, entry);
    return entry;
  }

  /** DELETE on any instance: the record goes, so every instance answers 404 from its next request on. */
  private async ended(id: string): Promise<void> {
    this.sessions.delete(id);
    await deleteRecord(this.services.db, id);
  }

  private async expire(id: string): Promise<void> {
    this.drop(id);
    await deleteRecord(this.services.db, id).catch(() => undefined);
  }

  /** Out of this instance's memory (the record, if any, is not touched). */
  private drop(id: string): void {
    const entry = this.sessions.get(id);
    if (!entry) return;
    this.sessions.delete(id);
    if (entry.flushTimer) clearTimeout(entry.flushTimer);
    void entry.server.close().catch(() => undefined);
  }

  /** This instance's cap on sessions held in memory: long-unused ones leave memory first (their records stay), else 503. */
  private makeRoom(): void {
    if (this.sessions.size < this.limits.maxSessions) return;
    const now = Date.now();
    const after = Math.min(EVICTABLE_AFTER_MS, this.limits.idleMs);
    const idle = [...this.sessions].filter(([, e]) => now - e.lastSeen > after).sort((a, b) => a[1].lastSeen - b[1].lastSeen);
    for (const [id, entry] of idle.slice(0, this.sessions.size - this.limits.maxSessions + 1)) {
      this.sessions.delete(id);
      void this.flush(entry).finally(() => entry.server.close().catch(() => undefined));
    }
    if (this.sessions.size >= this.limits.maxSessions) {
      throw unavailable(`This instance holds its maximum of ${this.limits.maxSessions} MCP sessions in memory; retry shortly`, 5);
    }
  }

  private async sweep(now = Date.now()): Promise<void> {
    for (const [id, entry] of this.sessions) {
      if (now - entry.lastSeen > this.limits.idleMs) {
        if (this.shared) this.drop(id);
        else await this.expire(id);
      }
    }
    await deleteExpired(this.services.db, this.limits.idleMs).catch((err) =>
      this.services.log.warn('mcp session sweep failed', { error: err instanceof Error ? err.message : String(err) }),
    );
  }
}

/**
 * A transport for a session initialized elsewhere (another instance, or this one before a restart): the
 * SDK 1.32 sets these two fields only while handling initialize and offers no option for them yet
 * (modelcontextprotocol/typescript-sdk#1658, #1882); a second initialize on it is refused as on the original.
 */
function initializedTransport(id: string, json: boolean, onclosed: () => Promise<void>): WebStandardStreamableHTTPServerTransport {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => id, enableJsonResponse: json, onsessionclosed: onclosed });
  transport.sessionId = id;
  (transport as unknown as { _initialized: boolean })._initialized = true;
  return transport;
}

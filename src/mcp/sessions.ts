import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Principal } from '../auth/principal.js';
import { ownerOf } from '../domain/call.js';
import { unavailable } from '../domain/errors.js';
import type { Services } from '../services.js';
import { routeRequestsDirectly } from './direct.js';
import { DirectAnswers } from './directAnswers.js';
import { createMcpServer, type Caller } from './server.js';
import { newSessionState, type SessionState } from './session.js';
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
  lastSeen: number;
  /** Stateless entries serve one request and are closed after it. */
  ephemeral: boolean;
}

export interface SessionLimits {
  /** Sessions open at once in this instance; past it initialize answers 503 with Retry-After. */
  maxSessions: number;
  /** Sessions one key may hold; opening one more closes that key's least recently used session. */
  maxPerKey: number;
  /** A session unused this long is closed. */
  idleMs: number;
}

/** In-memory MCP sessions of this instance, each bound to the key that opened it. */
export class SessionStore {
  private readonly sessions = new Map<string, McpEntry>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly services: Services,
    private readonly limits: SessionLimits,
  ) {
    this.sweeper = setInterval(() => this.sweep(), Math.min(60_000, Math.max(1000, limits.idleMs / 2)));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** The caller's session with the caller refreshed, or null (unknown id, idle-expired, or another key's: all read as absent). */
  get(id: string, principal: Principal): McpEntry | null {
    const entry = this.sessions.get(id);
    if (!entry || entry.owner !== ownerOf(principal)) return null;
    if (Date.now() - entry.lastSeen > this.limits.idleMs) {
      this.close(id, entry);
      return null;
    }
    entry.lastSeen = Date.now();
    entry.caller.principal = principal;
    return entry;
  }

  async open(principal: Principal, baseUrl: string, toolsets?: Toolsets): Promise<McpEntry> {
    this.makeRoom(ownerOf(principal));
    const state = newSessionState(null, toolsets);
    const caller: Caller = { principal, baseUrl };
    const server = createMcpServer(this.services, caller, state);
    const entry = { server, state, caller, owner: ownerOf(principal), lastSeen: Date.now(), ephemeral: false } as McpEntry;
    entry.transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: !this.services.config.mcpSseResponses,
      onsessioninitialized: (id) => {
        state.id = id;
        this.sessions.set(id, entry);
      },
      onsessionclosed: (id) => {
        this.sessions.delete(id);
      },
    });
    await server.connect(entry.transport);
    routeRequestsDirectly(server, entry.transport);
    entry.direct = new DirectAnswers(entry.transport, this.services.config.mcpSseResponses);
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
    return { transport, server, state, caller, owner: ownerOf(principal), lastSeen: Date.now(), ephemeral: true };
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    const entries = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(entries.map((e) => e.server.close()));
  }

  /** Per-key cap: the key's least recently used session goes. Overall cap: idle ones go first, else 503. */
  private makeRoom(owner: string): void {
    const own = [...this.sessions].filter(([, e]) => e.owner === owner).sort((a, b) => a[1].lastSeen - b[1].lastSeen);
    for (const [id, entry] of own.slice(0, Math.max(0, own.length - this.limits.maxPerKey + 1))) this.close(id, entry);
    if (this.sessions.size >= this.limits.maxSessions) this.sweep();
    if (this.sessions.size >= this.limits.maxSessions) {
      throw unavailable(`This instance holds its maximum of ${this.limits.maxSessions} MCP sessions; retry shortly`, 5);
    }
  }

  private close(id: string, entry: McpEntry): void {
    this.sessions.delete(id);
    void entry.server.close().catch(() => undefined);
  }

  private sweep(now = Date.now()): void {
    for (const [id, entry] of this.sessions) if (now - entry.lastSeen > this.limits.idleMs) this.close(id, entry);
  }
}

import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Principal } from '../auth/principal.js';
import type { Services } from '../services.js';
import { createMcpServer } from './server.js';
import { newSessionState, type SessionState } from './session.js';

export interface McpEntry {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  state: SessionState;
  ownerId: string;
  lastSeen: number;
  /** Stateless entries serve one request and are closed after it. */
  ephemeral: boolean;
}

const IDLE_MS = 30 * 60_000;

/** In-memory MCP sessions of this instance; a session is bound to the user that opened it. */
export class SessionStore {
  private readonly sessions = new Map<string, McpEntry>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly services: Services) {
    this.sweeper = setInterval(() => this.sweep(), 60_000);
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** The caller's session, or null (unknown id or another user's: both read as absent). */
  get(id: string, userId: string): McpEntry | null {
    const entry = this.sessions.get(id);
    if (!entry || entry.ownerId !== userId) return null;
    entry.lastSeen = Date.now();
    return entry;
  }

  async open(principal: Principal, baseUrl: string): Promise<McpEntry> {
    const state = newSessionState(null);
    const server = createMcpServer(this.services, principal, state, baseUrl);
    const entry: McpEntry = { server, state, ownerId: principal.userId, lastSeen: Date.now(), ephemeral: false } as McpEntry;
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
    return entry;
  }

  /** A one-shot server for callers that send no session id and no initialize. */
  async oneShot(principal: Principal, baseUrl: string): Promise<McpEntry> {
    const state = newSessionState(null);
    const server = createMcpServer(this.services, principal, state, baseUrl);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    return { transport, server, state, ownerId: principal.userId, lastSeen: Date.now(), ephemeral: true };
  }

  async closeAll(): Promise<void> {
    clearInterval(this.sweeper);
    const entries = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.allSettled(entries.map((e) => e.server.close()));
  }

  private sweep(now = Date.now()): void {
    for (const [id, entry] of this.sessions) {
      if (now - entry.lastSeen > IDLE_MS) {
        this.sessions.delete(id);
        void entry.server.close().catch(() => undefined);
      }
    }
  }
}

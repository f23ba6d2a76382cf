// What request handlers and use cases reach of usage metering (usage.ts and usageJournal.ts implement the writer).
import type { Principal } from '../../auth/principal.js';

export type UsageMethod = 'REST' | 'MCP' | 'batch' | 'mcp_advisory';

export interface UsageEventInput {
  principal: Principal;
  method: UsageMethod;
  toolName?: string | null;
  client?: string | null;
  fidelity?: string | null;
  model?: string | null;
  status: 'success' | 'client_error' | 'server_error' | 'timeout';
  inputTokens: number;
  outputTokens: number;
  latencyMs: number;
  cacheHit?: boolean;
  inputText?: string | null;
  /** When the call happened; defaults to now. Batched inserts keep each event's own time. */
  at?: Date;
}

/** Where a call's usage event goes; `record` resolves once the event survives the process being killed. */
export interface UsageWriter {
  record(event: UsageEventInput): Promise<void>;
  /** True while some acknowledged event may not be visible to a read of usage_events yet. */
  hasUncommitted(): boolean;
  /** Resolves once every event recorded before the call is committed to the database. */
  visible(): Promise<void>;
  /** Writes what is waiting (shutdown, after the HTTP server drained). */
  close(): Promise<void>;
}

import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { Toolsets } from './toolsets.js';

/** Per-MCP-session state: the compression profile, listed toolsets, log level and a short history for gc_session_summary. */
export interface SessionState {
  id: string | null;
  profile: string;
  /** Explicit overrides set with set_compression_profile's parameters. */
  overrides: Record<string, unknown>;
  history: { tool: string; at: string; summary: string }[];
  createdAt: number;
  /** Listed besides the core tools (toolsets.ts); widened by enable_toolsets. */
  toolsets: Toolsets;
  /** Lowest level of notifications/message sent (logging/setLevel); info until the client sets one. */
  logLevel: LoggingLevel;
}

const HISTORY_LIMIT = 200;

export function newSessionState(id: string | null, toolsets: Toolsets = new Set()): SessionState {
  return { id, profile: 'balanced', overrides: {}, history: [], createdAt: Date.now(), toolsets, logLevel: 'info' };
}

const LEVELS: LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** Whether a message at `level` goes to this session (RFC 5424 order, as MCP logging defines it). */
export function logs(state: SessionState, level: LoggingLevel): boolean {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(state.logLevel);
}

export function remember(state: SessionState, tool: string, summary: string): void {
  state.history.push({ tool, at: new Date().toISOString(), summary: summary.slice(0, 300) });
  if (state.history.length > HISTORY_LIMIT) state.history.splice(0, state.history.length - HISTORY_LIMIT);
}

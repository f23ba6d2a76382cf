import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import { nowIso } from '../lib/time.js';

/** Per-MCP-session state: the compression profile, listed toolsets, log level and a short history for gc_session_summary. */
/** The toolsets a session lists: named categories, or every tool. */
export type Toolsets = ReadonlySet<string> | 'all';

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

export const SESSION_HISTORY_LIMIT = HISTORY_LIMIT;

type HistoryEntry = SessionState['history'][number];
/** History entries not yet written to the session's shared record (sessionRecords.ts), per session. */
const unsaved = new WeakMap<SessionState, HistoryEntry[]>();

export function remember(state: SessionState, tool: string, summary: string): void {
  const entry = { tool, at: nowIso(), summary: summary.slice(0, 300) };
  state.history.push(entry);
  if (state.history.length > HISTORY_LIMIT) state.history.splice(0, state.history.length - HISTORY_LIMIT);
  let pending = unsaved.get(state);
  if (!pending) unsaved.set(state, (pending = []));
  pending.push(entry);
}

/** The history entries remembered since the last call (they go into the shared record). */
export function takeUnsavedHistory(state: SessionState): HistoryEntry[] {
  const pending = unsaved.get(state) ?? [];
  unsaved.delete(state);
  return pending;
}

/** What a session's settings are, as stored: everything a call may change except history and dedup. */
export interface StoredSettings {
  profile: string;
  overrides: Record<string, unknown>;
  toolsets: string[] | 'all';
  logLevel: LoggingLevel;
}

export function settingsOf(state: SessionState): StoredSettings {
  return { profile: state.profile, overrides: state.overrides, toolsets: state.toolsets === 'all' ? 'all' : [...state.toolsets], logLevel: state.logLevel };
}

/** Puts stored settings and history into a live state object, in place (the session's server holds it). */
export function applyStored(state: SessionState, settings: StoredSettings, history: HistoryEntry[], unsavedTail: HistoryEntry[] = []): void {
  state.profile = settings.profile;
  state.overrides = settings.overrides ?? {};
  state.toolsets = settings.toolsets === 'all' ? 'all' : new Set(settings.toolsets ?? []);
  state.logLevel = settings.logLevel ?? 'info';
  const merged = [...history, ...unsavedTail];
  state.history = merged.slice(Math.max(0, merged.length - HISTORY_LIMIT));
}

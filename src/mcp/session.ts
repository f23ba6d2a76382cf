/** Per-MCP-session state: the compression profile and a short history for gc_session_summary. */
export interface SessionState {
  id: string | null;
  profile: string;
  /** Explicit overrides set with set_compression_profile's parameters. */
  overrides: Record<string, unknown>;
  history: { tool: string; at: string; summary: string }[];
  createdAt: number;
}

const HISTORY_LIMIT = 200;

export function newSessionState(id: string | null): SessionState {
  return { id, profile: 'balanced', overrides: {}, history: [], createdAt: Date.now() };
}

export function remember(state: SessionState, tool: string, summary: string): void {
  state.history.push({ tool, at: new Date().toISOString(), summary: summary.slice(0, 300) });
  if (state.history.length > HISTORY_LIMIT) state.history.splice(0, state.history.length - HISTORY_LIMIT);
}

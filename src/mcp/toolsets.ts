import { invalid } from '../domain/errors.js';
import type { SessionState, Toolsets } from './session.js';
import type { ToolCategory, ToolDefinition } from './tool.js';

/**
 * Toolsets keep tools/list small: every tool definition listed is paid for by every connected agent on
 * every turn. The default list is the core (what an agent needs first: budgeting, compression,
 * retrieval, help); the rest are grouped by the spec's categories and listed once enabled, with
 * `?toolsets=a,b` on the MCP URL, an `X-MCP-Toolsets` header, or tool_help's enable_toolsets at run time. Every
 * tool the plan allows can be called whether or not it is listed, and tool_help describes them all.
 */
export const CORE_TOOLS: ReadonlySet<string> = new Set([
  'tool_help', 'gc_pre_flight', 'estimate_tokens', 'check_context_budget', 'recommend_fidelity',
  'should_compress', 'optimize_for_model', 'adapt_to_context_window', 'compress_tool_output', 'compress_codebase',
  'ingest_context', 'read_skeleton', 'get_original_output', 'search_semantic', 'gc_session_summary',
]);

/** What a session lists besides the core: named toolsets (categories), or every tool. */
export type { Toolsets };

/** Parses a toolsets value (`a,b`, `all`); unknown names are a 400 that lists the valid ones. */
export function parseToolsets(value: string | undefined, known: readonly string[]): Toolsets {
  const names = (value ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  if (names.includes('all')) return 'all';
  const unknown = names.filter((n) => !known.includes(n) && n !== 'core');
  if (unknown.length) {
    throw invalid(`Unknown toolset${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; toolsets are core, ${known.join(', ')} and all`);
  }
  return new Set(names.filter((n) => n !== 'core'));
}

export function isListed(tool: Pick<ToolDefinition, 'name' | 'category'>, toolsets: Toolsets): boolean {
  return toolsets === 'all' || CORE_TOOLS.has(tool.name) || toolsets.has(tool.category);
}

/** The toolset names of a catalogue: its categories, in first-seen order. */
export function toolsetNames(tools: readonly Pick<ToolDefinition, 'category'>[]): ToolCategory[] {
  return [...new Set(tools.map((t) => t.category))];
}

/** Widens a session's listed toolsets (tool_help's enable_toolsets); the server then sends tools/list_changed. */
export function enableToolsets(session: SessionState, names: readonly string[], tools: readonly ToolDefinition[]): void {
  const more = parseToolsets(names.join(','), toolsetNames(tools));
  session.toolsets = session.toolsets === 'all' || more === 'all' ? 'all' : new Set([...session.toolsets, ...more]);
}

/** What a session lists: its enabled toolsets, the ones it could enable, and the counts. */
export function listedSummary(session: SessionState, tools: readonly ToolDefinition[]) {
  return {
    enabled: session.toolsets === 'all' ? ['all'] : ['core', ...session.toolsets],
    available: ['core', ...toolsetNames(tools), 'all'],
    listed_tools: tools.filter((t) => isListed(t, session.toolsets)).length,
    total_tools: tools.length,
  };
}

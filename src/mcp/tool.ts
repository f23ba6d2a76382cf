import type { z } from 'zod';
import type { Plan } from '../auth/plans.js';
import type { McpScope } from '../auth/scopes.js';
import type { Principal } from '../auth/principal.js';
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { Call, ProgressUpdate } from '../domain/call.js';
import type { Services } from '../services.js';
import type { SessionState } from './session.js';
import { catalogueEntry } from './catalogue.js';

export type { ToolCategory } from './catalogue.js';
import type { ToolCategory } from './catalogue.js';

export interface ToolContext {
  services: Services;
  principal: Principal;
  /** This tools/call as a use-case call: the one door to the compute, quota and usage. */
  call: Call;
  session: SessionState;
  /** The MCP client's name from initialize's clientInfo, when known. */
  client: string | null;
  /** Public base URL as the client reached us (PUBLIC_URL, else the request's Host). */
  baseUrl: string;
  signal?: AbortSignal;
  /** Set when the request carries a progressToken: sends notifications/progress (callTool keeps them increasing). */
  onProgress?: (update: ProgressUpdate) => void;
  /** Sends notifications/message at a level, when the session's logging level lets it through. */
  log?: (level: LoggingLevel, data: Record<string, unknown>) => void;
}

/** A tool's answer; token figures for its usage event are reported to ctx.call by the use case. */
export interface ToolOutcome {
  result: Record<string, unknown>;
}

/**
 * MCP ToolAnnotations hints (what the tool does to the world), as data. Defaults come from the tool's
 * flags and name (toolAnnotations below); a definition or its group states only what differs.
 */
export interface ToolHints {
  /** Changes nothing. Defaults to the tool's readOnly flag. */
  readOnlyHint?: boolean;
  /** May destroy or overwrite stored data (delete, revoke, clear, rotate…). Defaults from the name's verb. */
  destructiveHint?: boolean;
  /** Calling again with the same arguments changes nothing more (set, delete, revoke…). Defaults from the name's verb. */
  idempotentHint?: boolean;
  /** Reaches outside this service (the web, federation peers, upstream MCP servers, LLM providers). Defaults to false. */
  openWorldHint?: boolean;
}

export interface ToolDefinition<S extends z.ZodTypeAny = z.ZodTypeAny> {
  name: string;
  /** The spec's category, read from the catalogue (src/mcp/catalogue.ts): stated there only. */
  category: ToolCategory;
  /** Lowest plan that may call it (spec tags plan:free / plan:pro), read from the catalogue. */
  plan: Plan;
  /** Human-readable name (MCP title); derived from the name unless stated. */
  title: string;
  description: string;
  input: S;
  /**
   * What a successful call returns (its structuredContent). Listed as outputSchema; callTool checks
   * the result against it under test (RESPONSE_CHECK=1), and the SDK client validates it on every call.
   */
  output?: z.ZodTypeAny;
  /** Hints that differ from the derived defaults (toolAnnotations). */
  hints?: ToolHints;
  /** Non-compressing helper calls are recorded with method mcp_advisory. */
  advisory?: boolean;
  /** Reads only: advertised to clients as readOnlyHint. */
  readOnly?: boolean;
  /** OAuth scope an access token needs to call it: mcp:read / mcp:write for stored data, else mcp:tools. */
  scope?: McpScope;
  /** Knowledge, plan, task and workflow tools need a project-bound key. */
  needsProject?: boolean;
  handler(args: z.infer<S>, ctx: ToolContext): Promise<ToolOutcome> | ToolOutcome;
}

/** OAuth scope an access token needs to call the tool (API keys are not scope-limited). */
export function toolScope(tool: Pick<ToolDefinition, 'scope'>): McpScope {
  return tool.scope ?? 'mcp:tools';
}

/** What a definition states: category and plan come from the catalogue, the title from the name. */
export type ToolSpec<S extends z.ZodTypeAny> = Omit<ToolDefinition<S>, 'category' | 'plan' | 'title'> & { title?: string };

/** Metadata shared by a feature's tools (scope, flags, hints); each definition states only what differs. */
export type ToolDefaults = Partial<Pick<ToolDefinition, 'advisory' | 'readOnly' | 'scope' | 'needsProject' | 'hints'>>;

/** 'estimate_tokens' → 'Estimate tokens'; acronyms the names use are upper-cased. */
export function titleOf(name: string): string {
  const words = name.split('_').map((w) => (/^(gc|mcp|kb|afm|ace|roi|toon|html|llm|a2a|api|id|pr)$/.test(w) ? w.toUpperCase() : w));
  const title = words.join(' ');
  return title.charAt(0).toUpperCase() + title.slice(1);
}

export function defineTool<S extends z.ZodTypeAny>(spec: ToolSpec<S>, defaults: ToolDefaults = {}): ToolDefinition<S> {
  const entry = catalogueEntry(spec.name);
  return {
    ...defaults,
    ...spec,
    hints: defaults.hints || spec.hints ? { ...defaults.hints, ...spec.hints } : undefined,
    category: entry.category,
    plan: entry.requires ?? entry.plan,
    title: spec.title ?? titleOf(spec.name),
  };
}

/** defineTool with a feature's defaults: `const tool = defineToolGroup({ readOnly: true, hints: { openWorldHint: true } })`. */
export function defineToolGroup(defaults: ToolDefaults) {
  return <S extends z.ZodTypeAny>(spec: ToolSpec<S>): ToolDefinition<S> => defineTool(spec, defaults);
}

const DESTRUCTIVE = /(^|_)(delete|revoke|clear|remove|purge|forget|rotate|cancel|overwrite)(_|$)/;
const IDEMPOTENT = /(^|_)(set|delete|revoke|clear|remove|purge|forget|cancel|update|configure|refresh)(_|$)/;

/** The tool's MCP hints: derived from its flags and name's verb, then its stated hints on top. */
export function toolAnnotations(tool: Pick<ToolDefinition, 'name' | 'readOnly' | 'hints'>): Required<ToolHints> {
  const readOnly = tool.hints?.readOnlyHint ?? !!tool.readOnly;
  return {
    readOnlyHint: readOnly,
    destructiveHint: !readOnly && DESTRUCTIVE.test(tool.name),
    idempotentHint: readOnly || IDEMPOTENT.test(tool.name),
    openWorldHint: false,
    ...tool.hints,
  };
}

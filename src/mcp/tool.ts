import type { z } from 'zod';
import type { Plan } from '../auth/plans.js';
import type { McpScope } from '../auth/scopes.js';
import type { Principal } from '../auth/principal.js';
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { Call, ProgressUpdate } from '../domain/call.js';
import type { Services } from '../services.js';
import type { SessionState } from './session.js';

/** Categories of the spec's tool catalogue. */
export type ToolCategory =
  | 'advisory' | 'analytics' | 'general' | 'ingestion' | 'platform' | 'search' | 'compression'
  | 'ace' | 'adaptive-memory' | 'knowledge-base' | 'memory';

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

export interface ToolDefinition<S extends z.ZodTypeAny = z.ZodTypeAny> {
  name: string;
  category: ToolCategory;
  /** Lowest plan that may call it (spec tags plan:free / plan:pro; some say Team). */
  plan: Plan;
  description: string;
  input: S;
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

export function defineTool<S extends z.ZodTypeAny>(definition: ToolDefinition<S>): ToolDefinition<S> {
  return definition;
}

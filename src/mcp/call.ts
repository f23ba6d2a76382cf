import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { planAtLeast } from '../auth/plans.js';
import { recordUsageInBackground } from '../domain/accounts/usage.js';
import { getTool } from './registry.js';
import { remember } from './session.js';
import { ToolError, type ToolContext, type ToolOutcome } from './tool.js';

const PLAN_LABEL = { free: 'Free', pro: 'Pro', team: 'Team', enterprise: 'Enterprise' } as const;

function errorResult(error: string, detail: string, extra: Record<string, unknown> = {}): CallToolResult {
  const payload = { error, detail, ...extra };
  return { content: [{ type: 'text', text: JSON.stringify(payload) }], structuredContent: payload, isError: true };
}

function okResult(result: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
}

/**
 * The whole tools/call pipeline: lookup, plan gate, project binding, validation, handler,
 * tool-level errors as results, and one usage event per call.
 */
export async function callTool(name: string, args: unknown, ctx: ToolContext): Promise<CallToolResult> {
  const started = performance.now();
  const tool = getTool(name);
  if (!tool) return errorResult('not_found', `Unknown tool '${name}'`);
  let outcome: ToolOutcome | null = null;
  let result: CallToolResult;
  try {
    if (!planAtLeast(ctx.principal.plan, tool.plan)) {
      throw new ToolError('plan_required', `${name} requires the ${PLAN_LABEL[tool.plan]} plan or higher`, { required_plan: tool.plan });
    }
    if (tool.needsProject && !ctx.principal.projectId) {
      throw new ToolError('no_project_selected', `${name} needs an API key bound to a project`);
    }
    const parsed = tool.input.safeParse(args ?? {});
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({ loc: i.path, msg: i.message, type: i.code }));
      throw new ToolError('validation_error', `Invalid arguments for ${name}`, { issues });
    }
    outcome = await tool.handler(parsed.data, ctx);
    result = okResult(outcome.result);
  } catch (err) {
    if (err instanceof ToolError) result = errorResult(err.code, err.detail, err.extra);
    else {
      ctx.services.log.error('tool failed', { tool: name, error: err instanceof Error ? err.message : String(err) });
      result = errorResult('internal_error', `${name} failed; retry with exponential back-off`);
    }
  }
  remember(ctx.session, name, result.isError ? `error ${(result.structuredContent as { error: string }).error}` : 'ok');
  recordUsageInBackground(ctx.services, {
    principal: ctx.principal,
    method: tool.advisory ? 'mcp_advisory' : 'MCP',
    toolName: name,
    client: ctx.client,
    fidelity: outcome?.usage?.fidelity ?? null,
    model: outcome?.usage?.model ?? null,
    status: result.isError ? 'client_error' : 'success',
    inputTokens: outcome?.usage?.inputTokens ?? 0,
    outputTokens: outcome?.usage?.outputTokens ?? 0,
    latencyMs: performance.now() - started,
    inputText: outcome?.usage?.inputText ?? null,
  });
  return result;
}

import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { requirePlan } from '../auth/plans.js';
import { Call, type ProgressUpdate } from '../domain/call.js';
import { asDomainError, DomainError, unavailable } from '../domain/errors.js';
import { validate } from '../http/validate.js';
import { responseCheckEnabled } from '../config.js';
import { getTool } from './registry.js';
import { remember } from './session.js';
import type { ToolContext } from './tool.js';

/** Everything a tool sees except its Call, which callTool opens. */
export type CallerContext = Omit<ToolContext, 'call'>;

function errorResult(payload: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(payload) }], structuredContent: payload, isError: true };
}

function okResult(result: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
}

/**
 * A result as it goes out on MCP: a tool that declares an outputSchema keeps an error's payload in its
 * text only, since clients validate any structuredContent against that schema, error or not (the
 * SDK's Client.callTool does). In-process callers (workflow nodes, A2A) keep reading structuredContent.
 */
export function onTheWire(name: string, result: CallToolResult): CallToolResult {
  if (!result.isError || !getTool(name)?.output) return result;
  const { structuredContent: _, ...rest } = result;
  return rest;
}

/** The one translation of the domain's error vocabulary to MCP tool-level errors: `{error, detail, ...}`. */
export function toolErrorOf(e: DomainError): Record<string, unknown> {
  return {
    error: e.code,
    detail: e.detail,
    ...e.extra,
    ...(e.issues ? { issues: e.issues } : {}),
    ...(e.retryAfter !== undefined ? { retry_after_seconds: e.retryAfter } : {}),
  };
}

/**
 * The whole tools/call pipeline: lookup, plan gate, project binding, validation, the tool (an adapter
 * over the domain's use cases), tool-level errors as results, and one usage event per call.
 */
export async function callTool(name: string, args: unknown, caller: CallerContext): Promise<CallToolResult> {
  const tool = getTool(name);
  if (!tool) return errorResult({ error: 'not_found', detail: `Unknown tool '${name}'` });
  // Progress values must increase: 0 at the start, then one per compute step (Call.compute).
  let lastProgress = -1;
  const progress = caller.onProgress
    ? (u: ProgressUpdate) => {
        if (u.progress <= lastProgress) return;
        lastProgress = u.progress;
        caller.onProgress!(u);
      }
    : undefined;
  progress?.({ progress: 0, message: `${name} started` });
  // A run past a second says it is still alive, then every five (notifications/message, level info).
  const started = performance.now();
  const beat = () => caller.log!('info', { message: `${name} still running`, elapsed_ms: Math.round(performance.now() - started), steps_done: call.progress.done });
  let beats: NodeJS.Timeout | undefined;
  const heartbeat = caller.log ? setTimeout(() => ((beats = setInterval(beat, 5000)), beat()), 1000) : undefined;
  const call = new Call({
    services: caller.services,
    principal: caller.principal,
    surface: 'MCP',
    toolName: name,
    client: caller.client,
    advisory: tool.advisory,
    signal: caller.signal,
    onProgress: progress,
  });
  let result: CallToolResult;
  let failure: unknown;
  try {
    requirePlan(caller.principal.plan, tool.plan, name);
    if (tool.needsProject && !caller.principal.projectId) {
      throw new DomainError('forbidden', `${name} needs an API key bound to a project`, { code: 'no_project_selected' });
    }
    const parsed = validate(tool.input, args ?? {}, null, `arguments for ${name}`);
    const outcome = (await tool.handler(parsed, { ...caller, call })).result;
    if (tool.output && CHECK_OUTPUT) checkOutput(name, tool.output, outcome);
    result = okResult(outcome);
    // A call that ran no compute step still ends its progress.
    if (lastProgress === 0) progress?.({ progress: 1, total: 1, message: `${name} done` });
  } catch (err) {
    failure = err;
    const known = asDomainError(err);
    if (!known) caller.services.log.error('tool failed', { tool: name, error: err instanceof Error ? err.message : String(err) });
    result = errorResult(known ? toolErrorOf(known) : { error: 'internal_error', detail: `${name} failed; retry with exponential back-off` });
    caller.log?.(known ? 'warning' : 'error', { message: `${name} failed`, ...(result.structuredContent as Record<string, unknown>) });
  } finally {
    clearTimeout(heartbeat);
    clearInterval(beats);
  }
  try {
    // Answered only once its usage event has committed (group commit): an acknowledged call survives a crash.
    await call.finishWith(failure);
  } catch (err) {
    if (!result.isError) result = errorResult(toolErrorOf(asDomainError(err) ?? unavailable('Usage could not be recorded; retry shortly', 2)));
  }
  remember(caller.session, name, result.isError ? `error ${(result.structuredContent as { error: string }).error}` : 'ok');
  return result;
}

/**
 * A result off the tool's own outputSchema is a defect of the tool: every client that validates
 * (the SDK's does) would reject it, so under test (RESPONSE_CHECK=1, as for routes) it fails here as an
 * internal error, named in the log. Production does not parse every result twice: the client does.
 */
const CHECK_OUTPUT = responseCheckEnabled();

function checkOutput(name: string, schema: z.ZodTypeAny, outcome: Record<string, unknown>): void {
  const checked = schema.safeParse(outcome);
  if (!checked.success) throw new Error(`${name} returned a result off its outputSchema: ${checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
}

// The MCP tools a workflow's `tool` node may call: any registered tool except those that manage keys,
// providers, workflows, runs or plan decisions (no recursion, no credentials, no owner decisions taken
// by automation). A call goes through the one tools/call pipeline as the run's key: plan gate,
// project binding, argument validation, quota and its own usage event.
import type { Principal } from '../auth/principal.js';
import type { ValidationIssue } from '../domain/errors.js';
import type { NodeTools } from '../domain/workflows/graph.js';
import type { z } from 'zod';
import { isMissing, issuePath, REPORT_INPUT } from '../lib/zodIssues.js';
import type { Services } from '../services.js';
import { callTool } from './call.js';
import { getTool } from './registry.js';
import { newSessionState } from './session.js';

const DENIED = [/^gc_run_/, /^gc_workflow_/, /^gc_provider_/, /^gc_(mint|revoke|rebind)_api_key$/, /^gc_plan_decide$/];

export function deniedForNodes(name: string): boolean {
  return DENIED.some((re) => re.test(name));
}

function issueType(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') return isMissing(issue) ? 'missing' : 'type_error';
  if (issue.code === 'unrecognized_keys') return 'extra_forbidden';
  return `value_error.${issue.code}`;
}

export function mcpNodeTools(services: Services): NodeTools {
  return {
    check(name, args): ValidationIssue[] {
      const tool = getTool(name);
      if (!tool) return [{ loc: ['tool'], msg: `unknown tool '${name}'`, type: 'value_error.tool' }];
      if (deniedForNodes(name)) return [{ loc: ['tool'], msg: `'${name}' cannot run inside a workflow (keys, providers, workflows, runs and plan decisions are not automated)`, type: 'value_error.tool' }];
      const parsed = tool.input.safeParse(args, REPORT_INPUT);
      if (parsed.success) return [];
      // A templated string ({{input.x}}, {{nodes.y.text}}) is only known when the run fills it; callTool checks it then.
      const templated = (path: (string | number)[]) => {
        const v = path.reduce<unknown>((node, k) => (node && typeof node === 'object' ? (node as Record<string | number, unknown>)[k] : undefined), args);
        return typeof v === 'string' && v.includes('{{');
      };
      return parsed.error.issues.filter((i) => !templated(issuePath(i))).map((i) => ({ loc: ['arguments', ...issuePath(i)], msg: i.message, type: issueType(i) }));
    },
    async call(name: string, args: Record<string, unknown>, principal: Principal, signal: AbortSignal) {
      if (!getTool(name) || deniedForNodes(name)) return { isError: true, data: { error: 'invalid_request', detail: `'${name}' cannot run inside a workflow` } };
      const result = await callTool(name, args, {
        services,
        principal,
        session: newSessionState(null),
        client: 'workflow-run',
        baseUrl: services.config.publicUrl ?? 'http://localhost',
        signal,
      });
      return { isError: !!result.isError, data: (result.structuredContent ?? {}) as Record<string, unknown> };
    },
  };
}

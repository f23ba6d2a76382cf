import { z } from 'zod';
import type { ToolDefinition } from './tool.js';
import { configureForClientTool } from './tools/clients.js';
import { helpTool } from './tools/help.js';
import { TOOLS as CATALOGUE } from './tools/index.js';
import { isListed, type Toolsets } from './toolsets.js';

export function inputJsonSchema(tool: ToolDefinition): Record<string, unknown> {
  // The input side: a field with a default is optional for the caller; what JSON Schema cannot say (transforms) is any.
  const schema = z.toJSONSchema(tool.input, { target: 'draft-7', io: 'input', unrepresentable: 'any', reused: 'inline', cycles: 'throw' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

/**
 * The one registry: tools/list, plan gating, tool_help, the agent card and docs/tools.md all read it.
 * tool_help and configure_for_client are built here, over the registry they read, so no module imports the registry back.
 */
const TOOLS: readonly ToolDefinition[] = [
  helpTool({ all: () => TOOLS, get: (name) => byName.get(name), inputSchema: inputJsonSchema }) as ToolDefinition,
  ...(CATALOGUE as ToolDefinition[]),
  configureForClientTool({ all: () => TOOLS }) as ToolDefinition,
];
const byName = new Map<string, ToolDefinition>(TOOLS.map((t) => [t.name, t]));
if (byName.size !== TOOLS.length) throw new Error('duplicate tool name in registry');

export function getTool(name: string): ToolDefinition | undefined {
  return byName.get(name);
}

export function allTools(): readonly ToolDefinition[] {
  return TOOLS;
}

type Listed = { name: string; description: string; inputSchema: Record<string, unknown>; annotations?: Record<string, unknown> };
let listCache: { tool: ToolDefinition; listed: Listed }[] | null = null;

/**
 * tools/list payload for a session's toolsets; definitions are computed once (schemas never change at
 * run time). Kept lean, since every caller pays for them on every turn: the plan tag only where a
 * tool needs more than Free, readOnlyHint only when true (the category is the toolset; tool_help and
 * the agent card carry everything).
 */
export function toolList(toolsets: Toolsets = 'all'): Listed[] {
  listCache ??= TOOLS.map((t) => ({
    tool: t,
    listed: {
      name: t.name,
      description: t.plan === 'free' ? t.description : `${t.description} [plan:${t.plan}]`,
      inputSchema: inputJsonSchema(t),
      ...(t.readOnly ? { annotations: { readOnlyHint: true } } : {}),
    },
  }));
  return listCache.filter((e) => isListed(e.tool, toolsets)).map((e) => e.listed);
}

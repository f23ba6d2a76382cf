import { zodToJsonSchema } from 'zod-to-json-schema';
import type { ToolDefinition } from './tool.js';
import { helpTool } from './tools/help.js';
import { TOOLS as CATALOGUE } from './tools/index.js';

export function inputJsonSchema(tool: ToolDefinition): Record<string, unknown> {
  const schema = zodToJsonSchema(tool.input, { target: 'jsonSchema7', $refStrategy: 'none' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

/**
 * The one registry: tools/list, plan gating, tool_help, the agent card and docs/tools.md all read it.
 * tool_help is built here, over the registry it belongs to, so no module imports the registry back.
 */
const TOOLS: readonly ToolDefinition[] = [
  helpTool({ all: () => TOOLS, get: (name) => byName.get(name), inputSchema: inputJsonSchema }) as ToolDefinition,
  ...(CATALOGUE as ToolDefinition[]),
];
const byName = new Map<string, ToolDefinition>(TOOLS.map((t) => [t.name, t]));
if (byName.size !== TOOLS.length) throw new Error('duplicate tool name in registry');

export function getTool(name: string): ToolDefinition | undefined {
  return byName.get(name);
}

export function allTools(): readonly ToolDefinition[] {
  return TOOLS;
}

let listCache: { name: string; description: string; inputSchema: Record<string, unknown>; annotations: Record<string, unknown> }[] | null = null;

/** tools/list payload, computed once: schemas never change at run time. */
export function toolList() {
  listCache ??= TOOLS.map((t) => ({
    name: t.name,
    description: `${t.description} [plan:${t.plan}] [category:${t.category}]`,
    inputSchema: inputJsonSchema(t),
    annotations: { title: t.name, readOnlyHint: !!t.readOnly },
  }));
  return listCache;
}

import { zodToJsonSchema } from 'zod-to-json-schema';
import type { ToolDefinition } from './tool.js';
import { TOOLS } from './tools/index.js';

/** The one registry: tools/list, plan gating, tool_help, the agent card and docs/tools.md all read it. */
const byName = new Map<string, ToolDefinition>(TOOLS.map((t) => [t.name, t as ToolDefinition]));
if (byName.size !== TOOLS.length) throw new Error('duplicate tool name in registry');

export function getTool(name: string): ToolDefinition | undefined {
  return byName.get(name);
}

export function allTools(): readonly ToolDefinition[] {
  return TOOLS as readonly ToolDefinition[];
}

export function inputJsonSchema(tool: ToolDefinition): Record<string, unknown> {
  const schema = zodToJsonSchema(tool.input, { target: 'jsonSchema7', $refStrategy: 'none' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

let listCache: { name: string; description: string; inputSchema: Record<string, unknown>; annotations: Record<string, unknown> }[] | null = null;

/** tools/list payload, computed once: schemas never change at run time. */
export function toolList() {
  listCache ??= TOOLS.map((t) => ({
    name: t.name,
    description: `${t.description} [plan:${t.plan}] [category:${t.category}]`,
    inputSchema: inputJsonSchema(t as ToolDefinition),
    annotations: { title: t.name, readOnlyHint: !!(t as ToolDefinition).readOnly },
  }));
  return listCache;
}

import { z } from 'zod';
import { toolAnnotations, type ToolDefinition, type ToolHints } from './tool.js';
import { configureForClientTool } from './tools/advice/clients.js';
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
 * Drops what says nothing but costs tokens on every tools/list: an integer's safe-integer bounds
 * (z.int()'s defaults) and a loose object's `additionalProperties: {}` (JSON Schema's default).
 */
function lean({ jsonSchema: s }: { jsonSchema: Record<string, unknown> }): void {
  if (s.minimum === Number.MIN_SAFE_INTEGER) delete s.minimum;
  if (s.maximum === Number.MAX_SAFE_INTEGER) delete s.maximum;
  const extra = s.additionalProperties;
  if (extra && typeof extra === 'object' && Object.keys(extra).length === 0) delete s.additionalProperties;
}

/** The output side of a tool's result schema (what structuredContent holds), as tools/list lists it. */
export function outputJsonSchema(tool: ToolDefinition): Record<string, unknown> | undefined {
  if (!tool.output) return undefined;
  const schema = z.toJSONSchema(tool.output, { target: 'draft-7', io: 'output', unrepresentable: 'any', reused: 'inline', cycles: 'throw', override: lean }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}

/** MCP's defaults for absent hints (spec 2025-06-18, ToolAnnotations). */
const MCP_DEFAULT_HINTS: Required<ToolHints> = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

/**
 * The annotations tools/list carries: the title, and only the hints that differ from MCP's defaults
 * (a client reads an absent hint as its default, so stating it again is tokens for nothing).
 * destructiveHint and idempotentHint mean something only when readOnlyHint is false, so a read-only tool omits them.
 */
export function listedAnnotations(tool: ToolDefinition): Record<string, unknown> {
  const hints = toolAnnotations(tool);
  const out: Record<string, unknown> = { title: tool.title };
  for (const key of Object.keys(MCP_DEFAULT_HINTS) as (keyof ToolHints)[]) {
    if (hints.readOnlyHint && (key === 'destructiveHint' || key === 'idempotentHint')) continue;
    if (hints[key] !== MCP_DEFAULT_HINTS[key]) out[key] = hints[key];
  }
  return out;
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

type Listed = { name: string; description: string; inputSchema: Record<string, unknown>; outputSchema?: Record<string, unknown>; annotations: Record<string, unknown> };
let listCache: { tool: ToolDefinition; listed: Listed }[] | null = null;

/**
 * tools/list payload for a session's toolsets; definitions are computed once (schemas never change at
 * run time). Kept lean, since every caller pays for them on every turn: the plan tag only where a
 * tool needs more than Free, annotations with only the hints that differ from MCP's defaults, the
 * outputSchema where the tool declares one (the category is the toolset; tool_help and the agent card carry everything).
 */
export function toolList(toolsets: Toolsets = 'all'): Listed[] {
  listCache ??= TOOLS.map((t) => ({
    tool: t,
    listed: {
      name: t.name,
      description: t.plan === 'free' ? t.description : `${t.description} [plan:${t.plan}]`,
      inputSchema: inputJsonSchema(t),
      ...(t.output ? { outputSchema: outputJsonSchema(t) } : {}),
      annotations: listedAnnotations(t),
    },
  }));
  return listCache.filter((e) => isListed(e.tool, toolsets)).map((e) => e.listed);
}

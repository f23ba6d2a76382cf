import { z } from 'zod';
import { notFound } from '../../domain/errors.js';
import { defineTool, toolScope, type ToolDefinition } from '../tool.js';

/** What tool_help reads: the registry, handed in by registry.ts (tool_help is part of it). */
export interface Catalogue {
  all(): readonly ToolDefinition[];
  get(name: string): ToolDefinition | undefined;
  inputSchema(tool: ToolDefinition): Record<string, unknown>;
}

export function helpTool(catalogue: Catalogue) {
  const describe = (t: ToolDefinition, verbose: boolean) => ({
    name: t.name,
    category: t.category,
    plan: t.plan,
    description: t.description,
    ...(verbose ? { input_schema: catalogue.inputSchema(t), needs_project: !!t.needsProject, oauth_scope: toolScope(t) } : {}),
  });
  return defineTool({
    name: 'tool_help',
    readOnly: true,
    category: 'general',
    plan: 'free',
    advisory: true,
    description: 'Help for one tool, or without tool_name every tool grouped by category; verbose adds input schemas.',
    input: z.object({ tool_name: z.string().optional(), verbose: z.boolean().default(false) }).strict(),
    handler({ tool_name, verbose }) {
      if (tool_name) {
        const tool = catalogue.get(tool_name);
        if (!tool) throw notFound(`Unknown tool '${tool_name}'`);
        return { result: { tool: { ...describe(tool, true) } } };
      }
      const categories: Record<string, ReturnType<typeof describe>[]> = {};
      for (const t of catalogue.all()) (categories[t.category] ??= []).push(describe(t, verbose));
      return { result: { tool_count: catalogue.all().length, categories } };
    },
  });
}

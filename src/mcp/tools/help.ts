import { z } from 'zod';
import { notFound } from '../../domain/errors.js';
import { defineTool, toolScope, type ToolDefinition } from '../tool.js';
import { enableToolsets, listedSummary } from '../toolsets.js';

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
    advisory: true,
    // One of three answers: the toolsets enabled, one tool, or every tool by category.
    output: z.looseObject({
      toolsets: z.looseObject({ enabled: z.array(z.string()), available: z.array(z.string()) }).optional(),
      tool: z.looseObject({ name: z.string(), category: z.string(), plan: z.string(), description: z.string() }).optional(),
      tool_count: z.number().int().optional(),
      categories: z.record(z.string(), z.array(z.looseObject({ name: z.string() }))).optional(),
    }),
    description:
      'Help for one tool, or every tool by category (verbose adds input schemas). enable_toolsets lists more tools in this session (categories or "all"); unlisted tools can be called too.',
    input: z
      .object({ tool_name: z.string().optional(), verbose: z.boolean().default(false), enable_toolsets: z.array(z.string().min(1).max(40)).min(1).max(20).optional() })
      .strict(),
    handler({ tool_name, verbose, enable_toolsets }, ctx) {
      if (enable_toolsets) {
        enableToolsets(ctx.session, enable_toolsets, catalogue.all());
        return { result: { toolsets: listedSummary(ctx.session, catalogue.all()) } };
      }
      if (tool_name) {
        const tool = catalogue.get(tool_name);
        if (!tool) throw notFound(`Unknown tool '${tool_name}'`);
        return { result: { tool: { ...describe(tool, true) } } };
      }
      const categories: Record<string, ReturnType<typeof describe>[]> = {};
      for (const t of catalogue.all()) (categories[t.category] ??= []).push(describe(t, verbose));
      return { result: { tool_count: catalogue.all().length, categories, toolsets: listedSummary(ctx.session, catalogue.all()) } };
    },
  });
}

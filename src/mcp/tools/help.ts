import { z } from 'zod';
import { notFound } from '../../domain/errors.js';
import { defineTool } from '../tool.js';

// tool_help reads the registry lazily (it is part of it), hence the dynamic import.
export const helpTools = [
  defineTool({
    name: 'tool_help',
    readOnly: true,
    category: 'general',
    plan: 'free',
    advisory: true,
    description: 'Help for one tool, or without tool_name every tool grouped by category; verbose adds input schemas.',
    input: z.object({ tool_name: z.string().optional(), verbose: z.boolean().default(false) }).strict(),
    async handler({ tool_name, verbose }) {
      const { allTools, getTool, inputJsonSchema } = await import('../registry.js');
      const { toolScope } = await import('../oauth.js');
      const describe = (t: ReturnType<typeof allTools>[number]) => ({
        name: t.name,
        category: t.category,
        plan: t.plan,
        description: t.description,
        ...(verbose ? { input_schema: inputJsonSchema(t), needs_project: !!t.needsProject, oauth_scope: toolScope(t) } : {}),
      });
      if (tool_name) {
        const tool = getTool(tool_name);
        if (!tool) throw notFound(`Unknown tool '${tool_name}'`);
        return { result: { tool: { ...describe(tool), input_schema: inputJsonSchema(tool), oauth_scope: toolScope(tool) } } };
      }
      const categories: Record<string, ReturnType<typeof describe>[]> = {};
      for (const t of allTools()) (categories[t.category] ??= []).push(describe(t));
      return { result: { tool_count: allTools().length, categories } };
    },
  }),
];

import { z } from 'zod';
import { DomainError } from '../../domain/errors.js';
import { resolveProject } from '../../domain/knowledge/items.js';
import { compileProjectKnowledge, knowledgeIndex, lintProjectKnowledge } from '../../domain/memory/knowledge.js';
import { defineTool, type ToolContext } from '../tool.js';

async function boundProject(ctx: ToolContext): Promise<string> {
  const project = await resolveProject(ctx.services.db, ctx.principal, ctx.principal.projectId!).catch(() => null);
  if (!project) throw new DomainError('forbidden', 'The project this key is bound to no longer exists', { code: 'no_project_selected' });
  return project.id;
}

const maxItems = z.number().int().min(1).max(1000).default(200);

export const compiledKnowledgeTools = [
  defineTool({
    name: 'compile_knowledge',
    scope: 'mcp:write',
    needsProject: true,
    advisory: true,
    description:
      "Compiles the key's project Knowledge Hub into one index: per item its summary, outline (headings), key terms (TF-IDF across items) and related items (embedding centroids). Stored as a Knowledge Hub item of type knowledge-index (a new version on each compile); get_knowledge_index reads it.",
    input: z.object({ max_items: maxItems }).strict(),
    async handler(args, ctx) {
      return { result: await compileProjectKnowledge(ctx.call, await boundProject(ctx), args.max_items) };
    },
  }),
  defineTool({
    name: 'get_knowledge_index',
    scope: 'mcp:read',
    needsProject: true,
    advisory: true,
    readOnly: true,
    description: "The project's compiled knowledge index (markdown) with compiled_at, and stale with the items changed or removed since. Never compiled: not_found.",
    input: z.object({}).strict(),
    async handler(_args, ctx) {
      return { result: await knowledgeIndex(ctx.services, ctx.principal, await boundProject(ctx)) };
    },
  }),
  defineTool({
    name: 'lint_knowledge',
    scope: 'mcp:read',
    needsProject: true,
    advisory: true,
    readOnly: true,
    description:
      "Checks the project's Knowledge Hub: empty items, items without headings, oversized chunks, duplicate and near-duplicate passages across items, items changed since the index was compiled. Each finding has rule, severity, item_id, other_item_id and a message.",
    input: z.object({ max_items: maxItems }).strict(),
    async handler(args, ctx) {
      return { result: await lintProjectKnowledge(ctx.call, await boundProject(ctx), args.max_items) };
    },
  }),
];

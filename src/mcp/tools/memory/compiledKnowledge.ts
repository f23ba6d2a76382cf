import { z } from 'zod';
import { DomainError } from '../../../domain/errors.js';
import { resolveProject } from '../../../domain/knowledge/items.js';
import { compileProjectKnowledge, knowledgeIndex, lintProjectKnowledge } from '../../../domain/memory/knowledge.js';
import { defineTool, type ToolContext } from '../../tool.js';
import { int } from '../outputs.js';

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
    output: z.looseObject({
      index_item_id: z.string(),
      version_id: z.string(),
      compiled_at: z.string(),
      item_count: int,
      chunk_count: int,
      items: z.array(z.looseObject({ item_id: z.string(), name: z.string(), summary: z.string() })),
      markdown: z.string(),
    }),
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
    output: z.looseObject({
      index_item_id: z.string(),
      version_id: z.string(),
      compiled_at: z.string().nullable(),
      item_count: int,
      stale: z.boolean(),
      changed_item_ids: z.array(z.string()),
      removed_item_ids: z.array(z.string()),
      markdown: z.string(),
    }),
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
    output: z.looseObject({
      findings: z.array(z.looseObject({ rule: z.string(), severity: z.enum(['warning', 'info']), item_id: z.string(), other_item_id: z.string().nullable(), message: z.string() })),
      counts: z.record(z.string(), int),
      items_checked: int,
      chunks_checked: int,
    }),
    input: z.object({ max_items: maxItems }).strict(),
    async handler(args, ctx) {
      return { result: await lintProjectKnowledge(ctx.call, await boundProject(ctx), args.max_items) };
    },
  }),
];

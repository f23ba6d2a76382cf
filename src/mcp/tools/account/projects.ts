import { z } from 'zod';
import { createProject, ensureDefaultProject, listProjects, projectContents, projectUsage, requireOwnedProject, type ProjectRow } from '../../../domain/identity/projects.js';
import { defineTool } from '../../tool.js';
import { int, when } from '../outputs.js';
import { iso, isoOrNull } from '../../../lib/time.js';

const view = (row: ProjectRow) => ({
  project_id: row.id,
  name: row.name,
  description: row.description,
  is_default: row.is_default,
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at),
});

const projectOutput = z.looseObject({
  project_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  is_default: z.boolean(),
  created_at: when,
  updated_at: when,
});

export const projectTools = [
  defineTool({
    name: 'create_project',
    scope: 'mcp:write',
    advisory: true,
    description: 'Creates a project (Team or Enterprise), as POST /v1/projects does: a scope for Knowledge Hub items, code indexes, workflows and project-bound keys.',
    output: projectOutput,
    input: z.object({ name: z.string().trim().min(1).max(100), description: z.string().max(1000).nullable().optional() }).strict(),
    async handler(args, ctx) {
      return { result: view(await createProject(ctx.services.db, ctx.principal.userId, args)) };
    },
  }),
  defineTool({
    name: 'project_stats',
    scope: 'mcp:read',
    readOnly: true,
    advisory: true,
    description: "A project's usage (compressions, tokens, savings, latency, bound keys) and contents (Knowledge Hub items and chunks, indexed code, workflows and runs). Default: the key's project, else every project.",
    output: z.looseObject({
      projects: z.array(
        projectOutput.extend({
          usage: z.looseObject({ total_compressions: int, original_tokens: int, compressed_tokens: int, tokens_saved: int, bound_keys: int, last_event_at: z.string().nullable() }),
          contents: z.record(z.string(), int),
        }),
      ),
      total: int,
    }),
    input: z.object({ project_id: z.string().uuid().optional() }).strict(),
    async handler(args, ctx) {
      const { db } = ctx.services;
      let ids = args.project_id ? [args.project_id] : ctx.principal.projectId ? [ctx.principal.projectId] : null;
      if (!ids) {
        await ensureDefaultProject(db, ctx.principal.userId); // as GET /v1/projects does
        ids = (await listProjects(db, ctx.principal.userId)).map((p) => p.id);
      }
      const projects = [];
      for (const id of ids) {
        const row = await requireOwnedProject(db, ctx.principal.userId, id); // another user's project is not_found
        const usage = await projectUsage(db, row);
        projects.push({
          ...view(row),
          usage: { ...usage, original_tokens: Number(usage.original_tokens), compressed_tokens: Number(usage.compressed_tokens), tokens_saved: Number(usage.tokens_saved), last_event_at: isoOrNull(usage.last_event_at) },
          contents: await projectContents(db, row.id),
        });
      }
      return { result: { projects, total: projects.length } };
    },
  }),
];

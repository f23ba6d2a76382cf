import { z } from 'zod';
import {
  createProject,
  deleteProject,
  ensureDefaultProject,
  getProject,
  listProjects,
  projectUsage,
  updateProject,
  type ProjectRow,
} from '../domain/identity/projects.js';
import { notFound } from '../domain/errors.js';
import { defineRoute } from '../http/route.js';
import { int, isoTime } from './schemas.js';

function projectResponse(row: ProjectRow) {
  return {
    project_id: row.id,
    name: row.name,
    description: row.description,
    is_default: row.is_default,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

const Project = z.object({
  project_id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  is_default: z.boolean(),
  created_at: isoTime,
  updated_at: isoTime,
});
/** ProjectUsage (domain/identity/projects.ts); token sums are int8 columns. */
const ProjectUsage = z.object({
  current_period_compressions: int,
  total_compressions: int,
  original_tokens: z.number(),
  compressed_tokens: z.number(),
  tokens_saved: z.number(),
  avg_savings_percent: z.number(),
  avg_latency_ms: z.number(),
  bound_keys: int,
  last_event_at: isoTime.nullable(),
});

const name = z.string().trim().min(1).max(100);
const description = z.string().max(1000).nullable();

const CreateProjectBody = z.object({ name, description: description.optional() }).strict();
const UpdateProjectBody = z.object({ name: name.optional(), description: description.optional() }).strict();

const projectNotFound = (id: string) => notFound(`Project '${id}' not found`);

export const projectRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/projects',
    auth: 'key',
    response: z.object({ projects: z.array(Project.extend({ current_period_compressions: int })), total: int }),
    async handler({ principal, services }) {
      await ensureDefaultProject(services.db, principal.userId);
      const rows = await listProjects(services.db, principal.userId);
      return {
        body: {
          projects: rows.map((r) => ({ ...projectResponse(r), current_period_compressions: r.current_period_compressions })),
          total: rows.length,
        },
      };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/projects',
    auth: 'key',
    plan: 'team',
    body: CreateProjectBody,
    response: Project,
    doc: { status: 201 },
    async handler({ body, principal, services }) {
      const row = await createProject(services.db, principal.userId, body);
      return { status: 201, body: projectResponse(row) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/projects/:project_id',
    auth: 'key',
    response: Project.extend({ usage: ProjectUsage }),
    async handler({ params, principal, services }) {
      const row = await getProject(services.db, principal.userId, params.project_id!);
      if (!row) throw projectNotFound(params.project_id!);
      return { body: { ...projectResponse(row), usage: await projectUsage(services.db, row) } };
    },
  }),
  defineRoute({
    method: 'PUT',
    path: '/v1/projects/:project_id',
    auth: 'key',
    body: UpdateProjectBody,
    response: Project,
    async handler({ body, params, principal, services }) {
      const row = await updateProject(services.db, principal.userId, params.project_id!, body);
      if (!row) throw projectNotFound(params.project_id!);
      return { body: projectResponse(row) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/projects/:project_id',
    auth: 'key',
    response: z.object({ project_id: z.string(), deleted: z.literal(true) }),
    async handler({ params, principal, services }) {
      const row = await deleteProject(services.db, principal.userId, params.project_id!);
      if (!row) throw projectNotFound(params.project_id!);
      return { body: { project_id: row.id, deleted: true } };
    },
  }),
];

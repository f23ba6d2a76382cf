import { notFound } from '../errors.js';
import type { Queryable } from '../../store/db.js';

export interface ProjectRow {
  id: string;
  owner_id: string;
  name: string;
  description: string | null;
  is_default: boolean;
  created_at: Date;
  updated_at: Date;
}

export const MAX_PROJECTS_LISTED = 100;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Usage events that belong to project `p`: events recorded with its id, plus, for the Default
 * project, the owner's events from unbound keys (project_id null), which act on the Default.
 */
const PROJECT_EVENTS = `(e.project_id = p.id or (p.is_default and e.project_id is null and e.user_id = p.owner_id))`;
const MONTH_START = `date_trunc('month', now() at time zone 'utc') at time zone 'utc'`;

export async function listProjects(db: Queryable, ownerId: string): Promise<(ProjectRow & { current_period_compressions: number })[]> {
  return db.query(
    `select p.*, (select count(*)::int from usage_events e
                   where e.user_id = p.owner_id and e.created_at >= ${MONTH_START} and e.method <> 'mcp_advisory'
                     and ${PROJECT_EVENTS}) as current_period_compressions
       from projects p where p.owner_id = $1
      order by p.created_at desc, p.id desc limit ${MAX_PROJECTS_LISTED}`,
    [ownerId],
  );
}

/** The caller's Default project, created when the caller has no project at all. Race-free via the partial unique index. */
export async function ensureDefaultProject(db: Queryable, ownerId: string): Promise<void> {
  await db.query(
    `insert into projects (owner_id, name, description, is_default)
     select $1::uuid, 'Default', 'Created automatically; unbound keys act on this project', true
      where not exists (select 1 from projects where owner_id = $1::uuid)
     on conflict (owner_id) where is_default do nothing`,
    [ownerId],
  );
}

/** The id of the owner's default project, or null before it exists. */
export async function defaultProjectId(db: Queryable, ownerId: string): Promise<string | null> {
  const [row] = await db.query<{ id: string }>('select id from projects where owner_id = $1 and is_default', [ownerId]);
  return row?.id ?? null;
}

export async function createProject(db: Queryable, ownerId: string, input: { name: string; description?: string | null }): Promise<ProjectRow> {
  const [row] = await db.query<ProjectRow>(
    'insert into projects (owner_id, name, description) values ($1, $2, $3) returning *',
    [ownerId, input.name, input.description ?? null],
  );
  return row!;
}

/** Owner-scoped; a malformed id, an unknown id and another user's id are all null. */
export async function getProject(db: Queryable, ownerId: string, id: string): Promise<ProjectRow | null> {
  if (!UUID.test(id)) return null;
  const [row] = await db.query<ProjectRow>('select * from projects where id = $1 and owner_id = $2', [id, ownerId]);
  return row ?? null;
}

export async function requireOwnedProject(db: Queryable, ownerId: string, id: string): Promise<ProjectRow> {
  const project = await getProject(db, ownerId, id);
  if (!project) throw notFound(`Project '${id}' not found`);
  return project;
}

export interface ProjectUsage {
  current_period_compressions: number;
  total_compressions: number;
  original_tokens: number;
  compressed_tokens: number;
  tokens_saved: number;
  avg_savings_percent: number;
  avg_latency_ms: number;
  bound_keys: number;
  last_event_at: Date | null;
}

/** The detail view's aggregated usage, in one SQL pass over the project's events. */
export async function projectUsage(db: Queryable, project: ProjectRow): Promise<ProjectUsage> {
  const [row] = await db.query<ProjectUsage>(
    `select count(*) filter (where e.created_at >= ${MONTH_START} and e.method <> 'mcp_advisory')::int as current_period_compressions,
            count(*) filter (where e.method <> 'mcp_advisory')::int as total_compressions,
            coalesce(sum(e.input_tokens), 0)::int8 as original_tokens,
            coalesce(sum(e.output_tokens), 0)::int8 as compressed_tokens,
            coalesce(sum(greatest(e.input_tokens - e.output_tokens, 0)), 0)::int8 as tokens_saved,
            coalesce(round(avg(e.savings_percent)::numeric, 1), 0)::float8 as avg_savings_percent,
            coalesce(round(avg(e.latency_ms)::numeric, 1), 0)::float8 as avg_latency_ms,
            (select count(*)::int from api_keys k where k.project_id = p.id) as bound_keys,
            max(e.created_at) as last_event_at
       from projects p left join usage_events e on e.user_id = p.owner_id and ${PROJECT_EVENTS}
      where p.id = $1
      group by p.id`,
    [project.id],
  );
  return row!;
}

export async function updateProject(db: Queryable, ownerId: string, id: string, changes: { name?: string; description?: string | null }): Promise<ProjectRow | null> {
  if (!UUID.test(id)) return null;
  const [row] = await db.query<ProjectRow>(
    `update projects set
       name = case when $3 then $4 else name end,
       description = case when $5 then $6 else description end,
       updated_at = now()
     where id = $1 and owner_id = $2 returning *`,
    [id, ownerId, changes.name !== undefined, changes.name ?? null, changes.description !== undefined, changes.description ?? null],
  );
  return row ?? null;
}

export async function deleteProject(db: Queryable, ownerId: string, id: string): Promise<ProjectRow | null> {
  if (!UUID.test(id)) return null;
  const [row] = await db.query<ProjectRow>('delete from projects where id = $1 and owner_id = $2 returning *', [id, ownerId]);
  return row ?? null;
}

/** What a project holds besides its usage (project_stats): Knowledge Hub items, indexed code, workflows and runs. */
export async function projectContents(db: Queryable, projectId: string) {
  const [row] = await db.query<{ kb_items: number; kb_ready: number; kb_chunks: number; code_files: number; code_units: number; workflows: number; runs: number }>(
    `select (select count(*)::int from kb_items i where i.project_id = $1 and i.deleted_at is null) as kb_items,
            (select count(*)::int from kb_items i where i.project_id = $1 and i.deleted_at is null and i.status = 'ready') as kb_ready,
            (select coalesce(sum(i.chunk_count), 0)::int from kb_items i where i.project_id = $1 and i.deleted_at is null) as kb_chunks,
            (select count(*)::int from code_files f where f.project_id = $1) as code_files,
            (select coalesce(sum(f.units), 0)::int from code_files f where f.project_id = $1) as code_units,
            (select count(*)::int from workflows w where w.project_id = $1) as workflows,
            (select count(*)::int from workflow_runs r where r.project_id = $1) as runs`,
    [projectId],
  );
  return row!;
}

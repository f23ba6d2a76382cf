// Workflows of a project and their versions: every save of a different graph is a new version; the
// same graph (canonical form) saved again returns the current version.
import type { Principal } from '../../auth/principal.js';
import type { Queryable } from '../../store/db.js';
import { notFound } from '../errors.js';
import { decodeCursor, encodeCursor, staleBase, UUID } from '../knowledge/items.js';
import { canonicalJson, graphHash, validateGraph, type Graph, type NodeTools } from './graph.js';
import { iso } from '../../lib/time.js';

export interface WorkflowRow {
  id: string;
  project_id: string;
  owner_id: string;
  created_by_key_id: string | null;
  name: string;
  description: string | null;
  current_version_id: string | null;
  created_at: Date;
  updated_at: Date;
  version_number?: number;
  created_key?: string;
}

export interface WorkflowVersionRow {
  id: string;
  workflow_id: string;
  number: number;
  graph: string;
  graph_hash: string;
  created_by_key_id: string | null;
  created_at: Date;
}

export const workflowNotFound = (id: string) => notFound(`Workflow '${id}' not found`);

const COLUMNS = `w.*, (select v.number from workflow_versions v where v.id = w.current_version_id) as version_number`;

export async function getWorkflow(db: Queryable, projectId: string, id: string, lock = false): Promise<WorkflowRow> {
  if (!UUID.test(id)) throw workflowNotFound(id);
  const [row] = await db.query<WorkflowRow>(`select ${lock ? 'w.*' : COLUMNS} from workflows w where w.id = $1 and w.project_id = $2${lock ? ' for update' : ''}`, [id, projectId]);
  if (!row) throw workflowNotFound(id);
  return row;
}

export async function getWorkflowVersion(db: Queryable, workflowId: string, versionId: string): Promise<WorkflowVersionRow> {
  if (!UUID.test(versionId)) throw notFound(`Workflow version '${versionId}' not found`);
  const [row] = await db.query<WorkflowVersionRow>('select * from workflow_versions where id = $1 and workflow_id = $2', [versionId, workflowId]);
  if (!row) throw notFound(`Workflow version '${versionId}' not found`);
  return row;
}

export function workflowResponse(w: WorkflowRow, v: WorkflowVersionRow | null) {
  return {
    workflow_id: w.id,
    project_id: w.project_id,
    name: w.name,
    description: w.description,
    current_version_id: w.current_version_id,
    version_number: v?.id === w.current_version_id ? v.number : w.version_number ?? null,
    created_at: iso(w.created_at),
    updated_at: iso(w.updated_at),
    ...(v ? { version: { version_id: v.id, number: v.number, graph: JSON.parse(v.graph) as Graph, graph_hash: v.graph_hash, created_at: iso(v.created_at) } } : {}),
  };
}

async function insertVersion(tx: Queryable, workflowId: string, canonical: string, keyId: string | null): Promise<WorkflowVersionRow> {
  const [v] = await tx.query<WorkflowVersionRow>(
    `insert into workflow_versions (workflow_id, number, graph, graph_hash, created_by_key_id)
     values ($1, coalesce((select max(number) from workflow_versions where workflow_id = $1), 0) + 1, $2, $3, $4) returning *`,
    [workflowId, canonical, graphHash(canonical), keyId],
  );
  await tx.query('update workflows set current_version_id = $2, updated_at = now() where id = $1', [workflowId, v!.id]);
  return v!;
}

export async function createWorkflow(
  tx: Queryable,
  principal: Principal,
  projectId: string,
  input: { name: string; description?: string | null; graph: unknown },
  tools: NodeTools | null,
): Promise<{ workflow: WorkflowRow; version: WorkflowVersionRow }> {
  const { graph } = validateGraph(input.graph, tools);
  const [w] = await tx.query<{ id: string }>(
    'insert into workflows (project_id, owner_id, created_by_key_id, name, description) values ($1, $2, $3, $4, $5) returning id',
    [projectId, principal.userId, principal.keyId, input.name, input.description ?? null],
  );
  const version = await insertVersion(tx, w!.id, canonicalJson(graph), principal.keyId);
  return { workflow: await getWorkflow(tx, projectId, w!.id), version };
}

/**
 * Saves a graph: a new version unless it is the current graph (then the current version, created
 * false). With base_version_id, a save against a version that is no longer current is stale_base.
 */
export async function saveWorkflow(
  tx: Queryable,
  principal: Principal,
  projectId: string,
  id: string,
  input: { graph: unknown; baseVersionId?: string; name?: string; description?: string | null },
  tools: NodeTools | null,
): Promise<{ workflow: WorkflowRow; version: WorkflowVersionRow; created: boolean }> {
  const { graph } = validateGraph(input.graph, tools);
  const w = await getWorkflow(tx, projectId, id, true);
  if (input.baseVersionId !== undefined && input.baseVersionId !== w.current_version_id) throw staleBase(w.current_version_id);
  if (input.name !== undefined || input.description !== undefined) {
    await tx.query('update workflows set name = coalesce($2, name), description = case when $4 then $3 else description end, updated_at = now() where id = $1', [
      w.id, input.name ?? null, input.description ?? null, input.description !== undefined,
    ]);
  }
  const canonical = canonicalJson(graph);
  const current = await getWorkflowVersion(tx, w.id, w.current_version_id!);
  if (current.graph_hash === graphHash(canonical) && current.graph === canonical) {
    return { workflow: await getWorkflow(tx, projectId, w.id), version: current, created: false };
  }
  const version = await insertVersion(tx, w.id, canonical, principal.keyId);
  return { workflow: await getWorkflow(tx, projectId, w.id), version, created: true };
}

export async function listWorkflows(db: Queryable, projectId: string, options: { limit: number; cursor: string | null }) {
  const params: unknown[] = [projectId];
  let where = 'w.project_id = $1';
  if (options.cursor) {
    const c = decodeCursor(options.cursor);
    if (!c) return null;
    params.push(c[0], c[1]);
    where += ` and (w.created_at, w.id) < ($2::timestamptz, $3::uuid)`;
  }
  params.push(options.limit + 1);
  const rows = await db.query<WorkflowRow>(
    `select ${COLUMNS}, w.created_at::text as created_key from workflows w where ${where} order by w.created_at desc, w.id desc limit $${params.length}`,
    params,
  );
  const page = rows.slice(0, options.limit);
  const last = page[page.length - 1];
  return { workflows: page, nextCursor: rows.length > options.limit && last ? encodeCursor(last.created_key!, last.id) : null };
}

// Runs of a workflow version: created queued (the caller gets the id at once), executed in the
// background by the RunExecutor, observed through status and list, cancelled on request.
import type { Principal } from '../../auth/principal.js';
import type { Queryable } from '../../store/db.js';
import { invalid, notFound } from '../errors.js';
import { parseJsonb, UUID } from '../knowledge/items.js';
import { countProviderNodes, MAX_PROVIDER_CALLS, validateGraph } from './graph.js';
import { getWorkflow, getWorkflowVersion } from './workflows.js';
import { isoOrNull } from '../../lib/time.js';

export const RUN_STATES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type RunState = (typeof RUN_STATES)[number];
export const NODE_STATES = ['pending', 'running', 'succeeded', 'failed', 'skipped', 'cancelled'] as const;
export type NodeState = (typeof NODE_STATES)[number];
export const FINISHED: readonly RunState[] = ['succeeded', 'failed', 'cancelled'];

export interface RunRow {
  id: string;
  workflow_id: string;
  version_id: string;
  project_id: string;
  owner_id: string;
  key_id: string | null;
  status: RunState;
  inputs: Record<string, unknown>;
  error: string | null;
  cancel_requested: boolean;
  lease_owner: string | null;
  lease_expires_at: Date | null;
  attempts: number;
  provider_calls: number;
  input_tokens: string | number;
  output_tokens: string | number;
  cost_micros: string | number;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  updated_at: Date;
}

export interface RunNodeRow {
  run_id: string;
  node_id: string;
  type: string;
  ordinal: number;
  status: NodeState;
  output: unknown;
  error: string | null;
  attempts: number;
  input_tokens: string | number;
  output_tokens: string | number;
  cost_micros: string | number | null;
  started_at: Date | null;
  finished_at: Date | null;
}

export const runNotFound = (id: string) => notFound(`Run '${id}' not found`);

export async function getRun(db: Queryable, projectId: string, runId: string): Promise<RunRow> {
  if (!UUID.test(runId)) throw runNotFound(runId);
  const [row] = await db.query<RunRow>('select * from workflow_runs where id = $1 and project_id = $2', [runId, projectId]);
  if (!row) throw runNotFound(runId);
  return row;
}

/** Queues a run of the workflow's current (or given) version; the executor picks it up. */
export async function createRun(
  tx: Queryable,
  principal: Principal,
  projectId: string,
  workflowId: string,
  input: { versionId?: string; inputs?: Record<string, unknown> },
): Promise<RunRow> {
  const w = await getWorkflow(tx, projectId, workflowId);
  const version = await getWorkflowVersion(tx, w.id, input.versionId ?? w.current_version_id!);
  const { graph, order } = validateGraph(JSON.parse(version.graph));
  if (countProviderNodes(graph) > MAX_PROVIDER_CALLS) {
    throw invalid(`A run submits at most ${MAX_PROVIDER_CALLS} provider calls; this workflow has ${countProviderNodes(graph)} llm nodes`, { code: 'too_many_provider_calls' });
  }
  const [run] = await tx.query<RunRow>(
    `insert into workflow_runs (workflow_id, version_id, project_id, owner_id, key_id, inputs) values ($1, $2, $3, $4, $5, $6::text::jsonb) returning *`,
    [w.id, version.id, projectId, principal.userId, principal.keyId, JSON.stringify(input.inputs ?? {})],
  );
  const types = new Map(graph.nodes.map((n) => [n.id, n.type]));
  for (const [i, id] of order.entries()) {
    await tx.query('insert into workflow_run_nodes (run_id, node_id, type, ordinal) values ($1, $2, $3, $4)', [run!.id, id, types.get(id), i]);
  }
  return run!;
}

export async function runNodes(db: Queryable, runId: string): Promise<RunNodeRow[]> {
  return db.query<RunNodeRow>('select * from workflow_run_nodes where run_id = $1 order by ordinal', [runId]);
}

export function runSummary(r: RunRow) {
  const cost = Number(r.cost_micros);
  return {
    run_id: r.id,
    workflow_id: r.workflow_id,
    version_id: r.version_id,
    status: r.status,
    error: r.error,
    cancel_requested: r.cancel_requested,
    attempts: r.attempts,
    provider_calls: r.provider_calls,
    tokens: { input: Number(r.input_tokens), output: Number(r.output_tokens) },
    cost_micros: cost,
    cost_usd: cost / 1e6,
    created_at: isoOrNull(r.created_at),
    started_at: isoOrNull(r.started_at),
    finished_at: isoOrNull(r.finished_at),
  };
}

export function runResponse(r: RunRow, nodes: RunNodeRow[]) {
  return {
    ...runSummary(r),
    inputs: parseJsonb(r.inputs),
    nodes: nodes.map((n) => ({
      node_id: n.node_id,
      type: n.type,
      status: n.status,
      output: typeof n.output === 'string' ? JSON.parse(n.output) : n.output ?? null,
      error: n.error,
      attempts: n.attempts,
      tokens: { input: Number(n.input_tokens), output: Number(n.output_tokens) },
      cost_micros: n.cost_micros === null ? null : Number(n.cost_micros),
      started_at: isoOrNull(n.started_at),
      finished_at: isoOrNull(n.finished_at),
    })),
  };
}

export async function listRuns(db: Queryable, projectId: string, options: { workflowId?: string; status?: RunState; limit: number }) {
  const params: unknown[] = [projectId];
  let where = 'project_id = $1';
  if (options.workflowId) {
    await getWorkflow(db, projectId, options.workflowId); // not_found unless it is this project's
    params.push(options.workflowId);
    where += ` and workflow_id = $${params.length}`;
  }
  if (options.status) {
    params.push(options.status);
    where += ` and status = $${params.length}`;
  }
  params.push(options.limit);
  return db.query<RunRow>(`select * from workflow_runs where ${where} order by created_at desc, id desc limit $${params.length}`, params);
}

/**
 * Cancels a run: a queued run ends cancelled at once; a running one is flagged and its executor
 * (on whichever instance holds it) aborts the node in flight within a heartbeat. A finished run is unchanged.
 */
export async function cancelRun(tx: Queryable, projectId: string, runId: string): Promise<RunRow> {
  if (!UUID.test(runId)) throw runNotFound(runId);
  const [run] = await tx.query<RunRow>('select * from workflow_runs where id = $1 and project_id = $2 for update', [runId, projectId]);
  if (!run) throw runNotFound(runId);
  if (run.status === 'queued') {
    await tx.query(`update workflow_run_nodes set status = 'cancelled', finished_at = now() where run_id = $1 and status in ('pending', 'running')`, [run.id]);
    const [done] = await tx.query<RunRow>(
      `update workflow_runs set status = 'cancelled', cancel_requested = true, error = 'cancelled before it started', finished_at = now(), updated_at = now() where id = $1 returning *`,
      [run.id],
    );
    return done!;
  }
  if (run.status === 'running') {
    const [flagged] = await tx.query<RunRow>('update workflow_runs set cancel_requested = true, updated_at = now() where id = $1 returning *', [run.id]);
    return flagged!;
  }
  return run;
}

// Experiment runs: a grid of template versions × dataset cases × models, queued at once (the caller
// gets the run id) and executed in the background by the ExperimentRunner; read back with per-cell
// scores and per (version, model) aggregates; two runs compared case by case with a bootstrap interval.
import { isPlan } from '../../auth/plans.js';
import type { Principal } from '../../auth/principal.js';
import type { Queryable } from '../../store/db.js';
import type { Call } from '../call.js';
import { conflict, invalid, notFound } from '../errors.js';
import { UUID } from '../knowledge/items.js';
import type { Scope } from '../memory/memories.js';
import { resolveProvider } from '../workflows/providers.js';
import { casesOf, getDataset } from './datasets.js';
import { getTemplate, getVersion, storedVariables, type Label, type VersionRow } from './templates.js';
import { isoOrNull } from '../../lib/time.js';

export const MAX_CELLS = 500;
export const METRICS = ['exact_match', 'contains', 'json_valid', 'fidelity'] as const;
/** Unbound keys have no project and so no registered providers: the server's default (local) one serves them. */
const NO_PROJECT = '00000000-0000-0000-0000-000000000000';

export const providerProject = (projectId: string | null | undefined) => projectId ?? NO_PROJECT;

export interface ExperimentRunRow {
  id: string;
  user_id: string;
  scope: string;
  key_id: string | null;
  template_id: string;
  dataset_id: string;
  version_numbers: unknown;
  models: unknown;
  provider: string;
  max_tokens: number;
  temperature: number;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled';
  error: string | null;
  lease_owner: string | null;
  attempts: number;
  total_cells: number;
  done_cells: number;
  input_tokens: string | number;
  output_tokens: string | number;
  cost_micros: string | number;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface ResultRow {
  run_id: string;
  ordinal: number;
  case_index: number;
  version_number: number;
  model: string;
  status: 'pending' | 'succeeded' | 'failed';
  output: string | null;
  scores: unknown;
  error: string | null;
  input_tokens: number;
  output_tokens: number;
  cost_micros: string | number | null;
}

export const runNotFound = (id: string) => notFound(`Experiment run '${id}' not found`);
const json = <T>(v: unknown): T => (typeof v === 'string' ? JSON.parse(v) : v) as T;

export async function getExperimentRun(db: Queryable, s: Scope, id: string): Promise<ExperimentRunRow> {
  if (!UUID.test(id)) throw runNotFound(id);
  const [row] = await db.query<ExperimentRunRow>('select * from experiment_runs where id = $1 and user_id = $2 and scope = $3', [id, s.userId, s.scope]);
  if (!row) throw runNotFound(id);
  return row;
}

/** Checks the whole grid (versions, provider, every case renders) and queues it. */
export async function createExperimentRun(
  call: Call,
  s: Scope,
  input: { templateId: string; versions?: number[]; labels?: Label[]; datasetId: string; models?: string[]; provider: string; maxTokens: number; temperature: number },
): Promise<ExperimentRunRow> {
  const { services, principal } = call;
  const db = services.db;
  const t = await getTemplate(db, s, input.templateId);
  const refs = [...(input.versions ?? []).map((version) => ({ version })), ...(input.labels ?? []).map((label) => ({ label }))];
  const versions = new Map<number, VersionRow>();
  for (const ref of refs.length ? refs : [{}]) {
    const v = await getVersion(db, t, ref);
    versions.set(v.number, v);
  }
  const dataset = await getDataset(db, s, input.datasetId);
  const cases = casesOf(dataset);
  const provider = await resolveProvider(services, providerProject(principal.projectId), input.provider);
  const models = [...new Set(input.models?.length ? input.models : provider.defaultModel ? [provider.defaultModel] : [])];
  if (!models.length) throw invalid(`No models given and provider '${input.provider}' has no default_model`);
  const cells = cases.length * versions.size * models.length;
  if (cells > MAX_CELLS) throw invalid(`The grid has ${cells} cells (cases × versions × models); a run takes at most ${MAX_CELLS}`, { code: 'too_many_cells' });
  const problems = await call.compute('experimentRenderCheck', {
    versions: [...versions.values()].map((v) => ({ number: v.number, body: v.body, ...storedVariables(v) })),
    cases: cases.map((c) => c.variables),
    limit: 10,
  });
  if (problems.length) {
    const p = problems[0]!;
    throw invalid(`Case ${p.case_index} does not fit version ${p.version}: ${p.detail}`, { code: 'invalid_variables', extra: { problems } });
  }
  const numbers = [...versions.keys()].sort((a, b) => a - b);
  const grid: { ordinal: number; case_index: number; version_number: number; model: string }[] = [];
  for (let c = 0; c < cases.length; c++) for (const v of numbers) for (const model of models) grid.push({ ordinal: grid.length, case_index: c, version_number: v, model });
  return db.transaction(async (tx) => {
    const [run] = await tx.query<ExperimentRunRow>(
      `insert into experiment_runs (user_id, scope, key_id, template_id, dataset_id, version_numbers, models, provider, max_tokens, temperature, total_cells)
       values ($1, $2, $3, $4, $5, $6::text::jsonb, $7::text::jsonb, $8, $9, $10, $11) returning *`,
      [s.userId, s.scope, principal.keyId, t.id, dataset.id, JSON.stringify(numbers), JSON.stringify(models), input.provider, input.maxTokens, input.temperature, grid.length],
    );
    await tx.query(
      `insert into experiment_results (run_id, ordinal, case_index, version_number, model)
       select $1, x.ordinal, x.case_index, x.version_number, x.model from jsonb_to_recordset($2::text::jsonb) as x(ordinal int, case_index int, version_number int, model text)`,
      [run!.id, JSON.stringify(grid)],
    );
    return run!;
  });
}

export function runSummary(r: ExperimentRunRow) {
  const cost = Number(r.cost_micros);
  return {
    run_id: r.id,
    template_id: r.template_id,
    dataset_id: r.dataset_id,
    versions: json<number[]>(r.version_numbers),
    models: json<string[]>(r.models),
    provider: r.provider,
    status: r.status,
    error: r.error,
    attempts: r.attempts,
    progress: { done: r.done_cells, total: r.total_cells },
    tokens: { input: Number(r.input_tokens), output: Number(r.output_tokens) },
    cost_micros: cost,
    cost_usd: cost / 1e6,
    created_at: isoOrNull(r.created_at),
    started_at: isoOrNull(r.started_at),
    finished_at: isoOrNull(r.finished_at),
  };
}

export async function resultsOf(db: Queryable, runId: string): Promise<ResultRow[]> {
  return db.query<ResultRow>('select * from experiment_results where run_id = $1 order by ordinal', [runId]);
}

type Scores = Partial<Record<(typeof METRICS)[number] | 'overall', number | null>> & { json_errors?: string[] };

/** A finished cell's overall score; a failed cell scores 0 (the output was not produced). */
export const overallOf = (r: ResultRow): number | null => (r.status === 'succeeded' ? json<Scores>(r.scores).overall ?? null : r.status === 'failed' ? 0 : null);

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null);

/** Per (version, model): mean of each metric over the cells that have it, and the overall mean. */
export function aggregates(rows: ResultRow[]) {
  const groups = new Map<string, ResultRow[]>();
  for (const r of rows) {
    const k = `${r.version_number}\u0000${r.model}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  return [...groups.values()].map((g) => {
    const finished = g.filter((r) => r.status !== 'pending');
    const scores = g.filter((r) => r.status === 'succeeded').map((r) => json<Scores>(r.scores));
    const metric = (m: (typeof METRICS)[number]) => mean(scores.map((s) => s[m]).filter((x): x is number => typeof x === 'number'));
    return {
      version: g[0]!.version_number,
      model: g[0]!.model,
      cells: g.length,
      finished: finished.length,
      failed: g.filter((r) => r.status === 'failed').length,
      exact_match: metric('exact_match'),
      contains: metric('contains'),
      json_valid: metric('json_valid'),
      fidelity: metric('fidelity'),
      overall: mean(finished.map(overallOf).filter((x): x is number => x !== null)),
    };
  });
}

export function cellResponse(r: ResultRow) {
  return {
    case_index: r.case_index,
    version: r.version_number,
    model: r.model,
    status: r.status,
    output: r.output,
    scores: r.scores === null ? null : json<Scores>(r.scores),
    error: r.error,
    tokens: { input: r.input_tokens, output: r.output_tokens },
    cost_micros: r.cost_micros === null ? null : Number(r.cost_micros),
  };
}

/** Case-level comparison of two finished runs over the same dataset, with a paired bootstrap interval. */
export async function compareRuns(call: Call, s: Scope, aId: string, bId: string, options: { resamples: number; confidence: number }) {
  const db = call.services.db;
  const a = await getExperimentRun(db, s, aId);
  const b = await getExperimentRun(db, s, bId);
  for (const r of [a, b]) {
    if (r.status !== 'succeeded') throw conflict(`Experiment run '${r.id}' is ${r.status}; only succeeded runs can be compared`, { code: 'run_not_finished' });
  }
  if (a.dataset_id !== b.dataset_id) throw invalid('The two runs use different datasets; case-by-case comparison needs the same cases', { code: 'different_datasets' });
  const [ra, rb] = [await resultsOf(db, a.id), await resultsOf(db, b.id)];
  const perCase = (rows: ResultRow[]) => {
    const m = new Map<number, number[]>();
    for (const r of rows) m.set(r.case_index, [...(m.get(r.case_index) ?? []), overallOf(r) ?? 0]);
    return new Map([...m].map(([k, v]) => [k, mean(v)!]));
  };
  const [ca, cb] = [perCase(ra), perCase(rb)];
  const cases = [...ca.keys()].filter((k) => cb.has(k)).sort((x, y) => x - y).map((k) => ({ case_index: k, a: ca.get(k)!, b: cb.get(k)!, difference: cb.get(k)! - ca.get(k)! }));
  const seed = (parseInt(a.id.slice(0, 8), 16) ^ parseInt(b.id.slice(0, 8), 16)) >>> 0;
  const bootstrap = await call.compute('experimentBootstrap', { diffs: cases.map((c) => c.difference), resamples: options.resamples, confidence: options.confidence, seed });
  const metricMean = (rows: ResultRow[], m: (typeof METRICS)[number]) =>
    mean(rows.filter((r) => r.status === 'succeeded').map((r) => json<Scores>(r.scores)[m]).filter((x): x is number => typeof x === 'number'));
  const metrics = Object.fromEntries(
    [...METRICS, 'overall' as const].map((m) => {
      const x = m === 'overall' ? mean(ra.map((r) => overallOf(r) ?? 0)) : metricMean(ra, m);
      const y = m === 'overall' ? mean(rb.map((r) => overallOf(r) ?? 0)) : metricMean(rb, m);
      return [m, { a: x, b: y, difference: x === null || y === null ? null : y - x }];
    }),
  );
  return {
    run_a: runSummary(a),
    run_b: runSummary(b),
    aggregate: metrics,
    mean_difference: bootstrap.mean_difference,
    interval: { low: bootstrap.ci_low, high: bootstrap.ci_high, confidence: bootstrap.confidence, resamples: bootstrap.resamples, method: 'paired percentile bootstrap over cases' },
    significant: bootstrap.n > 1 && (bootstrap.ci_low > 0 || bootstrap.ci_high < 0),
    cases,
    better: { b: cases.filter((c) => c.difference > 0).length, a: cases.filter((c) => c.difference < 0).length, tied: cases.filter((c) => c.difference === 0).length },
  };
}

/** The run's caller as of now: a revoked or expired key stops its runs. */
export async function runPrincipal(db: Queryable, run: ExperimentRunRow, projectId: string | null): Promise<Principal | null> {
  if (run.key_id) {
    const [row] = await db.query<{ plan: string; is_admin: boolean; store_input_previews: boolean; environment: string; monthly_quota: number | null; project_id: string | null }>(
      `select u.plan, u.is_admin, u.store_input_previews, k.environment, k.monthly_quota from api_keys k join users u on u.id = k.user_id
        where k.key_id = $1 and u.id = $2 and k.status = 'active' and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())`,
      [run.key_id, run.user_id],
    );
    if (!row || !isPlan(row.plan)) return null;
    return { userId: run.user_id, plan: row.plan, isAdmin: row.is_admin, keyId: run.key_id, environment: row.environment, projectId, via: 'api_key', monthlyQuota: row.monthly_quota, storeInputPreviews: row.store_input_previews };
  }
  const [u] = await db.query<{ plan: string; is_admin: boolean; store_input_previews: boolean }>('select plan, is_admin, store_input_previews from users where id = $1', [run.user_id]);
  if (!u || !isPlan(u.plan)) return null;
  return { userId: run.user_id, plan: u.plan, isAdmin: u.is_admin, keyId: null, environment: null, projectId, via: 'jwt', storeInputPreviews: u.store_input_previews };
}

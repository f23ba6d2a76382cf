// The background runner of experiment runs, on the same LeasedRunner loop as the workflow RunExecutor
// (src/domain/workflows/executor.ts): the state lives in the database, an instance works on a run only
// while it holds its lease (renewed by a heartbeat), every write is conditioned on the lease, and a
// run whose lease lapsed (its process died) is claimed again and resumes at its first pending cell.
// A cell in flight when the process died is repeated (the provider may have charged for it once).
import type { Principal } from '../../auth/principal.js';
import type { RunSettings } from '../../config.js';
import { storableText } from '../../lib/text.js';
import { LlmProviderError } from '../../providers/llm/types.js';
import type { Services } from '../../services.js';
import { runTask } from '../compute.js';
import { detectIssues } from '../compression/detection.js';
import { Call } from '../call.js';
import { asDomainError } from '../errors.js';
import { LeasedRunner, leaseClaimSql, type InFlight } from '../platform/leasedRunner.js';
import { complete, resolveProvider, type ResolvedProvider } from '../workflows/providers.js';
import { nodeErrorText } from '../workflows/executor.js';
import { casesOf, type DatasetRow } from './datasets.js';
import { providerProject, resultsOf, runPrincipal, type ExperimentRunRow } from './experiments.js';
import { storedVariables, type VersionRow } from './templates.js';

type AbortReason = 'lost' | 'shutdown';

/** A queued run, or a running one whose lease lapsed, oldest first. */
const CLAIM_RUN = leaseClaimSql({ table: 'experiment_runs', key: ['id'], ready: 'queued', order: 'created_at', set: 'started_at = coalesce(started_at, now()), updated_at = now()', returning: '*' });
const runners = new WeakMap<Services, ExperimentRunner>();

/** Starts the runner of an app's services; the returned function stops it (before the pool and the database close). */
export function startExperimentRunner(services: Services): () => Promise<void> {
  const runner = new ExperimentRunner(services, services.config.runs);
  runners.set(services, runner);
  runner.start();
  return () => runner.close();
}

/** Looks for work now (a run was just queued), when this app runs experiments. */
export function kickExperiments(services: Services): void {
  runners.get(services)?.kick();
}

export class ExperimentRunner extends LeasedRunner<ExperimentRunRow> {
  constructor(
    private readonly services: Services,
    private readonly settings: RunSettings,
  ) {
    super(settings, services.log, 'experiment');
  }

  start(): void {
    this.startLoop();
  }

  protected keyOf(run: ExperimentRunRow): string {
    return run.id;
  }

  protected describe(run: ExperimentRunRow): Record<string, unknown> {
    return { run_id: run.id };
  }

  protected async claim(): Promise<ExperimentRunRow[]> {
    return this.services.db.query<ExperimentRunRow>(CLAIM_RUN, [this.instanceId, this.settings.leaseMs, 1]);
  }

  /** Renews each run's lease; a run whose lease was lost is aborted. */
  protected renew(inFlight: InFlight<ExperimentRunRow>[]): Promise<void> {
    return this.renewEach(inFlight, async (run) => {
      const [r] = await this.services.db.query(
        `update experiment_runs set lease_expires_at = now() + ($3::int * interval '1 millisecond'), updated_at = now()
          where id = $1 and lease_owner = $2 and status = 'running' returning id`,
        [run.id, this.instanceId, this.settings.leaseMs],
      );
      return r ? null : ('lost' satisfies AbortReason);
    });
  }

  protected async execute(run: ExperimentRunRow, signal: AbortSignal): Promise<void> {
    try {
      await this.drive(run, signal);
    } catch (err) {
      if (signal.aborted) return this.onAbort(run, signal);
      // The database or the pool unavailable: left to be claimed again once the lease lapses.
      const known = asDomainError(err);
      if (!known || known.kind === 'unavailable' || known.kind === 'timeout') throw err;
      await this.finish(run, 'failed', nodeErrorText(known));
    }
  }

  private async finish(run: ExperimentRunRow, status: 'succeeded' | 'failed', error: string | null): Promise<void> {
    await this.services.db.query(
      `update experiment_runs set status = $3, error = $4, finished_at = now(), lease_owner = null, lease_expires_at = null, updated_at = now()
        where id = $1 and lease_owner = $2`,
      [run.id, this.instanceId, status, error === null ? null : storableText(error.slice(0, 4000))],
    );
    this.services.log.info('experiment run finished', { run_id: run.id, status });
  }

  private async onAbort(run: ExperimentRunRow, signal: AbortSignal): Promise<void> {
    if ((signal.reason as AbortReason) === 'shutdown') {
      await this.services.db.query('update experiment_runs set lease_expires_at = now(), updated_at = now() where id = $1 and lease_owner = $2', [run.id, this.instanceId]).catch(() => undefined);
    }
  }

  private async drive(run: ExperimentRunRow, signal: AbortSignal): Promise<void> {
    const s = this.services;
    const db = s.db;
    if (run.attempts > this.settings.maxAttempts) {
      return this.finish(run, 'failed', `interrupted: the run was claimed ${run.attempts} times (RUN_MAX_ATTEMPTS ${this.settings.maxAttempts}); giving up`);
    }
    const projectId = run.scope || null;
    const principal = await runPrincipal(db, run, projectId);
    if (!principal) return this.finish(run, 'failed', 'the API key that started the run is no longer active');
    const versions = new Map(
      (await db.query<VersionRow>('select * from prompt_template_versions where template_id = $1', [run.template_id])).map((v) => [v.number, v]),
    );
    const [dataset] = await db.query<DatasetRow>('select * from prompt_datasets where id = $1', [run.dataset_id]);
    if (!dataset) return this.finish(run, 'failed', 'the dataset no longer exists');
    const cases = casesOf(dataset);
    let provider: ResolvedProvider;
    try {
      provider = await resolveProvider(s, providerProject(projectId), run.provider);
    } catch (err) {
      const known = asDomainError(err);
      if (!known) throw err;
      return this.finish(run, 'failed', nodeErrorText(known));
    }
    const call = new Call({ services: s, principal, surface: 'MCP', toolName: 'run_experiment', advisory: true, signal });
    for (const cell of await resultsOf(db, run.id)) {
      if (cell.status !== 'pending') continue;
      if (signal.aborted) return this.onAbort(run, signal);
      const version = versions.get(cell.version_number);
      const c = cases[cell.case_index];
      if (!version || !c) return this.finish(run, 'failed', `case ${cell.case_index} or version ${cell.version_number} no longer exists`);
      const outcome = await this.cell(call, principal, provider, run, version, c, cell.model, projectId, signal);
      if (signal.aborted) return this.onAbort(run, signal);
      const saved = await db.transaction(async (tx) => {
        const rows = await tx.query(
          `update experiment_results set status = $3, output = $4, scores = $5::text::jsonb, error = $6, input_tokens = $7, output_tokens = $8, cost_micros = $9, finished_at = now()
            where run_id = $1 and ordinal = $2 and status = 'pending' and exists (select 1 from experiment_runs r where r.id = $1 and r.lease_owner = $10) returning ordinal`,
          [run.id, cell.ordinal, outcome.status, outcome.output, outcome.scores === null ? null : JSON.stringify(outcome.scores), outcome.error, outcome.inputTokens, outcome.outputTokens, outcome.costMicros, this.instanceId],
        );
        if (rows.length) {
          await tx.query(
            `update experiment_runs set done_cells = done_cells + 1, input_tokens = input_tokens + $2, output_tokens = output_tokens + $3, cost_micros = cost_micros + $4, updated_at = now() where id = $1`,
            [run.id, outcome.inputTokens, outcome.outputTokens, outcome.costMicros ?? 0],
          );
        }
        return rows.length > 0;
      });
      if (!saved) return; // lease lost: the new holder carries on
    }
    return this.finish(run, 'succeeded', null);
  }

  /** One cell: render, the model call through the provider layer, then the scores (all in the pool). */
  private async cell(call: Call, principal: Principal, provider: ResolvedProvider, run: ExperimentRunRow, version: VersionRow, c: ReturnType<typeof casesOf>[number], model: string, projectId: string | null, signal: AbortSignal) {
    const s = this.services;
    const owner = principal.keyId ?? principal.userId;
    const stored = storedVariables(version);
    const rendered = await runTask(s, 'promptRender', { body: version.body, variables: stored.variables, section_fields: stored.section_fields, values: c.variables, model }, { owner, signal });
    if (!rendered.ok) return { status: 'failed' as const, output: null, scores: null, error: `invalid_variables: ${rendered.message}`, inputTokens: 0, outputTokens: 0, costMicros: null };
    let r;
    try {
      r = await complete(s, providerProject(projectId), { provider: run.provider, model, messages: [{ role: 'user', content: rendered.text }], maxTokens: run.max_tokens, temperature: run.temperature, signal }, provider);
    } catch (err) {
      if (signal.aborted) throw err;
      if (!(err instanceof LlmProviderError) && !asDomainError(err)) throw err;
      const known = asDomainError(err);
      if (known && (known.kind === 'unavailable' || known.kind === 'timeout')) throw err;
      return { status: 'failed' as const, output: null, scores: null, error: nodeErrorText(err), inputTokens: 0, outputTokens: 0, costMicros: null };
    }
    const output = storableText(r.text);
    const scores = await runTask(s, 'experimentScore', { output, expectation: { expected: c.expected, contains: c.contains, json_schema: c.json_schema } }, { owner, signal });
    // Fidelity: how faithful the output is to the reference (the expected answer, else the prompt), from the detection engine.
    const quality = await detectIssues(call, { original_text: c.expected ?? rendered.text, compressed_text: output || ' ' });
    const fidelity = quality.quality_score;
    const parts = [scores.exact_match, scores.contains, scores.json_valid, fidelity].filter((x): x is number => typeof x === 'number');
    return {
      status: 'succeeded' as const,
      output,
      scores: { ...scores, fidelity, fidelity_issues: quality.issues_found, overall: parts.reduce((a, b) => a + b, 0) / parts.length },
      error: null,
      inputTokens: r.inputTokens ?? 0,
      outputTokens: r.outputTokens ?? 0,
      costMicros: r.costMicros,
    };
  }
}

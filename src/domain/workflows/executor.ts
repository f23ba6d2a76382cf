// The background executor of workflow runs. The state machine lives in the database
// (workflow_runs, workflow_run_nodes); this class only works on runs it holds a lease on (the claim,
// heartbeat, poll and close loop is LeasedRunner's):
//   queued ──claim──▶ running ──▶ succeeded | failed | cancelled
// A claim takes a queued run, or a running run whose lease lapsed (its process died), and counts an
// attempt. A heartbeat renews the lease and reads cancel_requested. Every write is conditioned on
// still holding the lease, so an instance that lost it can never overwrite the new holder's work.
// Nodes run one at a time in topological order; a resumed run skips nodes that already succeeded.
import type { Principal } from '../../auth/principal.js';
import { isPlan } from '../../auth/plans.js';
import type { RunSettings } from '../../config.js';
import type { Logger } from '../../lib/log.js';
import { needsStoring, storableText } from '../../lib/text.js';
import { LlmProviderError } from '../../providers/llm/types.js';
import type { Services } from '../../services.js';
import { Call } from '../call.js';
import { compressText } from '../compression/text.js';
import { asDomainError, invalid } from '../errors.js';
import { parseJsonb } from '../knowledge/items.js';
import { LeasedRunner, leaseClaimSql, type InFlight } from '../platform/leasedRunner.js';
import { queryKnowledge } from '../knowledge/query.js';
import { fillDeep, fillTemplate, MAX_PROVIDER_CALLS, predecessors, usesNodeTemplates, validateGraph, type GraphNode, type NodeParams, type NodeTools } from './graph.js';
import { complete, resolveProvider } from './providers.js';
import { runNodes, type RunNodeRow, type RunRow } from './runs.js';

type AbortReason = 'cancel' | 'lost' | 'shutdown';

/** A queued run, or a running one whose lease lapsed, oldest first. */
const CLAIM_RUN = leaseClaimSql({ table: 'workflow_runs', key: ['id'], ready: 'queued', order: 'created_at', set: 'started_at = coalesce(started_at, now()), updated_at = now()', returning: '*' });

interface NodeResult {
  output: Record<string, unknown> & { text: string };
  inputTokens: number;
  outputTokens: number;
  costMicros: number | null;
}

interface RunContext {
  run: RunRow;
  principal: Principal;
  inputs: Record<string, unknown>;
  outputs: Map<string, { text?: unknown }>;
  upstream: string;
  signal: AbortSignal;
}

/** A node's failure as the run records it: the domain's detail, the provider's kind and status, never a key. */
export function nodeErrorText(err: unknown): string {
  if (err instanceof LlmProviderError) return `provider ${err.kind}${err.status ? ` (${err.status})` : ''} after ${err.attempts} attempt(s): ${err.message}`;
  const known = asDomainError(err);
  if (known) return `${known.code}: ${known.detail}`;
  return `internal error: ${err instanceof Error ? err.message : String(err)}`;
}

/** Provider and tool output is outside text: made storable (no U+0000, no unpaired surrogates) before it is written. */
function storable(value: unknown): unknown {
  if (typeof value === 'string') return needsStoring(value) ? storableText(value) : value;
  if (Array.isArray(value)) return value.map(storable);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [storableText(k), storable(v)]));
  return value;
}

export class RunExecutor extends LeasedRunner<RunRow> {
  private services: Services | null = null;
  /** The MCP tools `tool` nodes may call (given by the app at start); null: tool nodes are refused. */
  tools: NodeTools | null = null;

  constructor(
    private readonly settings: RunSettings,
    log: Logger,
  ) {
    super(settings, log, 'run');
  }

  /** Starts polling for queued and abandoned runs (call once the app's services exist). */
  start(services: Services, tools: NodeTools | null = this.tools): void {
    this.services = services;
    this.tools = tools;
    this.startLoop();
  }

  protected keyOf(run: RunRow): string {
    return run.id;
  }

  protected describe(run: RunRow): Record<string, unknown> {
    return { run_id: run.id };
  }

  protected async claim(): Promise<RunRow[]> {
    return this.services!.db.query<RunRow>(CLAIM_RUN, [this.instanceId, this.settings.leaseMs, 1]);
  }

  /** Renews each run's lease; a run whose lease was lost, or whose cancel was requested, is aborted. */
  protected renew(inFlight: InFlight<RunRow>[]): Promise<void> {
    return this.renewEach(inFlight, async (run) => {
      const [r] = await this.services!.db.query<{ cancel_requested: boolean }>(
        `update workflow_runs set lease_expires_at = now() + ($3::int * interval '1 millisecond'), updated_at = now()
          where id = $1 and lease_owner = $2 and status = 'running' returning cancel_requested`,
        [run.id, this.instanceId, this.settings.leaseMs],
      );
      return !r ? ('lost' satisfies AbortReason) : r.cancel_requested ? ('cancel' satisfies AbortReason) : null;
    });
  }

  protected async execute(run: RunRow, signal: AbortSignal): Promise<void> {
    try {
      await this.drive(run, signal);
    } catch (err) {
      // A domain error outside any node (a stored graph that no longer validates, ...) ends the run with it;
      // anything else (the database or the pool unavailable) leaves it to be claimed again once the lease lapses.
      const known = asDomainError(err);
      if (!known || known.kind === 'unavailable' || known.kind === 'timeout') throw err;
      await this.finish(run, 'failed', nodeErrorText(known));
    }
  }

  /** Ends the run (only while holding its lease). */
  private async finish(run: RunRow, status: 'succeeded' | 'failed' | 'cancelled', error: string | null): Promise<void> {
    const db = this.services!.db;
    await db.transaction(async (tx) => {
      if (status !== 'succeeded') {
        await tx.query(
          `update workflow_run_nodes set status = $3, finished_at = coalesce(finished_at, now())
            where run_id = $1 and status in ('pending', 'running') and exists (select 1 from workflow_runs r where r.id = $1 and r.lease_owner = $2)`,
          [run.id, this.instanceId, status === 'cancelled' ? 'cancelled' : 'skipped'],
        );
      }
      await tx.query(
        `update workflow_runs set status = $3, error = $4, finished_at = now(), lease_owner = null, lease_expires_at = null, updated_at = now()
          where id = $1 and lease_owner = $2`,
        [run.id, this.instanceId, status, error === null ? null : storableText(error.slice(0, 4000))],
      );
    });
    this.log.info('run finished', { run_id: run.id, status });
  }

  private async drive(run: RunRow, signal: AbortSignal): Promise<void> {
    const s = this.services!;
    const db = s.db;
    if (run.cancel_requested) return this.finish(run, 'cancelled', 'cancelled');
    if (run.attempts > this.settings.maxAttempts) {
      const reason = `interrupted: the run was claimed ${run.attempts} times (RUN_MAX_ATTEMPTS ${this.settings.maxAttempts}); giving up`;
      await db.query(
        `update workflow_run_nodes set status = 'failed', error = $3, finished_at = now()
          where run_id = $1 and status = 'running' and exists (select 1 from workflow_runs r where r.id = $1 and r.lease_owner = $2)`,
        [run.id, this.instanceId, reason],
      );
      return this.finish(run, 'failed', reason);
    }
    const principal = await this.principalOf(run);
    if (!principal) return this.finish(run, 'failed', 'the API key that started the run is no longer active');
    const [version] = await db.query<{ graph: string }>('select graph from workflow_versions where id = $1', [run.version_id]);
    if (!version) return this.finish(run, 'failed', 'the workflow version no longer exists');
    const { graph } = validateGraph(JSON.parse(version.graph));
    const byId = new Map(graph.nodes.map((n) => [n.id, n]));
    const preds = predecessors(graph);
    const outputs = new Map<string, { text?: unknown }>();
    const inputs = parseJsonb(run.inputs);
    for (const row of await runNodes(db, run.id)) {
      if (row.status === 'succeeded') {
        outputs.set(row.node_id, (typeof row.output === 'string' ? JSON.parse(row.output) : row.output) as { text?: unknown });
        continue;
      }
      if (row.status !== 'pending' && row.status !== 'running') continue;
      const node = byId.get(row.node_id)!;
      if (signal.aborted) return this.onAbort(run, signal);
      if (row.status === 'running' && node.type === 'llm' && !(node.params as NodeParams<'llm'>).retry_on_interrupt) {
        await this.failNode(run, row, 'interrupted during its provider call, which the provider may have charged; not repeated (set retry_on_interrupt to repeat it)');
        return this.finish(run, 'failed', `node ${row.node_id} (llm) was interrupted during its provider call; not repeated`);
      }
      const started = await db.query(
        `update workflow_run_nodes set status = 'running', attempts = attempts + 1, started_at = now(), error = null
          where run_id = $1 and node_id = $2 and exists (select 1 from workflow_runs r where r.id = $1 and r.lease_owner = $3) returning node_id`,
        [run.id, row.node_id, this.instanceId],
      );
      if (!started.length) return; // lease lost: the new holder carries on
      const upstream = preds.get(node.id)!.map((p) => outputs.get(p)?.text).filter((t): t is string => typeof t === 'string' && t !== '').join('\n\n');
      let result: NodeResult;
      try {
        result = await this.runNode(node, { run, principal, inputs, outputs, upstream, signal });
      } catch (err) {
        if (signal.aborted) return this.onAbort(run, signal);
        const message = nodeErrorText(err);
        if (!asDomainError(err) && !(err instanceof LlmProviderError)) this.log.error('run node failed', { run_id: run.id, node_id: node.id, error: message });
        await this.failNode(run, row, message);
        return this.finish(run, 'failed', `node ${node.id} (${node.type}) failed: ${message}`);
      }
      const saved = await db.transaction(async (tx) => {
        const rows = await tx.query(
          `update workflow_run_nodes set status = 'succeeded', output = $3::text::jsonb, input_tokens = $4, output_tokens = $5, cost_micros = $6, finished_at = now()
            where run_id = $1 and node_id = $2 and exists (select 1 from workflow_runs r where r.id = $1 and r.lease_owner = $7) returning node_id`,
          [run.id, node.id, JSON.stringify(storable(result.output)), result.inputTokens, result.outputTokens, result.costMicros, this.instanceId],
        );
        if (rows.length) {
          await tx.query(
            `update workflow_runs set input_tokens = input_tokens + $2, output_tokens = output_tokens + $3, cost_micros = cost_micros + $4, updated_at = now() where id = $1`,
            [run.id, result.inputTokens, result.outputTokens, result.costMicros ?? 0],
          );
        }
        return rows.length > 0;
      });
      if (!saved) return;
      outputs.set(node.id, result.output);
    }
    if (signal.aborted) return this.onAbort(run, signal);
    return this.finish(run, 'succeeded', null);
  }

  private async onAbort(run: RunRow, signal: AbortSignal): Promise<void> {
    const reason = signal.reason as AbortReason;
    if (reason === 'cancel') return this.finish(run, 'cancelled', 'cancelled while running');
    if (reason === 'shutdown') {
      // Hand the lease back: the next process resumes at once instead of waiting for it to lapse.
      await this.services!.db.query(
        `update workflow_runs set lease_expires_at = now(), updated_at = now() where id = $1 and lease_owner = $2`,
        [run.id, this.instanceId],
      ).catch(() => undefined);
    }
  }

  private async failNode(run: RunRow, row: RunNodeRow, error: string): Promise<void> {
    await this.services!.db.query(
      `update workflow_run_nodes set status = 'failed', error = $3, finished_at = now()
        where run_id = $1 and node_id = $2 and exists (select 1 from workflow_runs r where r.id = $1 and r.lease_owner = $4)`,
      [run.id, row.node_id, storableText(error.slice(0, 2000)), this.instanceId],
    );
  }

  /** The run's caller as of now: the key must still be active (a revoked key stops its runs). */
  private async principalOf(run: RunRow): Promise<Principal | null> {
    if (!run.key_id) return null;
    const [row] = await this.services!.db.query<{ plan: string; is_admin: boolean; store_input_previews: boolean; environment: string; monthly_quota: number | null }>(
      `select u.plan, u.is_admin, u.store_input_previews, k.environment, k.monthly_quota from api_keys k join users u on u.id = k.user_id
        where k.key_id = $1 and u.id = $2 and k.status = 'active' and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())`,
      [run.key_id, run.owner_id],
    );
    if (!row || !isPlan(row.plan)) return null;
    return { userId: run.owner_id, plan: row.plan, isAdmin: row.is_admin, keyId: run.key_id, environment: row.environment, projectId: run.project_id, via: 'api_key', monthlyQuota: row.monthly_quota, storeInputPreviews: row.store_input_previews };
  }

  private async runNode(node: GraphNode, ctx: RunContext): Promise<NodeResult> {
    switch (node.type) {
      case 'kb_query':
        return this.kbQuery(node.params as NodeParams<'kb_query'>, ctx);
      case 'compress':
        return this.compress(node.params as NodeParams<'compress'>, ctx);
      case 'llm':
        return this.llm(node.params as NodeParams<'llm'>, ctx);
      case 'tool':
        return this.tool(node.params as NodeParams<'tool'>, ctx);
    }
  }

  private async kbQuery(p: NodeParams<'kb_query'>, ctx: RunContext): Promise<NodeResult> {
    const query = fillTemplate(p.query, ctx.inputs, ctx.outputs).trim();
    if (!query) throw invalid('kb_query: the query is empty after filling its template');
    const out = await queryKnowledge(this.services!, ctx.principal, ctx.run.project_id, { query, limit: p.limit }, ctx.signal);
    return {
      output: {
        text: out.results.map((r) => r.raw_text).join('\n\n'),
        query,
        count: out.results.length,
        results: out.results.map((r) => ({ item_id: r.item_id, item_name: r.item_name, chunk_id: r.chunk_id, heading: r.heading, score: r.score })),
      },
      inputTokens: 0,
      outputTokens: 0,
      costMicros: null,
    };
  }

  /** The text compression use case, metered as a call of gc_run_from_workflow (quota, usage event, the pool). */
  private async compress(p: NodeParams<'compress'>, ctx: RunContext): Promise<NodeResult> {
    const text = p.text !== undefined ? fillTemplate(p.text, ctx.inputs, ctx.outputs) : ctx.upstream;
    if (!text.trim()) return { output: { text: '', original_tokens: 0, compressed_tokens: 0, tokens_saved: 0, fidelity: p.fidelity }, inputTokens: 0, outputTokens: 0, costMicros: null };
    const call = new Call({ services: this.services!, principal: ctx.principal, surface: 'MCP', toolName: 'gc_run_from_workflow', signal: ctx.signal });
    let failure: unknown;
    try {
      const r = await compressText(call, { text, fidelity: p.fidelity, query: p.query ? fillTemplate(p.query, ctx.inputs, ctx.outputs) : null });
      return {
        output: { text: r.compressed_text, original_tokens: r.original_tokens, compressed_tokens: r.compressed_tokens, tokens_saved: r.tokens_saved, fidelity: r.fidelity },
        inputTokens: 0,
        outputTokens: 0,
        costMicros: null,
      };
    } catch (err) {
      failure = err;
      throw err;
    } finally {
      await call.finishWith(failure).catch(() => undefined);
    }
  }

  /** An MCP tool through the one tools/call pipeline (plan gate, validation, quota, its own usage event), as the run's key. */
  private async tool(p: NodeParams<'tool'>, ctx: RunContext): Promise<NodeResult> {
    if (!this.tools) throw invalid('tool nodes are not available on this server');
    const args = fillDeep(p.arguments, ctx.inputs, ctx.outputs) as Record<string, unknown>;
    const r = await this.tools.call(p.tool, args, ctx.principal, ctx.signal);
    if (r.isError) throw invalid(`tool ${p.tool} answered ${String(r.data.error ?? 'an error')}: ${String(r.data.detail ?? '')}`.trim());
    const text = ['compressed_text', 'output', 'text', 'content', 'skeleton', 'summary'].map((f) => r.data[f]).find((v): v is string => typeof v === 'string') ?? JSON.stringify(r.data);
    return { output: { text, tool: p.tool, result: r.data }, inputTokens: 0, outputTokens: 0, costMicros: null };
  }

  private async llm(p: NodeParams<'llm'>, ctx: RunContext): Promise<NodeResult> {
    const s = this.services!;
    const provider = await resolveProvider(s, ctx.run.project_id, p.provider);
    if (!p.model && !provider.defaultModel) throw invalid(`llm: no model given and provider '${p.provider}' has no default_model`);
    let prompt = fillTemplate(p.prompt, ctx.inputs, ctx.outputs);
    if (!usesNodeTemplates(p.prompt) && ctx.upstream) prompt += `\n\n---\n${ctx.upstream}`;
    // Counted before the call, under the lease: a run never submits more than MAX_PROVIDER_CALLS, resumes included.
    const counted = await s.db.query(
      `update workflow_runs set provider_calls = provider_calls + 1 where id = $1 and lease_owner = $2 and provider_calls < $3 returning provider_calls`,
      [ctx.run.id, this.instanceId, MAX_PROVIDER_CALLS],
    );
    if (!counted.length) throw invalid(`llm: this run has already submitted ${MAX_PROVIDER_CALLS} provider calls`, { code: 'too_many_provider_calls' });
    const messages = [...(p.system ? [{ role: 'system' as const, content: fillTemplate(p.system, ctx.inputs, ctx.outputs) }] : []), { role: 'user' as const, content: prompt }];
    const r = await complete(s, ctx.run.project_id, { provider: p.provider, model: p.model, messages, maxTokens: p.max_tokens, temperature: p.temperature, stream: p.stream, signal: ctx.signal }, provider);
    return {
      output: {
        text: r.text,
        provider: r.provider,
        api: r.api,
        model: r.model,
        finish_reason: r.finishReason,
        attempts: r.attempts,
        usage_reported: r.inputTokens !== null && r.outputTokens !== null,
        price: r.price ? { input_usd_per_mtok: r.price.input_usd_per_mtok, output_usd_per_mtok: r.price.output_usd_per_mtok, effective_from: r.price.effective_from } : null,
      },
      inputTokens: r.inputTokens ?? 0,
      outputTokens: r.outputTokens ?? 0,
      costMicros: r.costMicros,
    };
  }
}

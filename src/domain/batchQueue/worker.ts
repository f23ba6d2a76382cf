// The background worker of queued batch jobs, on the same LeasedRunner loop as the workflow RunExecutor:
// the state lives in the database and this class only works on documents it holds a lease on.
//   pending ──claim──▶ running ──▶ succeeded | failed
// A claim takes pending documents, or running ones whose lease lapsed (their process died), oldest job
// first, and counts an attempt. A heartbeat renews the leases of the documents in flight. A result is
// written with the job's counters and the document's usage event in one statement, conditioned on still
// holding the lease and the document still running: a stored result is final and never overwritten,
// even by a stale holder, and a document is billed exactly when its result is stored.
import { createHash } from 'node:crypto';
import type { Principal } from '../../auth/principal.js';
import { isPlan } from '../../auth/plans.js';
import type { RunSettings } from '../../config.js';
import type { Logger } from '../../lib/log.js';
import { storableText } from '../../lib/text.js';
import type { Services } from '../../services.js';
import { USAGE_EVENT_COLUMNS, usageRowJson, type UsageEventInput } from '../metering/usage.js';
import { Call, statusOf } from '../call.js';
import { compressText } from '../compression/text.js';
import { asDomainError } from '../errors.js';
import { LeasedRunner, leaseClaimSql } from '../platform/leasedRunner.js';
import type { DocumentRow } from './jobs.js';

type Claimed = DocumentRow & { owner_id: string; key_id: string | null };

/** The documents taken (oldest job first), their jobs marked running, each document with its job's owner and key. */
const CLAIM = `with c as (
    ${leaseClaimSql({ table: 'batch_job_documents', key: ['job_id', 'ordinal'], ready: 'pending', order: 'created_at, job_id, ordinal', returning: 'job_id, ordinal, doc_id, text, fidelity, query, model, status, attempts' })}
  ), started as (
    update batch_jobs set status = 'running', started_at = coalesce(started_at, now()), updated_at = now()
     where id in (select job_id from c) and status = 'queued'
  )
  select c.*, j.owner_id, j.key_id from c join batch_jobs j on j.id = c.job_id order by c.job_id, c.ordinal`;

/** A document's result, its usage event (only with the result) and its job's counters: one statement. */
const STORE = `with d as (
    update batch_job_documents set status = $4, result = $5::text::jsonb, error = $6, finished_at = now(), lease_owner = null, lease_expires_at = null
     where job_id = $1 and ordinal = $2 and lease_owner = $3 and status = 'running' returning job_id
  ), usage as (
    insert into usage_events (${USAGE_EVENT_COLUMNS})
    select ${USAGE_EVENT_COLUMNS} from json_populate_recordset(null::usage_events, $11::text::json) where exists (select 1 from d)
    on conflict (id) do nothing
  )
  update batch_jobs set succeeded = succeeded + $7, failed = failed + $8, original_tokens = original_tokens + $9, compressed_tokens = compressed_tokens + $10,
         status = case when succeeded + failed + 1 >= total then 'completed' else status end,
         finished_at = case when succeeded + failed + 1 >= total then now() else finished_at end, updated_at = now()
   where id = (select job_id from d) returning id`;

export class BatchQueueWorker extends LeasedRunner<Claimed> {
  private services: Services | null = null;
  /** Principals by key for a second: one lookup per key and second instead of one per document. */
  private readonly principals = new Map<string, { at: number; principal: Promise<Principal | null> }>();

  constructor(
    private readonly settings: RunSettings,
    log: Logger,
  ) {
    super(settings, log, 'batch queue');
  }

  /** Starts polling for pending and abandoned documents; unfinished jobs of a previous process resume here. */
  start(services: Services): void {
    this.services = services;
    this.startLoop();
  }

  protected keyOf(doc: Claimed): string {
    return `${doc.job_id}:${doc.ordinal}`;
  }

  protected describe(doc: Claimed): Record<string, unknown> {
    return { job_id: doc.job_id, index: doc.ordinal };
  }

  // Claimed a few slots ahead (their leases renewed by the heartbeat): one claim per several documents.
  protected override claimSize(): number {
    return this.settings.concurrency * 2;
  }

  /** One statement renews every document this instance holds; a stored result is conditioned on the lease anyway. */
  protected async renew(): Promise<void> {
    await this.services!.db.query(
      `update batch_job_documents set lease_expires_at = now() + ($2::int * interval '1 millisecond') where lease_owner = $1 and status = 'running'`,
      [this.instanceId, this.settings.leaseMs],
    );
  }

  /** Hands back (expired now) the leases of documents stopped or never started, so the next process resumes them at once. */
  protected override async released(): Promise<void> {
    await this.services?.db
      .query(`update batch_job_documents set lease_expires_at = now() where lease_owner = $1 and status = 'running'`, [this.instanceId])
      .catch(() => undefined);
  }

  /** One statement: the documents taken, their jobs marked running, each document with its job's owner and key. */
  protected async claim(limit: number): Promise<Claimed[]> {
    return this.services!.db.query<Claimed>(CLAIM, [this.instanceId, this.settings.leaseMs, limit]);
  }

  protected async execute(doc: Claimed, signal: AbortSignal): Promise<void> {
    if (doc.attempts > this.settings.maxAttempts) {
      await this.store(doc, null, `interrupted: the document was claimed ${doc.attempts} times (BATCH_QUEUE_MAX_ATTEMPTS ${this.settings.maxAttempts}); giving up`, null);
      return;
    }
    const principal = await this.principalOf(doc);
    if (!principal) {
      await this.store(doc, null, 'the API key that queued the job is no longer active', null);
      return;
    }
    // Each document is a call of its own (method batch, one usage event), as in /v1/batch-compress.
    const call = new Call({ services: this.services!, principal, surface: 'batch', toolName: 'batch_compress_queue', signal });
    try {
      const r = await compressText(call, { text: doc.text, fidelity: doc.fidelity, query: doc.query, model: doc.model });
      await this.store(doc, r, null, call.takeUsageEvent('success'));
    } catch (err) {
      if (signal.aborted) return; // shutdown: the lease is handed back, the next process redoes it
      const known = asDomainError(err);
      if (!known || known.kind === 'unavailable' || known.kind === 'timeout') {
        // Ours, not the document's (pool or database): claimed again once the lease lapses. No usage
        // event for this attempt: the document's one event is written with its final state.
        this.log.warn('batch document will be retried', { job_id: doc.job_id, index: doc.ordinal, error: err instanceof Error ? err.message : String(err) });
        return;
      }
      await this.store(doc, null, known.detail, call.takeUsageEvent(statusOf(err)));
    }
  }

  /**
   * Writes the document's result, its usage event and the job's counters in one statement (one
   * commit): a kill -9 leaves either all three or none, and the claim then redoes the document. The
   * event's id is derived from the document, and everything is conditioned on holding the lease of a
   * document still running, so a document is billed once whatever the retries. False when the lease was lost.
   */
  private async store(doc: Claimed, result: { original_tokens: number; compressed_tokens: number } | null, error: string | null, event: UsageEventInput | null): Promise<boolean> {
    const eventRows = event ? `[${JSON.stringify({ ...JSON.parse(usageRowJson(event)), id: documentEventId(doc.job_id, doc.ordinal) })}]` : '[]';
    const rows = await this.services!.db.query(
      STORE,
      [
        doc.job_id, doc.ordinal, this.instanceId, result ? 'succeeded' : 'failed', result ? JSON.stringify(result) : null, error === null ? null : storableText(error.slice(0, 2000)),
        result ? 1 : 0, result ? 0 : 1, result?.original_tokens ?? 0, result?.compressed_tokens ?? 0, eventRows,
      ],
    );
    return rows.length > 0;
  }

  /** The job's caller as of at most a second ago: the key must still be active (a revoked key stops its job). */
  private principalOf(doc: Claimed): Promise<Principal | null> {
    const cacheKey = `${doc.owner_id}:${doc.key_id ?? ''}`;
    const hit = this.principals.get(cacheKey);
    if (hit && Date.now() - hit.at < 1000) return hit.principal;
    if (this.principals.size > 1000) this.principals.clear();
    const principal = this.lookupPrincipal(doc);
    this.principals.set(cacheKey, { at: Date.now(), principal });
    principal.catch(() => this.principals.delete(cacheKey));
    return principal;
  }

  private async lookupPrincipal(doc: Claimed): Promise<Principal | null> {
    if (!doc.key_id) {
      // Queued from an identity-provider session: the user as of now.
      const [user] = await this.services!.db.query<{ plan: string; is_admin: boolean; store_input_previews: boolean }>('select plan, is_admin, store_input_previews from users where id = $1', [doc.owner_id]);
      if (!user || !isPlan(user.plan)) return null;
      return { userId: doc.owner_id, plan: user.plan, isAdmin: user.is_admin, keyId: null, environment: null, projectId: null, via: 'jwt', monthlyQuota: null, storeInputPreviews: user.store_input_previews };
    }
    const [row] = await this.services!.db.query<{ plan: string; is_admin: boolean; store_input_previews: boolean; environment: string; monthly_quota: number | null; project_id: string | null }>(
      `select u.plan, u.is_admin, u.store_input_previews, k.environment, k.monthly_quota, k.project_id from api_keys k join users u on u.id = k.user_id
        where k.key_id = $1 and u.id = $2 and k.status = 'active' and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())`,
      [doc.key_id, doc.owner_id],
    );
    if (!row || !isPlan(row.plan)) return null;
    return { userId: doc.owner_id, plan: row.plan, isAdmin: row.is_admin, keyId: doc.key_id, environment: row.environment, projectId: row.project_id, via: 'api_key', monthlyQuota: row.monthly_quota, storeInputPreviews: row.store_input_previews };
  }
}

/** A document's usage event id (a UUID made from job and index): the same on every attempt, so at most one event per document can exist. */
export function documentEventId(jobId: string, ordinal: number): string {
  const h = createHash('sha256').update(`batch-queue:${jobId}:${ordinal}`).digest('hex');
  const variant = (8 | (parseInt(h[16]!, 16) & 3)).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

// Results of queued documents, written by group commit: documents that finish while a write is in
// flight go together in the next statement. Each write was a commit of its own, and on PGlite those
// run one at a time on the event loop (~4.5 ms each at load, ~1.2 ms a row in groups of eight), which
// held the queue to a third of PostgreSQL's rate (bench/batch).
import type { Queryable } from '../../store/db.js';

export interface DocumentResult {
  job_id: string;
  ordinal: number;
  result: { original_tokens: number; compressed_tokens: number } | null;
  error: string | null;
}

interface Waiting extends DocumentResult {
  settle: (stored: boolean) => void;
  fail: (err: unknown) => void;
}

/**
 * One statement per group: each document is stored only while this instance holds its lease and it
 * is still running (a stored result is final, even against a stale holder), and its job's counters
 * move by the documents actually stored, in the same statement (atomic).
 */
const STORE = `with v as (
    select * from jsonb_to_recordset($1::text::jsonb) as v(job_id uuid, ordinal int, result jsonb, error text)
  ), d as (
    update batch_job_documents b set status = case when v.result is null then 'failed' else 'succeeded' end, result = v.result, error = v.error,
           finished_at = now(), lease_owner = null, lease_expires_at = null
      from v where b.job_id = v.job_id and b.ordinal = v.ordinal and b.lease_owner = $2 and b.status = 'running'
    returning b.job_id, b.ordinal, b.status, b.result
  ), c as (
    select job_id, count(*) filter (where status = 'succeeded') as s, count(*) filter (where status = 'failed') as f,
           coalesce(sum((result->>'original_tokens')::bigint), 0) as ot, coalesce(sum((result->>'compressed_tokens')::bigint), 0) as ct
      from d group by job_id
  ), j as (
    update batch_jobs set succeeded = succeeded + c.s, failed = failed + c.f, original_tokens = original_tokens + c.ot, compressed_tokens = compressed_tokens + c.ct,
           status = case when succeeded + failed + c.s + c.f >= total then 'completed' else status end,
           finished_at = case when succeeded + failed + c.s + c.f >= total then now() else finished_at end, updated_at = now()
      from c where batch_jobs.id = c.job_id returning batch_jobs.id
  )
  select d.job_id, d.ordinal from d`;

export class ResultWriter {
  private queue: Waiting[] = [];
  private writing: Promise<void> | null = null;

  constructor(
    private readonly db: Queryable,
    private readonly leaseOwner: string,
  ) {}

  /** Stores the document's result (or error); false when the lease was lost. */
  write(doc: DocumentResult): Promise<boolean> {
    return new Promise<boolean>((settle, fail) => {
      this.queue.push({ ...doc, settle, fail });
      this.writing ??= this.drain();
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length) {
      const group = this.queue;
      this.queue = [];
      try {
        const rows = await this.db.query<{ job_id: string; ordinal: number }>(STORE, [
          JSON.stringify(group.map(({ job_id, ordinal, result, error }) => ({ job_id, ordinal, result, error }))),
          this.leaseOwner,
        ]);
        const stored = new Set(rows.map((r) => `${r.job_id}:${r.ordinal}`));
        for (const w of group) w.settle(stored.has(`${w.job_id}:${w.ordinal}`));
      } catch (err) {
        for (const w of group) w.fail(err);
      }
    }
    this.writing = null;
  }
}

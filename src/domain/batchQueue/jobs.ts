// Queued batch compression jobs: created with every document stored (the caller gets the id at once),
// worked through by the BatchQueueWorker, read back with their per-document results.
import { FIDELITIES, isFidelity, type Fidelity } from '../../../workers/shared/fidelity.js';
import type { Principal } from '../../auth/principal.js';
import { needsStoring, storableText } from '../../lib/text.js';
import type { Queryable } from '../../store/db.js';
import { invalidInput, notFound } from '../errors.js';
import { UUID } from '../knowledge/items.js';
import { isoOrNull } from '../../lib/time.js';

/** A job holds up to this many documents (the synchronous /v1/batch-compress holds 50). */
export const QUEUE_MAX_DOCUMENTS = 1000;
/** One document's text, in characters. */
export const QUEUE_MAX_DOCUMENT_CHARS = 500_000;
/** All of a job's text together, in characters. */
export const QUEUE_MAX_TOTAL_CHARS = 8_000_000;
/** Results returned per GET at most (page with offset). */
export const QUEUE_MAX_PAGE = 1000;

export type JobStatus = 'queued' | 'running' | 'completed';
export type DocumentStatus = 'pending' | 'running' | 'succeeded' | 'failed';

export interface QueueDocumentInput {
  id?: string | null;
  text: string;
  fidelity?: string | null;
  query?: string | null;
  model?: string | null;
}

export interface JobRow {
  id: string;
  owner_id: string;
  key_id: string | null;
  status: JobStatus;
  total: number;
  succeeded: number;
  failed: number;
  original_tokens: string | number;
  compressed_tokens: string | number;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface DocumentRow {
  job_id: string;
  ordinal: number;
  doc_id: string | null;
  text: string;
  fidelity: Fidelity;
  query: string | null;
  model: string | null;
  status: DocumentStatus;
  attempts: number;
  result: unknown;
  error: string | null;
  finished_at: Date | null;
}

export const jobNotFound = (id: string) => notFound(`Batch job '${id}' not found`);
const bad = (loc: (string | number)[], msg: string) => invalidInput(msg, [{ loc, msg, type: 'value_error' }]);

/** Checks the whole request before anything is stored: a job is either queued entirely or refused with the first problem. */
export function validateDocuments(documents: readonly QueueDocumentInput[], fallback: string | null | undefined): Fidelity[] {
  if (documents.length === 0) throw bad(['documents'], 'documents must hold at least one document');
  if (documents.length > QUEUE_MAX_DOCUMENTS) throw bad(['documents'], `A job holds at most ${QUEUE_MAX_DOCUMENTS} documents; got ${documents.length}`);
  if (fallback != null && !isFidelity(fallback)) throw bad(['fidelity'], `Invalid fidelity '${fallback}'. Valid values: ${FIDELITIES.join(', ')}`);
  let total = 0;
  return documents.map((doc, i) => {
    if (doc.text.length === 0) throw bad(['documents', i, 'text'], `document ${i}: text must not be empty`);
    if (doc.text.length > QUEUE_MAX_DOCUMENT_CHARS) {
      throw bad(['documents', i, 'text'], `document ${i} is ${doc.text.length} characters; one document holds at most ${QUEUE_MAX_DOCUMENT_CHARS}`);
    }
    total += doc.text.length;
    if (total > QUEUE_MAX_TOTAL_CHARS) throw bad(['documents'], `A job holds at most ${QUEUE_MAX_TOTAL_CHARS} characters of text in all`);
    const level = doc.fidelity ?? fallback ?? 'balanced';
    if (!isFidelity(level)) throw bad(['documents', i, 'fidelity'], `document ${i}: invalid fidelity '${level}'. Valid values: ${FIDELITIES.join(', ')}`);
    return level;
  });
}

/** Stores the job and every document in one transaction (tx): the id is only returned once all of it is durable. */
export async function createJob(tx: Queryable, principal: Principal, documents: readonly QueueDocumentInput[], fallback?: string | null): Promise<JobRow> {
  const levels = validateDocuments(documents, fallback);
  const [job] = await tx.query<JobRow>('insert into batch_jobs (owner_id, key_id, total) values ($1, $2, $3) returning *', [principal.userId, principal.keyId, documents.length]);
  // Multi-row inserts of 100 documents keep a 1,000-document job to ten statements.
  for (let start = 0; start < documents.length; start += 100) {
    const params: unknown[] = [job!.id];
    const rows: string[] = [];
    documents.slice(start, start + 100).forEach((doc, k) => {
      const i = start + k;
      const text = needsStoring(doc.text) ? storableText(doc.text) : doc.text;
      params.push(i, doc.id ?? null, text, levels[i], doc.query ?? null, doc.model ?? null);
      const b = params.length - 6;
      rows.push(`($1, $${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6})`);
    });
    await tx.query(`insert into batch_job_documents (job_id, ordinal, doc_id, text, fidelity, query, model) values ${rows.join(', ')}`, params);
  }
  return job!;
}

/** The caller's job; another user's job is not found. */
export async function getJob(db: Queryable, principal: Principal, jobId: string): Promise<JobRow> {
  if (!UUID.test(jobId)) throw jobNotFound(jobId);
  const [row] = await db.query<JobRow>('select * from batch_jobs where id = $1 and owner_id = $2', [jobId, principal.userId]);
  if (!row) throw jobNotFound(jobId);
  return row;
}

export async function jobDocuments(db: Queryable, jobId: string, offset: number, limit: number): Promise<DocumentRow[]> {
  return db.query<DocumentRow>(
    'select job_id, ordinal, doc_id, fidelity, status, attempts, result, error, finished_at from batch_job_documents where job_id = $1 order by ordinal offset $2 limit $3',
    [jobId, offset, limit],
  );
}

export function jobSummary(job: JobRow) {
  const done = job.succeeded + job.failed;
  const original = Number(job.original_tokens);
  const compressed = Number(job.compressed_tokens);
  return {
    job_id: job.id,
    status: job.status,
    progress: { total: job.total, done, succeeded: job.succeeded, failed: job.failed, pending: job.total - done, percent: job.total ? Math.round((done / job.total) * 1000) / 10 : 100 },
    summary: {
      total_original_tokens: original,
      total_compressed_tokens: compressed,
      total_tokens_saved: original - compressed,
      overall_savings_percent: original > 0 ? Math.round(((original - compressed) / original) * 1000) / 10 : 0,
    },
    created_at: isoOrNull(job.created_at),
    started_at: isoOrNull(job.started_at),
    finished_at: isoOrNull(job.finished_at),
  };
}

/** One document's entry: pending/running ones carry no result yet; a failed one carries its error. */
export function documentEntry(d: DocumentRow) {
  const result = typeof d.result === 'string' ? JSON.parse(d.result) : (d.result ?? null);
  return { index: d.ordinal, id: d.doc_id, status: d.status, fidelity: d.fidelity, attempts: d.attempts, error: d.error, finished_at: isoOrNull(d.finished_at), ...(result ? { result } : {}) };
}

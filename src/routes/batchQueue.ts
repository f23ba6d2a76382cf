import { z } from 'zod';
import { documentEntry, getJob, jobDocuments, jobSummary, QUEUE_MAX_PAGE } from '../domain/batchQueue/jobs.js';
import { defineRoute } from '../http/route.js';
import { FIDELITIES } from '../../workers/shared/fidelity.js';
import { int, isoTime } from './schemas.js';

/** jobSummary and documentEntry (domain/batchQueue/jobs.ts); a document's result is its compression. */
const jobResponse = z.object({
  job_id: z.string(),
  status: z.enum(['queued', 'running', 'completed']),
  progress: z.object({ total: int, done: int, succeeded: int, failed: int, pending: int, percent: z.number() }),
  summary: z.object({ total_original_tokens: int, total_compressed_tokens: int, total_tokens_saved: int, overall_savings_percent: z.number() }),
  created_at: isoTime,
  started_at: isoTime.nullable(),
  finished_at: isoTime.nullable(),
  results: z.array(
    z.object({
      index: int,
      id: z.string().nullable(),
      status: z.enum(['pending', 'running', 'succeeded', 'failed']),
      fidelity: z.enum(FIDELITIES),
      attempts: int,
      error: z.string().nullable(),
      finished_at: isoTime.nullable(),
      result: z.looseObject({}).optional(),
    }),
  ),
  offset: int,
  next_offset: int.nullable(),
});

const PageQuery = z.object({
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  limit: z.coerce.number().int().min(1).max(QUEUE_MAX_PAGE).default(QUEUE_MAX_PAGE),
});

export const batchQueueRoutes = [
  defineRoute({
    method: 'GET',
    path: '/v1/batch-queue/:id',
    auth: 'key',
    query: PageQuery,
    response: jobResponse,
    doc: {
      summary: 'Status and results of a queued batch job',
      description: 'Status (queued, running, completed), progress and one entry per document (status, result or error), in document order; offset and limit page through the documents.',
    },
    async handler({ params, query, principal, services }) {
      const job = await getJob(services.db, principal, params.id!);
      const docs = await jobDocuments(services.db, job.id, query.offset, query.limit);
      const next = query.offset + docs.length;
      return { body: { ...jobSummary(job), results: docs.map(documentEntry), offset: query.offset, next_offset: next < job.total ? next : null } };
    },
  }),
];

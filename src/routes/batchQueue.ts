import { z } from 'zod';
import { documentEntry, getJob, jobDocuments, jobSummary, QUEUE_MAX_PAGE } from '../domain/batchQueue/jobs.js';
import { defineRoute } from '../http/route.js';

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

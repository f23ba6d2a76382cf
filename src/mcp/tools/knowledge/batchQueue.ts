import { z } from 'zod';
import { createJob, jobSummary, QUEUE_MAX_DOCUMENT_CHARS, QUEUE_MAX_DOCUMENTS } from '../../../domain/batchQueue/jobs.js';
import { defineTool } from '../../tool.js';
import { teamExportTools } from '../account/teamExport.js';
import { int } from '../outputs.js';

const documentShape = z
  .object({
    id: z.string().max(200).optional().describe('Your id for the document, echoed in its result'),
    text: z.string().describe(`Up to ${QUEUE_MAX_DOCUMENT_CHARS} characters`),
    fidelity: z.string().optional().describe('This document\'s fidelity (default: the job\'s, else balanced)'),
    query: z.string().max(10_000).nullish(),
    model: z.string().min(1).max(100).nullish(),
  })
  .strict();

/** Issue 22's tools: the queued batch and the usage export (teamExport.ts). */
export const batchQueueTools = [
  defineTool({
    name: 'batch_compress_queue',
    scope: 'mcp:write',
    advisory: true,
    description: `Queues up to ${QUEUE_MAX_DOCUMENTS} documents for compression (Team or Enterprise) and returns a job_id at once; GET /v1/batch-queue/{job_id} gives status, progress and each document's result. Jobs are durable and resume after a restart; each document is metered like a /v1/batch-compress document.`,
    output: z.looseObject({
      job_id: z.string(),
      status: z.string(),
      progress: z.looseObject({ total: int, done: int, succeeded: int, failed: int, pending: int, percent: z.number() }),
      summary: z.looseObject({ total_original_tokens: int, total_compressed_tokens: int, total_tokens_saved: int, overall_savings_percent: z.number() }),
      created_at: z.string(),
      status_url: z.string(),
    }),
    input: z
      .object({
        documents: z.array(documentShape).describe(`1 to ${QUEUE_MAX_DOCUMENTS} documents`),
        fidelity: z.string().optional().describe('Default fidelity of the job\'s documents'),
      })
      .strict(),
    async handler(args, ctx) {
      await ctx.call.requireQuota(); // an exhausted quota refuses the job before anything is stored
      const job = await ctx.services.db.transaction((tx) => createJob(tx, ctx.principal, args.documents, args.fidelity));
      ctx.services.batchQueue.kick();
      return { result: { ...jobSummary(job), status_url: `${ctx.baseUrl}/v1/batch-queue/${job.id}` } };
    },
  }),
  ...teamExportTools,
];

// Spec: catalogue "ingestion: batch_compress_queue (enqueues a job and returns a job id; Team or
// Enterprise)" and its route "GET /v1/batch-queue/{id}: status and results of a job created with
// batch_compress_queue"; catalogue "general: export_team_data (JSON, CSV or Prometheus format)".
import { sampleDocument } from '../../helpers/server.js';
import { t, type ContractFile } from '../contract.js';

export default {
  area: 'MCP tools: batch_compress_queue and GET /v1/batch-queue/{id}; export_team_data',
  setup: async (c) => {
    c.fx.batch_job_id = (await c.tool('batch_compress_queue', { documents: [{ text: sampleDocument() }, { text: 'A short note on caching and retries.' }] })).job_id;
  },
  routes: [
    {
      method: 'GET',
      path: '/v1/batch-queue/:id',
      spec: 'GET /v1/batch-queue/{id}: status and results of a job created with batch_compress_queue',
      request: (c) => ({ params: { id: c.fx.batch_job_id } }),
      status: 200,
      note: 'The spec names status and results; their values and the progress fields are not shown.',
      fields: { status: t.string, results: t.array },
      check: async (_res, c) => {
        const stranger = await c.user('team', 'batchq-stranger');
        const r = await c.server.request('GET', `/v1/batch-queue/${c.fx.batch_job_id}`, { key: stranger.key });
        if (r.status !== 404) throw new Error(`another user's job should be 404, got ${r.status}`);
      },
    },
  ],
  tools: [
    {
      tool: 'batch_compress_queue',
      spec: 'batch_compress_queue (enqueues a job and returns a job id; Team or Enterprise)',
      args: { documents: [{ text: sampleDocument(), fidelity: 'outline' }] },
      note: 'The spec says "a job id"; its field name is not shown.',
      fields: { job_id: t.uuid },
    },
    {
      tool: 'export_team_data',
      spec: 'export_team_data (JSON, CSV or Prometheus format)',
      args: { format: 'prometheus', days: 7 },
      note: 'The spec names the formats only; the result fields are not shown.',
      fields: { format: t.enum('json', 'csv', 'prometheus'), content: t.string },
    },
  ],
} satisfies ContractFile;

import { z } from 'zod';
import { EXPORT_FORMATS, EXPORT_MAX_ROWS, exportRows, renderCsv, renderPrometheus, totals } from '../../../domain/analytics/teamExport.js';
import { invalid } from '../../../domain/errors.js';
import { defineTool } from '../../tool.js';
import { int } from '../outputs.js';
import { nowIso } from '../../../lib/time.js';

export const teamExportTools = [
  defineTool({
    name: 'export_team_data',
    scope: 'mcp:read',
    readOnly: true,
    advisory: true,
    description:
      "Exports your account's usage (every key and project) over the last days as JSON rows, CSV or the Prometheus text format: calls, input/output tokens, tokens saved, cache hits and latency per UTC day, key, project, method, tool and status (Prometheus: totals per label set over the window).",
    input: z
      .object({
        format: z.enum(EXPORT_FORMATS).default('json'),
        days: z.number().int().min(1).max(365).default(30).describe('UTC days back, today included'),
      })
      .strict(),
    // json carries rows; csv and prometheus the rendered content and its type.
    output: z.looseObject({
      format: z.enum(EXPORT_FORMATS),
      days: int,
      from: z.string(),
      to: z.string(),
      rows_count: int,
      totals: z.record(z.string(), z.number()),
      generated_at: z.string(),
      rows: z.array(z.looseObject({ date: z.string(), key_id: z.string(), tool: z.string(), calls: int })).optional(),
      content_type: z.string().optional(),
      content: z.string().optional(),
    }),
    async handler(args, ctx) {
      const out = await exportRows(ctx.services.db, ctx.principal.userId, args.days);
      if (!out.rows) throw invalid(`The export would hold ${out.count} rows (at most ${EXPORT_MAX_ROWS}); ask for fewer days`, { code: 'export_too_large' });
      const head = { format: args.format, days: args.days, from: out.from, to: out.to, rows_count: out.rows.length, totals: totals(out.rows), generated_at: nowIso() };
      if (args.format === 'json') return { result: { ...head, rows: out.rows } };
      if (args.format === 'csv') return { result: { ...head, content_type: 'text/csv; charset=utf-8', content: renderCsv(out.rows) } };
      return { result: { ...head, content_type: 'text/plain; version=0.0.4; charset=utf-8', content: renderPrometheus(out.rows, args.days) } };
    },
  }),
];

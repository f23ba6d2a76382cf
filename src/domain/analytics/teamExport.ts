// export_team_data: the account's usage events aggregated in SQL to one row per UTC day, key, project,
// method, tool and status, rendered as JSON rows, CSV, or the Prometheus text format (window totals per
// label set: a text exposition holds one sample per series, so days are summed there).
import type { Queryable } from '../../store/db.js';

export const EXPORT_FORMATS = ['json', 'csv', 'prometheus'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
/** Rows per export at most: bounds the query and the rendering (a larger window is refused with the count). */
export const EXPORT_MAX_ROWS = 20_000;

export interface ExportRow {
  date: string;
  key_id: string;
  project_id: string;
  method: string;
  tool: string;
  status: string;
  calls: number;
  input_tokens: number;
  output_tokens: number;
  tokens_saved: number;
  cache_hits: number;
  latency_ms_sum: number;
}

export const CSV_COLUMNS = ['date', 'key_id', 'project_id', 'method', 'tool', 'status', 'calls', 'input_tokens', 'output_tokens', 'tokens_saved', 'cache_hits', 'latency_ms_sum'] as const;
const LABELS = ['key_id', 'project_id', 'method', 'tool', 'status'] as const;
const VALUES = ['calls', 'input_tokens', 'output_tokens', 'tokens_saved', 'cache_hits', 'latency_ms_sum'] as const;
const HELP: Record<(typeof VALUES)[number], string> = {
  calls: 'Calls in the export window',
  input_tokens: 'Input (original) tokens in the export window',
  output_tokens: 'Output (compressed) tokens in the export window',
  tokens_saved: 'Tokens saved (input minus output, never below zero per call) in the export window',
  cache_hits: 'Calls answered from the semantic cache in the export window',
  latency_ms_sum: 'Sum of call latencies in milliseconds in the export window',
};

/** The rows of the last `days` UTC days (today included), oldest first; more than EXPORT_MAX_ROWS → null and the count. */
export async function exportRows(db: Queryable, userId: string, days: number): Promise<{ rows: ExportRow[] | null; count: number; from: string; to: string }> {
  const rows = await db.query<ExportRow & { n: number; from_day: string; to_day: string }>(
    `with g as (
       select to_char((e.created_at at time zone 'utc')::date, 'YYYY-MM-DD') as date, coalesce(e.key_id, '') as key_id,
              coalesce(e.project_id::text, '') as project_id, e.method, coalesce(e.tool_name, '') as tool, e.status,
              count(*)::int as calls, sum(e.input_tokens)::int8 as input_tokens, sum(e.output_tokens)::int8 as output_tokens,
              sum(greatest(e.input_tokens - e.output_tokens, 0))::int8 as tokens_saved,
              count(*) filter (where e.cache_hit)::int as cache_hits, sum(e.latency_ms)::int8 as latency_ms_sum
         from usage_events e
        where e.user_id = $1 and e.created_at >= ((now() at time zone 'utc')::date - ($2::int - 1))::timestamp at time zone 'utc'
        group by 1, 2, 3, 4, 5, 6
     )
     select g.*, count(*) over ()::int as n,
            to_char((now() at time zone 'utc')::date - ($2::int - 1), 'YYYY-MM-DD') as from_day, to_char((now() at time zone 'utc')::date, 'YYYY-MM-DD') as to_day
       from g order by date, key_id, project_id, method, tool, status limit $3`,
    [userId, days, EXPORT_MAX_ROWS + 1],
  );
  const count = rows[0]?.n ?? 0;
  const [bounds] = rows.length ? rows : await db.query<{ from_day: string; to_day: string }>(
    `select to_char((now() at time zone 'utc')::date - ($1::int - 1), 'YYYY-MM-DD') as from_day, to_char((now() at time zone 'utc')::date, 'YYYY-MM-DD') as to_day`,
    [days],
  );
  if (count > EXPORT_MAX_ROWS) return { rows: null, count, from: bounds!.from_day, to: bounds!.to_day };
  return {
    rows: rows.map((r) => ({
      date: r.date, key_id: r.key_id, project_id: r.project_id, method: r.method, tool: r.tool, status: r.status,
      calls: Number(r.calls), input_tokens: Number(r.input_tokens), output_tokens: Number(r.output_tokens), tokens_saved: Number(r.tokens_saved),
      cache_hits: Number(r.cache_hits), latency_ms_sum: Number(r.latency_ms_sum),
    })),
    count,
    from: bounds!.from_day,
    to: bounds!.to_day,
  };
}

export function totals(rows: readonly ExportRow[]) {
  const t = { calls: 0, input_tokens: 0, output_tokens: 0, tokens_saved: 0, cache_hits: 0, latency_ms_sum: 0 };
  for (const r of rows) for (const k of VALUES) t[k] += r[k];
  return t;
}

/** RFC 4180: fields with a comma, quote or line break are quoted, quotes doubled; CRLF line ends. */
function csvField(value: string | number): string {
  const s = String(value);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function renderCsv(rows: readonly ExportRow[]): string {
  return [CSV_COLUMNS.join(','), ...rows.map((r) => CSV_COLUMNS.map((c) => csvField(r[c])).join(','))].join('\r\n') + '\r\n';
}

const labelValue = (s: string) => s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');

/** Prometheus text format 0.0.4: one gauge family per figure, one sample per label set, summed over the window's days. */
export function renderPrometheus(rows: readonly ExportRow[], days: number): string {
  const series = new Map<string, Record<(typeof VALUES)[number], number>>();
  for (const r of rows) {
    const labels = LABELS.map((l) => `${l}="${labelValue(r[l])}"`).join(',');
    const acc = series.get(labels) ?? { calls: 0, input_tokens: 0, output_tokens: 0, tokens_saved: 0, cache_hits: 0, latency_ms_sum: 0 };
    for (const k of VALUES) acc[k] += r[k];
    series.set(labels, acc);
  }
  const lines = ['# HELP gc_team_export_window_days Days covered by this export (UTC, today included)', '# TYPE gc_team_export_window_days gauge', `gc_team_export_window_days ${days}`];
  for (const k of VALUES) {
    lines.push(`# HELP gc_team_${k} ${HELP[k]}`, `# TYPE gc_team_${k} gauge`);
    for (const [labels, acc] of series) lines.push(`gc_team_${k}{${labels}} ${acc[k]}`);
  }
  return lines.join('\n') + '\n';
}

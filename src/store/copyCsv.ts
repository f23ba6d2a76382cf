import type { PGlite } from '@electric-sql/pglite';

// Rows as JSON objects -> the statement and CSV body of a COPY, for the embedded database, where COPY
// costs about a third less CPU per row than an INSERT of the same rows (docs/benchmarks.md). Runs in the
// PGlite thread, so the event loop never parses or formats the rows.

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** `copy table (columns) from '/dev/blob'` in CSV; the names are the caller's constants, checked anyway. */
function copyStatement(table: string, columns: readonly string[]): string {
  for (const name of [table, ...columns]) if (!IDENTIFIER.test(name)) throw new Error(`not a plain identifier: ${name}`);
  return `copy ${table} (${columns.join(', ')}) from '/dev/blob' with (format csv)`;
}

/**
 * One CSV field: null is an unquoted empty field (NULL), a string is always quoted ("" is the empty
 * string). Not the team export's csvField, which quotes only when needed and has no NULL to keep apart.
 */
function field(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return `"${v.replaceAll('"', '""')}"`;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return `"${JSON.stringify(v).replaceAll('"', '""')}"`;
}

/** The CSV body for rows given as JSON object texts, in `columns` order. */
function csvRows(columns: readonly string[], rows: readonly string[]): string {
  let out = '';
  for (const text of rows) {
    const row = JSON.parse(text) as Record<string, unknown>;
    out += columns.map((c) => field(row[c])).join(',') + '\n';
  }
  return out;
}

/** Appends rows, given as JSON object texts, to `table` of an open PGlite by COPY (Db.copyJsonRows). */
export async function copyJsonRowsInto(pg: Pick<PGlite, 'query'>, table: string, columns: readonly string[], rows: readonly string[]): Promise<void> {
  await pg.query(copyStatement(table, columns), [], { blob: new Blob([csvRows(columns, rows)]) });
}

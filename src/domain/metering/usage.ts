import type { Queryable } from '../../store/db.js';
import { savingsPercent } from '../../../workers/shared/stats.js';
import type { Logger } from '../../lib/log.js';
import { storableText } from '../../lib/text.js';
import { redactSecrets } from '../../lib/redactSecrets.js';
import { DatabaseUnavailableError, type Db } from '../../store/db.js';
import { randomUUID } from 'node:crypto';
import type { UsageEventInput, UsageMethod, UsageWriter } from './ports.js';

export type { UsageEventInput, UsageMethod, UsageWriter };

const storable = (text: string | null | undefined) => (text == null ? null : storableText(text));

/**
 * How much of the first line is searched for credentials. A credential starting within the 100
 * characters kept is found from its start (a prefix, a name, a scheme: all well inside 1,024), and a
 * cut one still matches up to the cut; searching further costs time on every call and changes nothing kept.
 */
const PREVIEW_SCAN_CHARS = 1024;

/**
 * The spec's input preview: first line only, at most 100 characters; the full text is never stored.
 * Credentials are redacted before the cut, so a key straddling the 100th character leaves no prefix.
 */
export function inputPreview(text: string | null | undefined): string | null {
  if (!text) return null;
  const firstLine = text.slice(0, PREVIEW_SCAN_CHARS).split(/\r?\n/, 1)[0] ?? '';
  return storableText(Array.from(redactSecrets(firstLine)).slice(0, 100).join(''));
}

/** The preview a call's event keeps: none unless the account stores previews (absent = not known = none). */
const previewOf = (e: UsageEventInput) => (e.principal.storeInputPreviews === true ? inputPreview(e.inputText) : null);

const COLUMNS =
  'id, user_id, key_id, project_id, environment, method, tool_name, client, fidelity, model, status, input_tokens, output_tokens, savings_percent, latency_ms, cache_hit, input_preview, created_at';

// Ids are made here, not by the database: an event replayed from the journal (usageJournal.ts) after a
// crash between its INSERT and the journal's cleanup is then the same row, and `on conflict` skips it.
function row(e: UsageEventInput): Record<string, unknown> {
  return {
    id: randomUUID(), user_id: e.principal.userId, key_id: e.principal.keyId, project_id: e.principal.projectId, environment: storable(e.principal.environment),
    method: e.method, tool_name: storable(e.toolName), client: storable(e.client), fidelity: storable(e.fidelity), model: storable(e.model),
    status: e.status, input_tokens: e.inputTokens, output_tokens: e.outputTokens, savings_percent: savingsPercent(e.inputTokens, e.outputTokens),
    latency_ms: Math.max(0, Math.round(e.latencyMs)), cache_hit: e.cacheHit ?? false, input_preview: previewOf(e), created_at: e.at ?? new Date(),
  };
}

// The rows travel as one JSON text parameter (text, so no driver encodes it again): the statement is
// the same for any batch size, and the embedded database binds one value instead of 17 per row
// (about a quarter less CPU per row on PGlite).
const INSERT = `insert into usage_events (${COLUMNS})
  select ${COLUMNS} from json_populate_recordset(null::usage_events, $1::text::json)
  on conflict (id) do nothing`;

/** The columns a row (usageRowJson) fills: for a statement that writes an event with another change in one commit (a queued batch document's result). */
export const USAGE_EVENT_COLUMNS = COLUMNS;

/** One event as the JSON text of its row: what the journal stores and a batch INSERT takes. */
export function usageRowJson(e: UsageEventInput): string {
  return JSON.stringify(row(e));
}

/** The INSERT's one parameter: rows already in JSON, as one JSON array. */
const rowsParam = (rows: readonly string[]) => `[${rows.join(',')}]`;

/** One INSERT for a batch of events; returns their ids in order. */
export async function insertUsageEvents(db: Queryable, events: readonly UsageEventInput[]): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = await db.query<{ id: string }>(`${INSERT} returning id`, [rowsParam(events.map(usageRowJson))]);
  return rows.map((r) => r.id);
}

/** The same INSERT for rows already in JSON, without reading ids back. */
async function writeUsageRows(db: Queryable, rows: readonly string[]): Promise<void> {
  await db.query(INSERT, [rowsParam(rows)]);
}

const COLUMN_LIST = COLUMNS.split(', ');

/** Where usage rows are written: any database; the embedded one takes batches by COPY. */
export type UsageDb = Queryable & Pick<Db, 'copyJsonRows'>;

/**
 * A batch of rows by COPY where the database offers it (the embedded one): 16-22 instead of 24-29 µs
 * of its CPU per row. COPY cannot skip a duplicate id, so a batch that fails (a replay of rows already
 * in, a row the database refuses) goes through the INSERT after all, which does.
 */
async function writeUsageBatch(db: UsageDb, rows: readonly string[]): Promise<void> {
  if (db.copyJsonRows) {
    try {
      return await db.copyJsonRows('usage_events', COLUMN_LIST, rows);
    } catch (err) {
      if (err instanceof DatabaseUnavailableError) throw err;
    }
  }
  await writeUsageRows(db, rows);
}

export async function recordUsageEvent(db: Queryable, e: UsageEventInput): Promise<string> {
  const [id] = await insertUsageEvents(db, [e]);
  return id!;
}

const MAX_BATCH = 500;

/**
 * Writes a batch of rows (usageRowJson); when the batch INSERT fails as a whole (a row the database
 * refuses), the rows go one by one so one bad row never takes the others with it. A row still refused
 * is logged and dropped; an unavailable database rejects (DatabaseUnavailableError).
 */
export async function insertUsageRows(db: UsageDb, batch: readonly string[], log: Pick<Logger, 'error'>): Promise<void> {
  try {
    await (batch.length > 1 ? writeUsageBatch(db, batch) : writeUsageRows(db, batch));
  } catch (err) {
    if (err instanceof DatabaseUnavailableError || batch.length === 1) {
      log.error('usage event not written', { events: batch.length, error: err instanceof Error ? err.message : String(err) });
      if (err instanceof DatabaseUnavailableError) throw err;
      return;
    }
    for (const r of batch) await insertUsageRows(db, [r], log);
  }
}

/**
 * Reads of usage_events (outside transactions) see every acknowledged call: a query that names the
 * table first waits for the writer's uncommitted events. Needed only with the journal, which answers
 * calls before their events reach the database.
 */
export function usageReadsSeeAcknowledged(db: Db, usage: UsageWriter): Db {
  const query: Queryable['query'] = async (sql, params) => {
    if (usage.hasUncommitted() && sql.includes('usage_events')) await usage.visible();
    return db.query(sql, params);
  };
  return { ...db, query };
}

interface PendingEvent {
  row: string;
  done(err?: unknown): void;
}

/**
 * Batches in flight at once on PostgreSQL. One at a time bounds a busy service by one commit round trip
 * (WAL fsync, ~10 ms p50 under load) per batch; a few concurrent INSERTs on separate connections commit
 * together (PostgreSQL flushes the WAL for all waiting commits at once). Kept small so usage writes
 * leave most of the pool's connections (max 10) to the requests themselves. PGlite has one connection:
 * concurrent statements there only queue, so it keeps one batch in flight and bigger batches.
 */
export const POSTGRES_BATCHES_IN_FLIGHT = 4;
/**
 * While a batch is in flight, another starts only once this many events wait: otherwise each turn of
 * the event loop would send its one or two events as a statement of their own (postgres.js costs
 * ~30 µs of event-loop CPU per statement), and a lone event waits at most for the batches in flight.
 */
const MIN_BATCH_WHILE_BUSY = 8;

/**
 * Usage events by group commit: record() resolves once the event's INSERT has committed, so a call is
 * answered only after its event is durable (it survives kill -9). Events that arrive while the batches
 * in flight are being written go together in the next one, so under load one INSERT carries many calls
 * and a call waits about one INSERT, not a fixed window.
 */
export class GroupCommitUsageWriter implements UsageWriter {
  private pending: PendingEvent[] = [];
  private inFlight = 0;
  private scheduled = false;
  private readonly maxInFlight: number;

  constructor(
    private readonly db: UsageDb & { readonly kind?: 'postgres' | 'pglite' },
    private readonly log: Pick<Logger, 'error'>,
    private readonly background: { add(label: string, work: Promise<unknown>): void },
  ) {
    this.maxInFlight = db.kind === 'postgres' ? POSTGRES_BATCHES_IN_FLIGHT : 1;
  }

  /** Events are committed before record() resolves: nothing acknowledged is ever invisible. */
  hasUncommitted(): boolean {
    return false;
  }

  async visible(): Promise<void> {}

  /** The background drain already waits for the batches in flight. */
  async close(): Promise<void> {}

  record(event: UsageEventInput): Promise<void> {
    const e = usageRowJson(event.at ? event : { ...event, at: new Date() });
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ row: e, done: (err) => (err ? reject(err) : resolve()) });
      if (this.scheduled || !this.canStart()) return;
      // Let the calls answered in this turn of the event loop join the batch. No longer wait: a call is
      // answered only after its event commits, so a gathering window (3 ms was tried) adds its length
      // to every sequential call's latency (MCP and REST p50 +3-5 ms on a quiet machine).
      // Tracked, so a shutdown's drain waits for events not yet in a batch too.
      this.scheduled = true;
      this.background.add('usage events', new Promise<void>((started) => setImmediate(() => {
        this.scheduled = false;
        this.pump();
        started();
      })));
    });
  }

  /** A slot is free and enough events wait for it (any number when nothing is in flight). */
  private canStart(): boolean {
    if (!this.pending.length || this.inFlight >= this.maxInFlight) return false;
    return this.inFlight === 0 || this.pending.length >= MIN_BATCH_WHILE_BUSY;
  }

  /** Starts batches while one can start; each finished batch starts the next with what gathered meanwhile. */
  private pump(): void {
    while (this.canStart()) {
      const batch = this.pending.splice(0, MAX_BATCH);
      this.inFlight++;
      const work = this.write(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
      this.background.add('usage events', work);
    }
  }

  private async write(batch: PendingEvent[]): Promise<void> {
    try {
      await insertUsageRows(this.db, batch.map((p) => p.row), this.log);
      for (const p of batch) p.done();
    } catch (err) {
      for (const p of batch) p.done(err);
    }
  }
}

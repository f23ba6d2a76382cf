import type { Principal } from '../../auth/principal.js';
import type { Queryable } from '../../store/db.js';
import { savingsPercent } from '../../../workers/shared/stats.js';
import type { Logger } from '../../lib/log.js';
import { storableText } from '../../lib/text.js';
import { DatabaseUnavailableError } from '../../store/db.js';

export type UsageMethod = 'REST' | 'MCP' | 'batch' | 'mcp_advisory';

export interface UsageEventInput {
  principal: Principal;
  method: UsageMethod;
  toolName?: string | null;
  client?: string | null;
  fidelity?: string | null;
  model?: string | null;
  status: 'success' | 'client_error' | 'server_error' | 'timeout';
  inputTokens: number;
  outputTokens: number;
  latencyMs: number;
  cacheHit?: boolean;
  inputText?: string | null;
  /** When the call happened; defaults to now. Batched inserts keep each event's own time. */
  at?: Date;
}

const storable = (text: string | null | undefined) => (text == null ? null : storableText(text));

/** The spec's input preview: first line only, at most 100 characters; the full text is never stored. */
export function inputPreview(text: string | null | undefined): string | null {
  if (!text) return null;
  const firstLine = text.slice(0, 4096).split(/\r?\n/, 1)[0] ?? '';
  return storableText(Array.from(firstLine).slice(0, 100).join(''));
}

const COLUMNS = 17;

function row(e: UsageEventInput): unknown[] {
  return [
    e.principal.userId, e.principal.keyId, e.principal.projectId, storable(e.principal.environment), e.method,
    storable(e.toolName), storable(e.client), storable(e.fidelity), storable(e.model), e.status, e.inputTokens,
    e.outputTokens, savingsPercent(e.inputTokens, e.outputTokens), Math.max(0, Math.round(e.latencyMs)),
    e.cacheHit ?? false, inputPreview(e.inputText), e.at ?? new Date(),
  ];
}

/** One multi-row INSERT for a batch of events; returns their ids in order. */
export async function insertUsageEvents(db: Queryable, events: readonly UsageEventInput[]): Promise<string[]> {
  if (events.length === 0) return [];
  const values = events.map((_, i) => `(${Array.from({ length: COLUMNS }, (_, j) => `$${i * COLUMNS + j + 1}`).join(', ')})`);
  const rows = await db.query<{ id: string }>(
    `insert into usage_events (user_id, key_id, project_id, environment, method, tool_name, client, fidelity, model,
       status, input_tokens, output_tokens, savings_percent, latency_ms, cache_hit, input_preview, created_at)
     values ${values.join(', ')} returning id`,
    events.flatMap(row),
  );
  return rows.map((r) => r.id);
}

export async function recordUsageEvent(db: Queryable, e: UsageEventInput): Promise<string> {
  const [id] = await insertUsageEvents(db, [e]);
  return id!;
}

const FLUSH_DELAY_MS = 50;
const MAX_BATCH = 500;
const buffers = new WeakMap<Queryable, UsageEventInput[]>();

/**
 * Records off the request path: events gather for up to 50 ms and go in one INSERT (the embedded
 * database runs on the event loop, so per-event inserts would cost every caller). Shutdown drains
 * the background set, so nothing buffered is lost on SIGTERM.
 */
/**
 * Writes a batch; when the batch INSERT fails as a whole (a row the database refuses), the rows go
 * one by one so one bad row never takes the others with it. A row still refused is logged and dropped.
 */
async function insertBatch(db: Queryable, batch: readonly UsageEventInput[], log: Pick<Logger, 'error'>): Promise<void> {
  try {
    await insertUsageEvents(db, batch);
  } catch (err) {
    if (err instanceof DatabaseUnavailableError || batch.length === 1) {
      log.error('usage event not written', { events: batch.length, error: err instanceof Error ? err.message : String(err) });
      if (err instanceof DatabaseUnavailableError) throw err;
      return;
    }
    for (const e of batch) await insertBatch(db, [e], log);
  }
}

export function recordUsageInBackground(
  services: { db: Queryable; log: Pick<Logger, 'error'>; background: { add(label: string, p: Promise<unknown>): void } },
  event: UsageEventInput,
): void {
  const e = event.at ? event : { ...event, at: new Date() };
  let buffer = buffers.get(services.db);
  if (buffer) {
    buffer.push(e);
    return;
  }
  buffer = [e];
  buffers.set(services.db, buffer);
  const flush = async () => {
    await new Promise((r) => setTimeout(r, FLUSH_DELAY_MS));
    const batch = buffers.get(services.db)!;
    buffers.delete(services.db);
    for (let i = 0; i < batch.length; i += MAX_BATCH) await insertBatch(services.db, batch.slice(i, i + MAX_BATCH), services.log);
  };
  services.background.add('usage events', flush());
}

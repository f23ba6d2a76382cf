// What expands navigable markers (docs/markers.md): originals by content hash per owner, and each
// output's hidden spans by ref. Writes are queued and flushed in batches after the answer goes out.
import type { Services } from '../../services.js';
import type { Queryable } from '../../store/db.js';
import type { MarkerLayout } from '../../../workers/text/markers.js';

/** A stored layout outlives its last use by this long (and the semantic cache's longest TTL). */
export const MARKER_RETENTION_DAYS = 30;
/** Originals kept per owner, most recently used first; older ones (and their ids) are dropped. */
export const MARKER_MAX_BYTES = 256 * 1024 * 1024;
const SWEEP_EVERY_MS = 60 * 60 * 1000;
/** Rows per insert statement. */
const CHUNK = 100;

interface Pending {
  userId: string;
  text: string;
  layout: MarkerLayout;
}

/** One queue per service set: the first write of a burst schedules one flush for all of it. */
class MarkerWriter {
  private queue: Pending[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private scheduled = false;
  private lastSweep = 0;

  constructor(private readonly services: Pick<Services, 'db' | 'background'>) {}

  add(item: Pending): void {
    this.queue.push(item);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flushing = this.flushing.then(() => this.flush());
      this.services.background.add('marker store', this.flushing);
    });
  }

  /** Resolves once everything queued so far is stored (expand reads after it). */
  async settled(): Promise<void> {
    if (this.queue.length) this.flushing = this.flushing.then(() => this.flush());
    await this.flushing.catch(() => undefined);
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    if (!batch.length) return;
    const texts = new Map<string, Pending>();
    const refs = new Map<string, Pending>();
    for (const p of batch) {
      texts.set(`${p.userId}:${p.layout.textHash}`, p);
      refs.set(`${p.userId}:${p.layout.ref}`, p);
    }
    await this.services.db.transaction(async (tx) => {
      await insertRows(tx, [...texts.values()], 4, (p) => [p.userId, p.layout.textHash, p.text, Buffer.byteLength(p.text)],
        'insert into marker_texts (user_id, text_hash, content, bytes) values {rows} on conflict (user_id, text_hash) do update set used_at = now()');
      // A ref that exists already is the same layout (it hashes the text and its spans): kept as is.
      await insertRows(tx, [...refs.values()], 4, (p) => [p.userId, p.layout.ref, p.layout.textHash, p.layout.spans.join(',')],
        'insert into marker_refs (user_id, ref, text_hash, spans) values {rows} on conflict (user_id, ref) do nothing');
    });
    if (Date.now() - this.lastSweep > SWEEP_EVERY_MS) {
      this.lastSweep = Date.now();
      await sweepMarkers(this.services.db);
    }
  }
}

async function insertRows<T>(db: Queryable, rows: T[], width: number, values: (row: T) => unknown[], sql: string): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    const chunk = rows.slice(i, i + CHUNK);
    const tuples = chunk.map((_, r) => `(${Array.from({ length: width }, (_, c) => `$${r * width + c + 1}`).join(', ')})`);
    await db.query(sql.replace('{rows}', tuples.join(', ')), chunk.flatMap(values));
  }
}

/** Retention and the per-owner size cap; refs go with their original (on delete cascade). */
export async function sweepMarkers(db: Queryable, maxBytes = MARKER_MAX_BYTES): Promise<void> {
  await db.query(`delete from marker_texts where used_at < now() - make_interval(days => $1)`, [MARKER_RETENTION_DAYS]);
  await db.query(
    `delete from marker_texts t using (
       select user_id, text_hash, sum(bytes) over (partition by user_id order by used_at desc, text_hash) as running from marker_texts
     ) r where t.user_id = r.user_id and t.text_hash = r.text_hash and r.running > $1`,
    [maxBytes],
  );
}

const writers = new WeakMap<object, MarkerWriter>();
function writerOf(services: Pick<Services, 'db' | 'background'>): MarkerWriter {
  let w = writers.get(services.db);
  if (!w) writers.set(services.db, (w = new MarkerWriter(services)));
  return w;
}

/** Queues an output's layout; the request does not wait for the write. */
export function rememberMarkers(services: Pick<Services, 'db' | 'background'>, userId: string, text: string, layout: MarkerLayout | undefined): void {
  if (layout && layout.spans.length) writerOf(services).add({ userId, text, layout });
}

/** The owner's stored layouts and originals for these refs (another owner's read as absent). */
export async function loadLayouts(services: Pick<Services, 'db' | 'background'>, userId: string, refs: string[]) {
  await writerOf(services).settled();
  const rows = await services.db.query<{ ref: string; spans: string; content: string; text_hash: string }>(
    `select r.ref, r.spans, t.content, t.text_hash from marker_refs r
       join marker_texts t on t.user_id = r.user_id and t.text_hash = r.text_hash
      where r.user_id = $1 and r.ref = any($2::text[])`,
    [userId, refs],
  );
  if (rows.length) {
    await services.db.query('update marker_texts set used_at = now() where user_id = $1 and text_hash = any($2::text[])', [userId, [...new Set(rows.map((r) => r.text_hash))]]);
  }
  return new Map(rows.map((r) => [r.ref, { spans: r.spans.split(',').map(Number), content: r.content }]));
}

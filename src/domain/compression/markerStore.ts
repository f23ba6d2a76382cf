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
/** Layouts per insert statement. */
const CHUNK = 100;
/**
 * A layout this process stored this recently is not written again, so the same text compressed again
 * costs no statement (each one is >= 130 µs of event-loop CPU on PGlite). Its original's used_at then
 * lags by at most this long, against a 30-day retention. A sweep in this process forgets the set; a
 * sweep elsewhere (another instance, only for an owner past MARKER_MAX_BYTES) could leave a recent
 * id unexpandable until its entry expires.
 */
const RECENT_MS = 5 * 60 * 1000;
const RECENT_MAX = 10_000;

interface Pending {
  userId: string;
  text: string;
  layout: MarkerLayout;
}

/** Keys written recently, oldest first (Map order), at most RECENT_MAX of them. */
class RecentKeys {
  private readonly at = new Map<string, number>();

  has(key: string, now: number): boolean {
    const t = this.at.get(key);
    if (t === undefined) return false;
    if (now - t < RECENT_MS) return true;
    this.at.delete(key);
    return false;
  }

  add(key: string, now: number): void {
    this.at.delete(key);
    this.at.set(key, now);
    if (this.at.size > RECENT_MAX) this.at.delete(this.at.keys().next().value!);
  }

  clear(): void {
    this.at.clear();
  }
}

/** One queue per service set: the first write of a burst schedules one flush for all of it. */
class MarkerWriter {
  private queue: Pending[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private scheduled = false;
  private lastSweep = 0;
  readonly recent = new RecentKeys();

  constructor(private readonly services: Pick<Services, 'db' | 'background'>) {}

  add(item: Pending): void {
    if (this.recent.has(`${item.userId}:${item.layout.ref}`, Date.now())) return;
    this.queue.push(item);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flushing = this.next();
      this.services.background.add('marker store', this.flushing);
    });
  }

  /** Resolves once everything queued so far is stored (expand reads after it). */
  async settled(): Promise<void> {
    if (this.queue.length) {
      this.flushing = this.next();
      this.services.background.add('marker store', this.flushing);
    }
    await this.flushing.catch(() => undefined);
  }

  /** The next flush, after the one in progress whatever its outcome (a failed one was logged). */
  private next(): Promise<void> {
    return this.flushing.catch(() => undefined).then(() => this.flush());
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    const layouts = new Map<string, Pending>();
    for (const p of batch) layouts.set(`${p.userId}:${p.layout.ref}`, p);
    const items = [...layouts];
    for (let i = 0; i < items.length; i += CHUNK) {
      const chunk = items.slice(i, i + CHUNK);
      await storeLayouts(this.services.db, chunk.map(([, p]) => p));
      const now = Date.now();
      for (const [key] of chunk) this.recent.add(key, now);
    }
    if (Date.now() - this.lastSweep > SWEEP_EVERY_MS) {
      this.lastSweep = Date.now();
      await sweepMarkers(this.services.db);
    }
  }
}

const placeholders = (rows: number, width: number, from: number) =>
  Array.from({ length: rows }, (_, r) => `(${Array.from({ length: width }, (_, c) => `$${from + r * width + c + 1}`).join(', ')})`).join(', ');

/**
 * Originals and refs in one statement (atomic on its own, so no transaction): the foreign key from a
 * ref to its original is checked at the statement's end, after the CTE's insert. An original used in
 * the last RECENT_MS keeps its used_at (no row rewrite); a ref that exists is the same layout (it
 * hashes the text and its spans) and is kept as is.
 */
async function storeLayouts(db: Queryable, layouts: Pending[]): Promise<void> {
  const texts = new Map<string, Pending>();
  for (const p of layouts) texts.set(`${p.userId}:${p.layout.textHash}`, p);
  const textRows = [...texts.values()].flatMap((p) => [p.userId, p.layout.textHash, p.text, Buffer.byteLength(p.text)]);
  const refRows = layouts.flatMap((p) => [p.userId, p.layout.ref, p.layout.textHash, p.layout.spans.join(',')]);
  await db.query(
    `with texts as (
       insert into marker_texts (user_id, text_hash, content, bytes) values ${placeholders(texts.size, 4, 0)}
       on conflict (user_id, text_hash) do update set used_at = now()
       where marker_texts.used_at < now() - make_interval(secs => ${RECENT_MS / 1000}))
     insert into marker_refs (user_id, ref, text_hash, spans) values ${placeholders(layouts.length, 4, textRows.length)}
     on conflict (user_id, ref) do nothing`,
    [...textRows, ...refRows],
  );
}

/** Retention and the per-owner size cap; refs go with their original (on delete cascade). */
export async function sweepMarkers(db: Queryable, maxBytes = MARKER_MAX_BYTES): Promise<void> {
  // What it deletes must be written again when next compressed.
  writers.get(db)?.recent.clear();
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

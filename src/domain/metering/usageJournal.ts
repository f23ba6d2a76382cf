import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../lib/log.js';
import { insertUsageRows, usageRowJson, type UsageDb, type UsageEventInput, type UsageWriter } from './usage.js';

/**
 * Events gathered before one INSERT when nobody waits to read them; calls never wait for it. Each
 * statement has a fixed cost on the PGlite thread (its commit's file work), so rows are cheap only in
 * big batches: a COPY of 15 rows cost 165-300 µs of CPU per row, one of 300 rows 48-73 (loaded
 * 2-core host, 2026-12-03). At a few hundred calls/s, 50 ms gathered batches of 15-40.
 */
export const JOURNAL_GATHER_MS = 250;
/** Rows per INSERT statement. */
const MAX_BATCH = 1000;
/** Journaled but uncommitted events past which calls wait for the commit again (bounds memory when the database lags). */
const MAX_BACKLOG = 20_000;
/** Wait before retrying a batch the database could not take. */
const RETRY_MS = 1000;

const SEGMENT = /^usage-(\d{12})\.ndjson$/;
const segmentName = (n: number) => `usage-${String(n).padStart(12, '0')}.ndjson`;

interface Recorded {
  seq: number;
  row: string;
  resolve(): void;
  reject(err: unknown): void;
}

interface Waiter {
  seq: number;
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * Usage events for the embedded database: a call is answered once its event is appended to a journal
 * file (write(2) has returned, so it survives kill -9 like PGlite's own files), and the events reach
 * the database in batches gathered over JOURNAL_GATHER_MS (or MAX_BATCH rows). A busy service thus
 * writes one INSERT per batch instead of one per call or two, and no call waits for the database thread.
 *
 * The journal is a run of segment files in `dir`. Each flush seals the current segment; a segment is
 * removed once every event in it has committed. Segments a killed process left behind are replayed at
 * the next start (`recover`, before listening); rows carry their own ids, so an event that was
 * committed but whose segment survived is skipped by the INSERT's `on conflict`.
 */
export class JournaledUsageWriter implements UsageWriter {
  private fd: number | null = null;
  private nextSegment: number;
  /** Sealed segments and the last event sequence number each holds, oldest first. */
  private sealed: { path: string; lastSeq: number }[] = [];
  /** Recorded in this turn of the event loop, not yet journaled. */
  private turn: Recorded[] = [];
  private turnScheduled = false;
  /** Journaled, not yet in a batch, oldest first. */
  private unflushed: { seq: number; row: string }[] = [];
  private recorded = 0;
  private committed = 0;
  private waiters: Waiter[] = [];
  private inFlight: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  private constructor(
    private readonly db: UsageDb,
    private readonly dir: string,
    private readonly log: Pick<Logger, 'error' | 'info'>,
    leftovers: number,
  ) {
    this.nextSegment = leftovers + 1;
  }

  /** Opens the journal in `dir` and first writes to the database what a previous process left there. */
  static async open(db: UsageDb, dir: string, log: Pick<Logger, 'error' | 'info'>): Promise<JournaledUsageWriter> {
    mkdirSync(dir, { recursive: true });
    const segments = readdirSync(dir).filter((f) => SEGMENT.test(f)).sort();
    const last = segments.length ? Number(SEGMENT.exec(segments.at(-1)!)![1]) : 0;
    await recover(db, dir, segments, log);
    return new JournaledUsageWriter(db, dir, log, last);
  }

  record(event: UsageEventInput): Promise<void> {
    if (this.closed) return Promise.reject(new Error('usage writer is closed'));
    const row = usageRowJson(event.at ? event : { ...event, at: new Date() });
    const seq = ++this.recorded;
    return new Promise<void>((resolve, reject) => {
      this.turn.push({ seq, row, resolve, reject });
      if (this.turnScheduled) return;
      // The calls answered in this turn of the event loop share one write(2).
      this.turnScheduled = true;
      setImmediate(() => this.journalTurn());
    });
  }

  hasUncommitted(): boolean {
    return this.committed < this.recorded;
  }

  visible(): Promise<void> {
    if (!this.hasUncommitted()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ seq: this.recorded, resolve, reject });
      this.journalTurn();
      this.schedule();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.journalTurn();
    // Everything goes to the database now; what it cannot take stays in the journal for the next start.
    while (this.unflushed.length || this.inFlight) {
      if (!this.inFlight) this.flush();
      const ok = await this.inFlight!.then(() => true, () => false);
      if (!ok) break;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.closeSegment();
  }

  /** Appends this turn's events to the journal and acknowledges them (or, with a backlog, lets them wait for their commit). */
  private journalTurn(thenSchedule = true): void {
    this.turnScheduled = false;
    if (!this.turn.length) return;
    const entries = this.turn.splice(0);
    let journaled = true;
    try {
      this.append(entries.map((e) => e.row + '\n').join(''));
    } catch (err) {
      // A full or failing disk: the calls then wait for the database as without a journal.
      journaled = false;
      this.log.error('usage journal write failed; calls wait for the database', { error: err instanceof Error ? err.message : String(err) });
    }
    for (const e of entries) this.unflushed.push({ seq: e.seq, row: e.row });
    const backlog = this.recorded - this.committed > MAX_BACKLOG;
    for (const e of entries) {
      if (journaled && !backlog) e.resolve();
      else this.waiters.push(e);
    }
    if (thenSchedule) this.schedule();
  }

  private append(text: string): void {
    // Owner-only: lines hold key ids and input previews, like the database's own files.
    if (this.fd === null) this.fd = openSync(join(this.dir, segmentName(this.nextSegment++)), 'a', 0o600);
    const bytes = Buffer.from(text);
    let off = 0;
    while (off < bytes.length) off += writeSync(this.fd, bytes, off);
  }

  /** Starts a batch now when someone waits or a batch is full, else within the gather window. */
  private schedule(): void {
    if (this.inFlight || !this.unflushed.length) return;
    if (this.waiters.length || this.unflushed.length >= MAX_BATCH || this.closed) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      this.flush();
    } else if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.flush();
      }, JOURNAL_GATHER_MS);
      this.timer.unref();
    }
  }

  private closeSegment(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.sealed.push({ path: join(this.dir, segmentName(this.nextSegment - 1)), lastSeq: this.recorded });
    this.fd = null;
  }

  private flush(): void {
    this.journalTurn(false);
    if (this.inFlight || !this.unflushed.length) return;
    // Later events go to a new segment; this one can go once everything up to here has committed.
    this.closeSegment();
    const batch = this.unflushed.splice(0);
    this.inFlight = this.write(batch).finally(() => {
      this.inFlight = null;
      if (!this.closed || this.unflushed.length) this.schedule();
    });
    this.inFlight.catch(() => undefined);
  }

  private async write(batch: { seq: number; row: string }[]): Promise<void> {
    let done = 0;
    try {
      await insertInChunks(this.db, batch.map((e) => e.row), this.log, (n) => (done = n));
    } catch (err) {
      // The database is unavailable: the rest goes first in the next batch, after a pause.
      this.unflushed.unshift(...batch.slice(done));
      const upTo = this.unflushed.at(-1)!.seq;
      for (const w of this.waiters.splice(0)) {
        if (w.seq <= upTo) w.reject(err);
        else this.waiters.push(w);
      }
      if (!this.closed) await new Promise((r) => setTimeout(r, RETRY_MS).unref());
      throw err;
    }
    this.committed = Math.max(this.committed, batch.at(-1)!.seq);
    this.waiters = this.waiters.filter((w) => (w.seq <= this.committed ? (w.resolve(), false) : true));
    while (this.sealed.length && this.sealed[0]!.lastSeq <= this.committed) removeSegment(this.sealed.shift()!.path, this.log);
  }
}

/** Rows in INSERTs of at most MAX_BATCH; `committed` hears how many rows are in after each one. */
async function insertInChunks(db: UsageDb, rows: readonly string[], log: Pick<Logger, 'error'>, committed?: (n: number) => void): Promise<void> {
  for (let i = 0; i < rows.length; i += MAX_BATCH) {
    await insertUsageRows(db, rows.slice(i, i + MAX_BATCH), log);
    committed?.(Math.min(rows.length, i + MAX_BATCH));
  }
}

function removeSegment(path: string, log: Pick<Logger, 'error'>): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log.error('usage journal segment not removed', { path, error: String(err) });
  }
}

/** Writes the events of segments a previous process left, then removes them. A torn last line (power loss) is skipped. */
async function recover(db: UsageDb, dir: string, segments: string[], log: Pick<Logger, 'error' | 'info'>): Promise<void> {
  let events = 0;
  for (const name of segments) {
    const path = join(dir, name);
    const rows = readFileSync(path, 'utf8').split('\n').filter((line) => {
      if (!line) return false;
      try {
        JSON.parse(line);
        return true;
      } catch {
        log.error('usage journal line skipped (not JSON)', { path, bytes: line.length });
        return false;
      }
    });
    await insertInChunks(db, rows, log);
    events += rows.length;
    removeSegment(path, log);
  }
  if (segments.length) log.info('usage journal replayed', { segments: segments.length, events });
}

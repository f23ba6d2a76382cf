// The loop the database-leased background workers share (workflow runs, experiment runs, queued batch
// documents): claim work whose lease this instance now holds, run up to `concurrency` items at once,
// renew the leases of the items in flight on a heartbeat, poll for queued and abandoned work, and on
// close abort what runs so the next process resumes it. Every worker claims with leaseClaimSql (one
// statement, `for update skip locked`) and keeps its own store statements; every write it makes stays
// conditioned on still holding the lease.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from '../../lib/log.js';

export interface LeaseLoopSettings {
  pollMs: number;
  leaseMs: number;
  concurrency: number;
}

/** An item in flight, as the heartbeat sees it. */
export interface InFlight<T> {
  item: T;
  abort(reason: string): void;
}

/** What a leased worker's claim takes: rows of `table` keyed by `key`, waiting in status `ready`. */
export interface LeaseClaim {
  table: string;
  /** The row's key columns: ['id'], ['job_id', 'ordinal']. */
  key: readonly string[];
  /** The status of rows waiting to be claimed ('queued', 'pending'). */
  ready: string;
  /** Which rows go first. */
  order: string;
  /** More assignments made by the claim ('started_at = coalesce(started_at, now())'). */
  set?: string;
  returning: string;
}

/**
 * The one claim statement of every leased worker (parameters $1 owner, $2 lease in ms, $3 how many):
 * rows waiting, or running with a lapsed lease (their process died), oldest first, each taken by one
 * instance only (`for update skip locked`: rows another instance is claiming are passed over, not
 * waited for), now running, leased to $1 and counting one attempt more.
 */
export function leaseClaimSql(c: LeaseClaim): string {
  const key = c.key.length === 1 ? c.key[0]! : `(${c.key.join(', ')})`;
  return `update ${c.table} set status = 'running', lease_owner = $1, lease_expires_at = now() + ($2::int * interval '1 millisecond'), attempts = attempts + 1${c.set ? `, ${c.set}` : ''}
     where ${key} in (select ${c.key.join(', ')} from ${c.table}
                         where status = '${c.ready}' or (status = 'running' and (lease_expires_at is null or lease_expires_at < now()))
                         order by ${c.order} limit $3 for update skip locked)
     returning ${c.returning}`;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export abstract class LeasedRunner<T> {
  readonly instanceId = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private closed = true;
  private timer: NodeJS.Timeout | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private readonly active = new Map<string, { item: T; controller: AbortController; done: Promise<void> }>();
  /** Items claimed (leased to this instance) and not started yet. */
  private buffer: T[] = [];
  private filling: Promise<void> | null = null;
  private again = false;

  constructor(
    protected readonly loop: LeaseLoopSettings,
    protected readonly log: Logger,
    /** What the log lines call the work ('run', 'experiment', 'batch queue'). */
    private readonly label: string,
  ) {}

  /** Claims up to `limit` items, each now leased to this instance (none: nothing to do). */
  protected abstract claim(limit: number): Promise<T[]>;
  /** Runs one claimed item; `signal` aborts with the heartbeat's reason, or 'shutdown' on close. */
  protected abstract execute(item: T, signal: AbortSignal): Promise<void>;
  /** Renews the leases of the items in flight (and of those claimed ahead, `buffered`); may abort some. */
  protected abstract renew(inFlight: InFlight<T>[], buffered: T[]): Promise<void>;
  protected abstract keyOf(item: T): string;
  /** Log fields naming an item. */
  protected abstract describe(item: T): Record<string, unknown>;
  /** How many items one claim takes: more than one saves claims when items are short. */
  protected claimSize(): number {
    return 1;
  }
  /** After close stopped every item: hands back leases still held (`buffered` were claimed, never started). */
  protected async released(_buffered: T[]): Promise<void> {}

  /** Starts polling for queued and abandoned work (a previous process's work resumes here). */
  protected startLoop(): void {
    this.closed = false;
    this.timer = setInterval(() => this.kick(), this.loop.pollMs);
    this.timer.unref();
    // A third of the lease, within 0.1-1 s: a lease survives two missed beats.
    this.heartbeat = setInterval(() => void this.beat(), Math.max(100, Math.min(1000, Math.floor(this.loop.leaseMs / 3))));
    this.heartbeat.unref();
    this.kick();
  }

  /** Looks for work now (some was just queued). */
  kick(): void {
    if (this.closed) return;
    if (this.filling) {
      this.again = true;
      return;
    }
    this.filling = this.fill()
      .catch((err) => this.log.warn(`${this.label} claim failed`, { error: message(err) }))
      .finally(() => {
        this.filling = null;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Items executing in this process now (tests, diagnostics). */
  get running(): number {
    return this.active.size;
  }

  /** Stops claiming, aborts the items in flight ('shutdown') and waits for them. Call before the pool and the database close. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.timer = this.heartbeat = null;
    await this.filling;
    for (const { controller } of this.active.values()) controller.abort('shutdown');
    await Promise.allSettled([...this.active.values()].map((a) => a.done));
    await this.released(this.buffer.splice(0));
  }

  /**
   * A renew for leases held one row per item: `renewOne` renews an item's lease and says why it must
   * stop ('lost', 'cancel') or null; a failed renewal is logged and tried again on the next beat.
   */
  protected async renewEach(inFlight: InFlight<T>[], renewOne: (item: T) => Promise<string | null>): Promise<void> {
    await Promise.all(
      inFlight.map(async ({ item, abort }) => {
        try {
          const stop = await renewOne(item);
          if (stop) abort(stop);
        } catch (err) {
          this.log.warn(`${this.label} heartbeat failed`, { ...this.describe(item), error: message(err) });
        }
      }),
    );
  }

  private async beat(): Promise<void> {
    if (this.closed || (!this.active.size && !this.buffer.length)) return;
    const inFlight = [...this.active.values()].map(({ item, controller }) => ({ item, abort: (reason: string) => controller.abort(reason) }));
    await this.renew(inFlight, this.buffer).catch((err) => this.log.warn(`${this.label} heartbeat failed`, { error: message(err) }));
  }

  private async fill(): Promise<void> {
    while (!this.closed && this.active.size < this.loop.concurrency) {
      if (!this.buffer.length) this.buffer = await this.claim(this.claimSize());
      const item = this.buffer.shift();
      if (!item) return;
      const key = this.keyOf(item);
      const controller = new AbortController();
      const done = this.execute(item, controller.signal)
        .catch((err) => this.log.error(`${this.label} execution failed`, { ...this.describe(item), error: message(err) }))
        .finally(() => {
          this.active.delete(key);
          this.kick();
        });
      this.active.set(key, { item, controller, done });
    }
  }
}

import type { CircuitBreaker } from '../../lib/breaker.js';
import type { EmailMessage, EmailProvider } from '../../providers/email.js';
import type { Queryable } from '../../store/db.js';
import { deliverWebhook } from '../federation/webhooks.js';

/**
 * Transactional outbox. Producers insert a row (in the same transaction as the record it is
 * about); the sender leases due rows, delivers them through the e-mail provider and marks them
 * delivered, or reschedules them with exponential back-off. A row is only ever "delivered" after
 * the provider accepted it, so an outage loses nothing: the rows wait and go out after recovery.
 */

export type OutboxKind = 'email' | 'webhook';

export async function enqueueEmail(db: Queryable, message: EmailMessage): Promise<string> {
  const [row] = await db.query<{ id: string }>(`insert into outbox (kind, payload) values ('email', $1::text::jsonb) returning id`, [
    JSON.stringify(message),
  ]);
  return row!.id;
}

export interface OutboxRow {
  id: string;
  kind: string;
  /** An EmailMessage (kind email) or a webhook event delivery (kind webhook). */
  payload: unknown;
  status: string;
  attempts: number;
  next_attempt_at: Date;
  last_error: string | null;
  delivered_at: Date | null;
}

export interface OutboxSenderOptions {
  pollMs: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  maxAttempts: number;
  /** How long a leased row stays invisible to other senders (instances) while it is being sent. */
  leaseMs?: number;
  batch?: number;
}

export function backoffMs(attempts: number, base: number, max: number): number {
  return Math.min(max, base * 2 ** Math.max(0, attempts - 1));
}

export class OutboxSender {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;
  private stopped = false;

  constructor(
    private readonly db: Queryable,
    private readonly email: EmailProvider,
    private readonly breaker: CircuitBreaker,
    private readonly options: OutboxSenderOptions,
    private readonly log: { error(message: string, fields?: Record<string, unknown>): void },
  ) {}

  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => {
      void this.drainOnce().catch((err) => this.log.error('outbox drain failed', { error: (err as Error).message }));
    }, this.options.pollMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => 0);
  }

  /** One pass over the due rows; returns how many were delivered. Passes never overlap. */
  drainOnce(): Promise<number> {
    if (this.running) return this.running;
    this.running = this.pass().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async pass(): Promise<number> {
    const lease = this.options.leaseMs ?? 60_000;
    const rows = await this.db.query<OutboxRow & { lease: string }>(
      `update outbox set next_attempt_at = now() + ($1::int * interval '1 millisecond')
        where id in (select id from outbox where status = 'pending' and next_attempt_at <= now()
                      order by next_attempt_at limit $2 for update skip locked)
        returning id, kind, payload, status, attempts, next_attempt_at, last_error, delivered_at, next_attempt_at::text as lease`,
      [lease, this.options.batch ?? 20],
    );
    let delivered = 0;
    for (const row of rows) {
      if (this.stopped) break;
      // The pass leased every row at its start; rows wait their turn behind slow deliveries. Send a row
      // only if the lease is still ours (renewed now): once it lapsed another instance may have taken it.
      if (!(await this.stillLeased(row.id, row.lease, lease))) continue;
      // The breaker guards the e-mail provider; webhook rows (each its own receiver) retry on their own.
      const guarded = row.kind === 'email';
      if (guarded && !this.breaker.allow()) {
        // Provider known to be down: wait for the breaker's cool-down without spending an attempt.
        await this.db.query(`update outbox set next_attempt_at = now() + interval '1 second' where id = $1`, [row.id]);
        continue;
      }
      try {
        await this.deliver(row);
        if (guarded) this.breaker.success();
        await this.db.query(`update outbox set status = 'delivered', delivered_at = now(), attempts = attempts + 1, last_error = null where id = $1`, [row.id]);
        delivered++;
      } catch (err) {
        if (guarded) this.breaker.failure();
        const attempts = row.attempts + 1;
        const dead = attempts >= this.options.maxAttempts;
        const wait = backoffMs(attempts, this.options.backoffBaseMs, this.options.backoffMaxMs);
        await this.db.query(
          `update outbox set attempts = $2, last_error = $3, status = $4,
                  next_attempt_at = now() + ($5::int * interval '1 millisecond') where id = $1`,
          [row.id, attempts, String((err as Error).message ?? err).slice(0, 500), dead ? 'dead' : 'pending', wait],
        );
        if (dead) this.log.error('outbox row gave up', { id: row.id, attempts });
      }
    }
    return delivered;
  }

  /** Renews the row's lease if it is still the one this pass took (compared to the microsecond). */
  private async stillLeased(id: string, taken: string, leaseMs: number): Promise<boolean> {
    const rows = await this.db.query(
      `update outbox set next_attempt_at = now() + ($3::int * interval '1 millisecond')
        where id = $1 and status = 'pending' and next_attempt_at = $2::text::timestamptz and next_attempt_at > now() returning id`,
      [id, taken, leaseMs],
    );
    return rows.length > 0;
  }

  private async deliver(row: OutboxRow): Promise<void> {
    if (row.kind === 'email') return this.email.send(row.payload as EmailMessage, row.id);
    if (row.kind === 'webhook') return deliverWebhook(this.db, row.payload as Parameters<typeof deliverWebhook>[1]);
    throw new Error(`unknown outbox kind ${row.kind}`);
  }
}

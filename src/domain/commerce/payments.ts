import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Principal } from '../../auth/principal.js';
import type { Services } from '../../services.js';
import type { Queryable } from '../../store/db.js';
import { iso } from '../../lib/time.js';

/**
 * Payment-signature headers on /v1/compress and /v1/compress-code (the spec leaves the names
 * open; docs/commerce.md documents them):
 *
 *   X-Payment-Facilitator: x402 | stripe_acp | skyfire
 *   X-Payment-Signature:   <base64url(JSON payload)>.<base64url(HMAC-SHA256(secret, first part))>
 *
 * payload: { "payment_id": string (1-200 chars), "amount_micros": integer >= 0 }.
 * When a shared secret is configured for the facilitator (PAYMENT_SECRET_<NAME>) the MAC must
 * verify and the event is recorded with settlement_status "pending" (awaiting the facilitator's
 * asynchronous settlement); without a secret it is recorded as "unverified". The service holds no
 * funds: it records the charge event for the facilitator to bill.
 */

export const FACILITATORS = ['x402', 'stripe_acp', 'skyfire'] as const;
export type Facilitator = (typeof FACILITATORS)[number];
export const PAYMENT_SIGNATURE_HEADER = 'x-payment-signature';
export const PAYMENT_FACILITATOR_HEADER = 'x-payment-facilitator';

export function signPaymentPayload(payload: { payment_id: string; amount_micros: number }, secret: string): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${createHmac('sha256', secret).update(body).digest('base64url')}`;
}

export type PaymentOutcome =
  | { recorded: true; duplicate: boolean; event_id: string; settlement_status: string }
  | { recorded: false; reason: string };

export function parsePaymentHeaders(
  headers: Record<string, string>,
  secrets: Record<string, string | null>,
): { ok: true; facilitator: Facilitator; paymentId: string; amountMicros: number; verified: boolean } | { ok: false; reason: string } | null {
  const signature = headers[PAYMENT_SIGNATURE_HEADER];
  if (!signature) return null;
  const facilitator = (headers[PAYMENT_FACILITATOR_HEADER] ?? '').trim().toLowerCase();
  if (!(FACILITATORS as readonly string[]).includes(facilitator)) return { ok: false, reason: `unknown facilitator; expected one of ${FACILITATORS.join(', ')}` };
  const [body, mac, extra] = signature.split('.');
  if (!body || !mac || extra !== undefined) return { ok: false, reason: 'malformed payment signature' };
  let payload: { payment_id?: unknown; amount_micros?: unknown };
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed payment signature payload' };
  }
  if (typeof payload.payment_id !== 'string' || payload.payment_id.length < 1 || payload.payment_id.length > 200) return { ok: false, reason: 'payment_id missing or invalid' };
  if (typeof payload.amount_micros !== 'number' || !Number.isSafeInteger(payload.amount_micros) || payload.amount_micros < 0) return { ok: false, reason: 'amount_micros missing or invalid' };
  const secret = secrets[facilitator] ?? null;
  let verified = false;
  if (secret) {
    const expected = Buffer.from(createHmac('sha256', secret).update(body).digest('base64url'));
    const given = Buffer.from(mac);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'payment signature does not verify' };
    verified = true;
  }
  return { ok: true, facilitator: facilitator as Facilitator, paymentId: payload.payment_id, amountMicros: payload.amount_micros, verified };
}

/**
 * Records the charge event when the request carries payment-signature headers; null when it does
 * not. Idempotent per (facilitator, payment_id). Never throws for a bad header: the outcome says why.
 */
export async function recordPaymentSignature(
  services: Pick<Services, 'db' | 'commerce'>,
  principal: Principal,
  headers: Record<string, string>,
  tokensSaved: number,
  secrets: Record<string, string | null> = services.commerce.settings.paymentSecrets,
): Promise<PaymentOutcome | null> {
  const parsed = parsePaymentHeaders(headers, secrets);
  if (!parsed) return null;
  if (!parsed.ok) return { recorded: false, reason: parsed.reason };
  const status = parsed.verified ? 'pending' : 'unverified';
  const [row] = await services.db.query<{ id: string; settlement_status: string }>(
    `insert into payment_events (user_id, project_id, facilitator, settlement_status, payment_id, amount_charged_micros, tokens_saved)
     values ($1, $2, $3, $4, $5, $6, $7) on conflict (facilitator, payment_id) do nothing returning id, settlement_status`,
    [principal.userId, principal.projectId, parsed.facilitator, status, parsed.paymentId, parsed.amountMicros, Math.max(0, Math.round(tokensSaved))],
  );
  if (row) return { recorded: true, duplicate: false, event_id: row.id, settlement_status: row.settlement_status };
  const [prior] = await services.db.query<{ id: string; settlement_status: string }>(
    'select id, settlement_status from payment_events where facilitator = $1 and payment_id = $2',
    [parsed.facilitator, parsed.paymentId],
  );
  return { recorded: true, duplicate: true, event_id: prior!.id, settlement_status: prior!.settlement_status };
}

export interface ReconciliationQuery {
  userId: string | null;
  from: Date;
  /**
   * Exclusive end; absent means up to the newest event, reported as now. A bound taken from the
   * service's clock would hide an event stored in the same millisecond (the column keeps µs) or by
   * a database whose clock runs ahead of this host's.
   */
  to?: Date;
  facilitator?: Facilitator;
  limit: number;
}

export async function reconciliation(db: Queryable, q: ReconciliationQuery) {
  const where = ['created_at >= $1'];
  const params: unknown[] = [q.from];
  if (q.to) {
    params.push(q.to);
    where.push(`created_at < $${params.length}`);
  }
  if (q.userId) {
    params.push(q.userId);
    where.push(`user_id = $${params.length}`);
  }
  if (q.facilitator) {
    params.push(q.facilitator);
    where.push(`facilitator = $${params.length}`);
  }
  params.push(q.limit);
  const rows = await db.query<{
    id: string; user_id: string; project_id: string | null; facilitator: string; settlement_status: string;
    payment_id: string; amount_charged_micros: string | number; tokens_saved: number; created_at: Date;
  }>(
    `select id, user_id, project_id, facilitator, settlement_status, payment_id, amount_charged_micros, tokens_saved, created_at
       from payment_events where ${where.join(' and ')} order by created_at, id limit $${params.length}`,
    params,
  );
  const events = rows.map((r) => ({
    id: r.id,
    user_id: r.user_id,
    project_id: r.project_id,
    facilitator: r.facilitator,
    settlement_status: r.settlement_status,
    payment_id: r.payment_id,
    amount_charged_micros: Number(r.amount_charged_micros),
    tokens_saved: r.tokens_saved,
    created_at: iso(r.created_at),
  }));
  return { events, count: events.length, window: { from: q.from.toISOString(), to: (q.to ?? new Date()).toISOString() } };
}

/**
 * The call /v1/compress and /v1/compress-code make after a successful compression: records the
 * charge in the background (shutdown waits for it) so the answer is not delayed. A header that
 * does not parse or verify is logged and not recorded.
 */
export function recordPaymentInBackground(
  services: Pick<Services, 'db' | 'background' | 'log' | 'commerce'>,
  principal: Principal,
  headers: Record<string, string>,
  tokensSaved: number,
): void {
  if (!headers[PAYMENT_SIGNATURE_HEADER]) return;
  services.background.add(
    'payment event',
    recordPaymentSignature(services, principal, headers, tokensSaved).then((outcome) => {
      if (outcome && !outcome.recorded) services.log.warn('payment signature not recorded', { reason: outcome.reason, user_id: principal.userId });
    }),
  );
}

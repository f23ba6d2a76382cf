// The user's webhooks and the events pushed to them. An event is written to the outbox in the same
// transaction as the change it reports; the outbox sender delivers it (POST, JSON) signed with the
// webhook's secret: X-GC-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>.
// The secret is stored sealed (webhookSecrets.ts) and shown once, in the creation answer.
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Principal } from '../../auth/principal.js';
import type { Queryable } from '../../store/db.js';
import { invalid, notFound } from '../errors.js';
import { UUID } from '../knowledge/items.js';
import { checkTarget, postJson } from './urls.js';
import { openWebhookSecret, sealWebhookSecret } from './webhookSecrets.js';
import { iso } from '../../lib/time.js';

export const WEBHOOK_EVENTS = ['a2a.task.status'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];
export const MAX_WEBHOOKS_PER_USER = 20;

export interface WebhookRow {
  id: string;
  user_id: string;
  url: string;
  events: string[];
  /** Sealed ("sealed:<key>:<box>"); the plain secret only in the row createWebhook returns. */
  secret: string;
  created_at: Date;
}

export async function createWebhook(db: Queryable, principal: Principal, input: { url: string; events?: WebhookEvent[] }): Promise<WebhookRow> {
  await checkTarget(db, input.url, 'url', true);
  const [{ n }] = (await db.query<{ n: number }>('select count(*)::int as n from user_webhooks where user_id = $1', [principal.userId])) as [{ n: number }];
  if (n >= MAX_WEBHOOKS_PER_USER) throw invalid(`At most ${MAX_WEBHOOKS_PER_USER} webhooks per user`);
  const secret = `whsec_${randomBytes(24).toString('hex')}`;
  const id = randomUUID();
  const [row] = await db.query<WebhookRow>(
    'insert into user_webhooks (id, user_id, url, events, secret) values ($1, $2, $3, $4, $5) returning *',
    [id, principal.userId, input.url, input.events?.length ? [...new Set(input.events)] : [...WEBHOOK_EVENTS], await sealWebhookSecret(db, id, secret)],
  );
  return { ...row!, secret };
}

export async function listWebhooks(db: Queryable, principal: Principal): Promise<WebhookRow[]> {
  return db.query<WebhookRow>('select * from user_webhooks where user_id = $1 order by created_at, id', [principal.userId]);
}

export async function deleteWebhook(db: Queryable, principal: Principal, id: string): Promise<void> {
  if (!UUID.test(id)) throw notFound(`Webhook '${id}' not found`);
  const rows = await db.query('delete from user_webhooks where id = $1 and user_id = $2 returning id', [id, principal.userId]);
  if (rows.length === 0) throw notFound(`Webhook '${id}' not found`);
}

/** The secret is shown once, at creation. */
export function webhookResponse(w: WebhookRow, withSecret = false) {
  return {
    webhook_id: w.id,
    url: w.url,
    events: w.events,
    created_at: iso(w.created_at),
    ...(withSecret ? { secret: w.secret } : {}),
  };
}

export interface EventEnvelope {
  id: string;
  type: WebhookEvent;
  created_at: string;
  data: Record<string, unknown>;
}

/** Queues one delivery per webhook of the user that subscribes to the event (same transaction as the change). */
export async function enqueueEvent(tx: Queryable, userId: string, event: EventEnvelope): Promise<number> {
  const hooks = await tx.query<{ id: string }>('select id from user_webhooks where user_id = $1 and $2 = any(events)', [userId, event.type]);
  for (const h of hooks) {
    await tx.query(`insert into outbox (kind, payload) values ('webhook', $1::text::jsonb)`, [JSON.stringify({ webhook_id: h.id, event })]);
  }
  return hooks.length;
}

export function signatureHeader(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** Receiver side (tests, docs): checks X-GC-Signature over the body within a tolerance. */
export function verifySignature(secret: string, header: string | undefined, body: string, toleranceSeconds = 300, now = Date.now()): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '');
  if (!m) return false;
  const t = Number(m[1]);
  if (Math.abs(now / 1000 - t) > toleranceSeconds) return false;
  const expected = Buffer.from(signatureHeader(secret, t, body).split('v1=')[1]!, 'hex');
  return timingSafeEqual(expected, Buffer.from(m[2]!, 'hex'));
}

/** Outbox delivery of a 'webhook' row; throws on a non-2xx answer so the sender retries with back-off. */
export async function deliverWebhook(db: Queryable, payload: { webhook_id: string; event: EventEnvelope }): Promise<void> {
  const [hook] = await db.query<WebhookRow>('select * from user_webhooks where id = $1', [payload.webhook_id]);
  if (!hook) return; // deleted since: nothing to deliver
  const body = JSON.stringify(payload.event);
  const t = Math.floor(Date.now() / 1000);
  const res = await postJson(db, hook.url, body, {
    'x-gc-event': payload.event.type,
    'x-gc-event-id': payload.event.id,
    'x-gc-signature': signatureHeader(await openWebhookSecret(db, hook.id, hook.secret), t, body),
  });
  if (res.status < 200 || res.status >= 300) throw new Error(`webhook answered ${res.status}`);
}

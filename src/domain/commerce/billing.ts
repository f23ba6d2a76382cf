import { isPlan, type Plan } from '../../auth/plans.js';
import type { Principal } from '../../auth/principal.js';
import { unavailable } from '../errors.js';
import { ProviderRequestError, ProviderUnavailableError, type StripeSubscription } from '../../providers/stripe.js';
import type { Services } from '../../services.js';
import type { Queryable } from '../../store/db.js';
import { ifAdvisoryLockFree } from '../../store/advisoryLock.js';
import { audit } from '../audit/audit.js';
import type { Commerce } from './ports.js';
import { DEFAULT_BILLING_PRICING, type BillingPricing, type PlanPricing } from '../../commerceSettings.js';
import { iso, isoFromSeconds, nowIso } from '../../lib/time.js';
import { applyOnce } from '../platform/webhookEvents.js';

// ---------------------------------------------------------------------------------------------
// Overage math (spec): Pro and Team: overage = max(0, used - included); cost = overage x
// unit_amount_cents; billed = min(cost, cap). Free: zero overage. Enterprise: zero cost, included -1.
// ---------------------------------------------------------------------------------------------

export type { PlanPricing } from '../../commerceSettings.js';

/** Per-plan overage pricing; Pro and Team values come from the configuration (commerce.pricing, docs/commerce.md). */
export function planPricing(plan: Plan, pricing: BillingPricing = DEFAULT_BILLING_PRICING): PlanPricing {
  switch (plan) {
    case 'free':
      return { included_units: pricing.freeIncludedUnits, unit_amount_cents: 0, cap_cents: 0 };
    case 'pro':
      return { ...pricing.pro };
    case 'team':
      return { ...pricing.team };
    case 'enterprise':
      return { included_units: -1, unit_amount_cents: 0, cap_cents: 0 };
  }
}

export interface OveragePreview {
  plan: Plan;
  used_units: number;
  included_units: number;
  overage_units: number;
  unit_amount_cents: number;
  cost_cents: number;
  cap_cents: number;
  billed_cents: number;
  currency: 'usd';
}

export function computeOverage(plan: Plan, used: number, pricing: PlanPricing = planPricing(plan)): OveragePreview {
  const base = { plan, used_units: used, currency: 'usd' as const };
  if (plan === 'pro' || plan === 'team') {
    const overage = Math.max(0, used - pricing.included_units);
    const cost = overage * pricing.unit_amount_cents;
    return {
      ...base,
      included_units: pricing.included_units,
      overage_units: overage,
      unit_amount_cents: pricing.unit_amount_cents,
      cost_cents: cost,
      cap_cents: pricing.cap_cents,
      billed_cents: Math.min(cost, pricing.cap_cents),
    };
  }
  if (plan === 'enterprise') {
    return { ...base, included_units: -1, overage_units: 0, unit_amount_cents: 0, cost_cents: 0, cap_cents: 0, billed_cents: 0 };
  }
  return { ...base, included_units: pricing.included_units, overage_units: 0, unit_amount_cents: 0, cost_cents: 0, cap_cents: 0, billed_cents: 0 };
}

// ---------------------------------------------------------------------------------------------
// Billing period and locally known usage
// ---------------------------------------------------------------------------------------------

/** The billing period is the current calendar month in UTC. */
export function currentPeriod(now = new Date()): { start: Date; end: Date; key: string } {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end, key: start.toISOString().slice(0, 7) };
}

/** Compressions in the period: usage events (advisory MCP calls excluded) plus self-hosted metering reports. */
export async function usedUnits(db: Queryable, userId: string, period = currentPeriod()): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `select (select count(*) from usage_events where user_id = $1 and created_at >= $2 and created_at < $3 and method <> 'mcp_advisory')::int
          + coalesce((select sum(compressions) from metering_reports where user_id = $1 and period = $4), 0)::int as n`,
    [userId, period.start, period.end, period.key],
  );
  return row!.n;
}

// ---------------------------------------------------------------------------------------------
// Provider calls
// ---------------------------------------------------------------------------------------------

/** Maps provider failures to the spec's 503 (billing service unavailable). */
export function providerError(err: unknown): never {
  if (err instanceof ProviderUnavailableError) throw unavailable('Billing service unavailable', 5);
  if (err instanceof ProviderRequestError) throw unavailable(`Billing service rejected the request: ${err.message}`, 30);
  throw err;
}

async function billingCustomerId(db: Queryable, principal: Principal): Promise<string | null> {
  if (principal.billingCustomerId) return principal.billingCustomerId;
  const [row] = await db.query<{ billing_customer_id: string | null }>('select billing_customer_id from users where id = $1', [principal.userId]);
  return row?.billing_customer_id ?? null;
}

export async function ensureCustomer(services: Services, commerce: Commerce, principal: Principal): Promise<string> {
  const existing = await billingCustomerId(services.db, principal);
  if (existing) return existing;
  const [user] = await services.db.query<{ email: string | null; name: string | null }>('select email, name from users where id = $1', [principal.userId]);
  const customer = await commerce.stripe.createCustomer({ email: user?.email ?? null, name: user?.name ?? null, userId: principal.userId }).catch(providerError);
  const [row] = await services.db.query<{ billing_customer_id: string }>(
    `update users set billing_customer_id = coalesce(billing_customer_id, $2) where id = $1 returning billing_customer_id`,
    [principal.userId, customer.id],
  );
  return row?.billing_customer_id ?? customer.id;
}

export async function createCheckout(services: Services, commerce: Commerce, principal: Principal, plan: 'pro') {
  const customer = await ensureCustomer(services, commerce, principal);
  const s = commerce.settings;
  const prices = [s.stripePricePro, ...(s.stripePriceProMetered ? [s.stripePriceProMetered] : [])];
  const session = await commerce.stripe
    .createCheckoutSession({ customer, priceIds: prices, successUrl: s.checkoutSuccessUrl, cancelUrl: s.checkoutCancelUrl, userId: principal.userId, plan })
    .catch(providerError);
  return { checkout_url: session.url, session_id: session.id, plan };
}

export async function createPortal(services: Services, commerce: Commerce, principal: Principal) {
  const customer = await ensureCustomer(services, commerce, principal);
  const session = await commerce.stripe.createPortalSession({ customer, returnUrl: commerce.settings.portalReturnUrl }).catch(providerError);
  return { portal_url: session.url };
}

export async function listOrders(services: Services, commerce: Commerce, principal: Principal) {
  const customer = await billingCustomerId(services.db, principal);
  if (!customer) return [];
  const invoices = await commerce.stripe.listInvoices(customer).catch(providerError);
  return invoices.data.map((i) => ({
    id: i.id,
    number: i.number,
    status: i.status,
    amount_due_cents: i.amount_due,
    amount_paid_cents: i.amount_paid,
    currency: i.currency,
    created_at: isoFromSeconds(i.created),
    period_start: isoFromSeconds(i.period_start),
    period_end: isoFromSeconds(i.period_end),
    invoice_url: i.hosted_invoice_url,
  }));
}

export function planFromSubscription(commerce: Commerce, sub: StripeSubscription): Plan | null {
  if (isPlan(sub.metadata?.plan)) return sub.metadata.plan;
  for (const item of sub.items?.data ?? []) {
    if (item.price.id === commerce.settings.stripePricePro) return 'pro';
    if (item.price.id === commerce.settings.stripePriceTeam) return 'team';
    if (isPlan(item.price.metadata?.plan)) return item.price.metadata!.plan as Plan;
  }
  return null;
}

const LIVE_STATUSES = new Set(['active', 'trialing', 'past_due']);

export async function subscriptionInfo(services: Services, commerce: Commerce, principal: Principal) {
  const customer = await billingCustomerId(services.db, principal);
  const none = { plan: principal.plan, status: 'none', subscription_id: null, current_period_start: null, current_period_end: null, cancel_at_period_end: false, customer_id: customer };
  if (!customer) return none;
  const subs = await commerce.stripe.listSubscriptions(customer).catch(providerError);
  const sub = subs.data.find((s) => LIVE_STATUSES.has(s.status)) ?? subs.data[0];
  if (!sub) return none;
  const item = sub.items?.data?.[0];
  return {
    plan: principal.plan,
    subscribed_plan: planFromSubscription(commerce, sub),
    status: sub.status,
    subscription_id: sub.id,
    current_period_start: isoFromSeconds(sub.current_period_start ?? item?.current_period_start),
    current_period_end: isoFromSeconds(sub.current_period_end ?? item?.current_period_end),
    cancel_at_period_end: sub.cancel_at_period_end,
    customer_id: customer,
  };
}

/**
 * MeterUsageResponse: the provider meter's count for the period (0 for Free). While the provider
 * is down or its breaker open, the last value read is served (source "cache", stale true);
 * with nothing cached the answer is 503.
 */
export async function meterUsage(services: Services, commerce: Commerce, principal: Principal) {
  const period = currentPeriod();
  const base = { plan: principal.plan, period_start: period.start.toISOString(), period_end: period.end.toISOString() };
  if (principal.plan === 'free') return { ...base, count: 0, source: 'plan', stale: false, as_of: nowIso() };
  const customer = await billingCustomerId(services.db, principal);
  if (!customer) {
    // Not a billing-provider customer (e.g. an invoiced Enterprise owner): the local count is the meter.
    return { ...base, count: await usedUnits(services.db, principal.userId, period), source: 'local', stale: false, as_of: nowIso() };
  }
  try {
    const end = Math.ceil(Date.now() / 60_000) * 60;
    const summaries = await commerce.stripe.meterEventSummaries(commerce.settings.stripeMeterId, customer, period.start.getTime() / 1000, end);
    const count = summaries.data.reduce((sum, s) => sum + Number(s.aggregated_value ?? 0), 0);
    await services.db.query(
      `insert into billing_meter_cache (user_id, period_start, count, fetched_at) values ($1, $2, $3, now())
       on conflict (user_id, period_start) do update set count = excluded.count, fetched_at = excluded.fetched_at`,
      [principal.userId, period.start, count],
    );
    return { ...base, count, source: 'provider', stale: false, as_of: nowIso() };
  } catch (err) {
    if (!(err instanceof ProviderUnavailableError)) return providerError(err);
    const [cached] = await services.db.query<{ count: string | number; fetched_at: Date }>(
      'select count, fetched_at from billing_meter_cache where user_id = $1 and period_start = $2',
      [principal.userId, period.start],
    );
    if (!cached) return providerError(err);
    return { ...base, count: Number(cached.count), source: 'cache', stale: true, as_of: iso(cached.fetched_at) };
  }
}

/**
 * Pushes each paying customer's usage delta to the provider's meter. The identifier makes a
 * retried push idempotent at the provider; the reported total only advances after success. One
 * instance at a time (an advisory lock; 0 when another instance's round is running): two rounds at
 * once would both read the same reported total and push overlapping deltas.
 */
export async function syncMeters(services: Pick<Services, 'db'>, commerce: Commerce): Promise<number> {
  return (await ifAdvisoryLockFree(services.db, 'gc:meter-sync', () => syncMetersRound(services, commerce))) ?? 0;
}

async function syncMetersRound(services: Pick<Services, 'db'>, commerce: Commerce): Promise<number> {
  const period = currentPeriod();
  const users = await services.db.query<{ id: string; billing_customer_id: string }>(
    `select id, billing_customer_id from users where billing_customer_id is not null and plan in ('pro', 'team', 'enterprise')`,
  );
  let pushed = 0;
  for (const user of users) {
    const total = await usedUnits(services.db, user.id, period);
    const [row] = await services.db.query<{ reported: string | number }>(
      'select reported from billing_meter_sync where user_id = $1 and period_start = $2',
      [user.id, period.start],
    );
    const delta = total - Number(row?.reported ?? 0);
    if (delta <= 0) continue;
    try {
      await commerce.stripe.createMeterEvent({
        eventName: commerce.settings.stripeMeterEventName,
        customer: user.billing_customer_id,
        value: delta,
        identifier: `${user.id}:${period.key}:${total}`,
        timestamp: Math.floor(Date.now() / 1000),
      });
    } catch (err) {
      if (err instanceof ProviderUnavailableError) break;
      throw err;
    }
    await services.db.query(
      `insert into billing_meter_sync (user_id, period_start, reported, updated_at) values ($1, $2, $3, now())
       on conflict (user_id, period_start) do update set reported = excluded.reported, updated_at = now()`,
      [user.id, period.start, total],
    );
    pushed++;
  }
  return pushed;
}

/**
 * The periodic meter sync (every commerce.settings.meterSyncMs; 0 disables it), wired by app.ts
 * once the services exist; stop() clears the timer. A failed round is logged and retried next tick.
 */
export function startMeterSync(services: Pick<Services, 'db' | 'log' | 'commerce'>): { stop(): void } {
  const { commerce, log } = services;
  const every = commerce.settings.meterSyncMs;
  if (every <= 0) return { stop() {} };
  const timer = setInterval(() => {
    void syncMeters(services, commerce).catch((err) => log.error('meter sync failed', { error: (err as Error).message }));
  }, every);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

// ---------------------------------------------------------------------------------------------
// Provider webhooks: plan changes
// ---------------------------------------------------------------------------------------------

export interface StripeEvent {
  id: string;
  type: string;
  data: { object: any };
}

async function setPlan(services: Services, userId: string, plan: Plan, event: StripeEvent): Promise<boolean> {
  const [before] = await services.db.query<{ plan: Plan }>('select plan from users where id = $1', [userId]);
  if (!before) return false;
  if (before.plan !== plan) {
    await services.db.query('update users set plan = $2 where id = $1', [userId, plan]);
    // Cached authentications carry the old plan: drop them so the change applies at once.
    const keys = await services.db.query<{ key_id: string }>('select key_id from api_keys where user_id = $1', [userId]);
    for (const k of keys) services.authCache.dropKey(k.key_id);
  }
  await audit(services, null, 'billing.plan_change', { type: 'user', id: userId }, 'success', {
    ownerId: userId,
    detail: { from: before.plan, to: plan, event_type: event.type, event_id: event.id },
  });
  return true;
}

async function userForCustomer(db: Queryable, customer: string | null, metadataUserId: unknown): Promise<string | null> {
  if (customer) {
    const [row] = await db.query<{ id: string }>('select id from users where billing_customer_id = $1', [customer]);
    if (row) return row.id;
  }
  if (typeof metadataUserId === 'string' && /^[0-9a-f-]{36}$/i.test(metadataUserId)) {
    const [row] = await db.query<{ id: string }>('select id from users where id = $1', [metadataUserId]);
    if (row) return row.id;
  }
  return null;
}

/** Applies one verified provider event; returns what happened (for the webhook's answer). */
export async function applyStripeEvent(services: Services, commerce: Commerce, event: StripeEvent): Promise<{ applied: boolean; duplicate: boolean; reason?: string }> {
  const once = await applyOnce(services.db, 'stripe', event.id, () => applyFresh(services, commerce, event));
  return once.duplicate ? { applied: false, duplicate: true } : once.value;
}

async function applyFresh(services: Services, commerce: Commerce, event: StripeEvent): Promise<{ applied: boolean; duplicate: boolean; reason?: string }> {
  const obj = event.data?.object ?? {};
  switch (event.type) {
    case 'checkout.session.completed': {
      const userId = await userForCustomer(services.db, null, obj.client_reference_id ?? obj.metadata?.user_id);
      if (!userId) return { applied: false, duplicate: false, reason: 'unknown user' };
      if (obj.customer) {
        await services.db.query('update users set billing_customer_id = coalesce(billing_customer_id, $2) where id = $1', [userId, obj.customer]);
      }
      const plan = isPlan(obj.metadata?.plan) ? (obj.metadata.plan as Plan) : 'pro';
      return { applied: await setPlan(services, userId, plan, event), duplicate: false };
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted': {
      const userId = await userForCustomer(services.db, obj.customer ?? null, obj.metadata?.user_id);
      if (!userId) return { applied: false, duplicate: false, reason: 'unknown customer' };
      const live = event.type !== 'customer.subscription.deleted' && LIVE_STATUSES.has(obj.status);
      const plan: Plan = live ? planFromSubscription(commerce, obj as StripeSubscription) ?? 'pro' : 'free';
      return { applied: await setPlan(services, userId, plan, event), duplicate: false };
    }
    default:
      return { applied: false, duplicate: false, reason: 'ignored event type' };
  }
}

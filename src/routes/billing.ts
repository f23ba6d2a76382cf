import { z } from 'zod';
import type { Principal } from '../auth/principal.js';
import { audit, type AuditTarget } from '../domain/audit/audit.js';
import { computeOverage, planPricing, createCheckout, createPortal, currentPeriod, listOrders, meterUsage, subscriptionInfo, usedUnits } from '../domain/commerce/billing.js';
import { httpReplyOf } from '../http/errors.js';
import { invalid } from '../domain/errors.js';
import { defineRoute } from '../http/route.js';
import type { Services } from '../services.js';
import { PLANS } from '../auth/plans.js';
import { int, isoTime } from './schemas.js';

// Any other plan is the spec's 400 (the handler's check); the JSON Schema names the one value that sells here.
const CheckoutBody = z.object({ plan: z.string().min(1).max(32).meta({ enum: ['pro'], description: "Only 'pro' (Team and Enterprise go through sales); any other value is a 400" }) }).strict();

const plan = z.enum(PLANS);
const period = { period_start: isoTime, period_end: isoTime };
const Order = z.object({
  id: z.string(),
  number: z.string().nullable(),
  status: z.enum(['draft', 'open', 'paid', 'uncollectible', 'void']).nullable(),
  amount_due_cents: int,
  amount_paid_cents: int,
  currency: z.string(),
  created_at: isoTime.nullable(),
  period_start: isoTime.nullable(),
  period_end: isoTime.nullable(),
  invoice_url: z.string().nullable(),
});
/** A live subscription, or status 'none' with null ids and dates. */
const Subscription = z.object({
  plan,
  subscribed_plan: plan.nullable().optional(),
  status: z.enum(['none', 'active', 'trialing', 'past_due', 'canceled', 'unpaid', 'incomplete', 'incomplete_expired', 'paused']),
  subscription_id: z.string().nullable(),
  current_period_start: isoTime.nullable(),
  current_period_end: isoTime.nullable(),
  cancel_at_period_end: z.boolean().nullable(),
  customer_id: z.string().nullable(),
});
const MeterUsage = z.object({ plan, ...period, count: z.number(), source: z.enum(['plan', 'local', 'provider', 'cache']), stale: z.boolean(), as_of: isoTime.nullable() });
const Overage = z.object({
  plan,
  used_units: int,
  included_units: int,
  overage_units: int,
  unit_amount_cents: z.number(),
  cost_cents: z.number(),
  cap_cents: z.number(),
  billed_cents: z.number(),
  currency: z.literal('usd'),
  ...period,
});

/** Runs a mutating billing call and appends its audit row whatever the outcome. */
async function audited<T>(
  services: Services,
  principal: Principal,
  action: string,
  requestId: string,
  target: (result: T) => AuditTarget,
  work: () => Promise<T>,
  detail: Record<string, unknown> = {},
): Promise<T> {
  try {
    const result = await work();
    await audit(services, principal, action, target(result), 'success', { requestId, detail });
    return result;
  } catch (err) {
    const status = httpReplyOf(err)?.status ?? 500;
    await audit(services, principal, action, { type: 'billing' }, status < 500 ? 'denied' : 'failure', { requestId, detail: { ...detail, status } });
    throw err;
  }
}

export const billingRoutes = [
  // CheckoutRequest -> CheckoutResponse: only "pro" can be bought here (Team/Enterprise go through sales).
  defineRoute({
    method: 'POST',
    path: '/v1/billing/checkout',
    auth: 'key',
    response: z.object({ checkout_url: z.string(), session_id: z.string(), plan: z.literal('pro') }),
    body: CheckoutBody,
    async handler({ services, principal, body, requestId }) {
      return audited(services, principal, 'billing.checkout', requestId, (r) => ({ type: 'checkout_session', id: r.session_id }), async () => {
        if (body.plan !== 'pro') throw invalid(`Invalid plan '${body.plan}'. Only 'pro' can be purchased through checkout`);
        return createCheckout(services, services.commerce, principal, 'pro');
      }, { plan: body.plan }).then((r) => ({ body: r }));
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/billing/portal',
    auth: 'key',
    response: z.object({ portal_url: z.string() }),
    async handler({ services, principal, requestId }) {
      const result = await audited(services, principal, 'billing.portal', requestId, () => ({ type: 'billing_portal' }), async () =>
        createPortal(services, services.commerce, principal),
      );
      return { body: result };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/billing/orders',
    auth: 'key',
    response: z.array(Order),
    async handler({ services, principal }) {
      return { body: await listOrders(services, services.commerce, principal) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/billing/subscription',
    auth: 'key',
    response: Subscription,
    async handler({ services, principal }) {
      return { body: await subscriptionInfo(services, services.commerce, principal) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/billing/meter-usage',
    auth: 'key',
    response: MeterUsage,
    async handler({ services, principal }) {
      return { body: await meterUsage(services, services.commerce, principal) };
    },
  }),
  // OveragePreviewResponse from the locally recorded usage of the current period (no provider call).
  defineRoute({
    method: 'GET',
    path: '/v1/billing/overage-preview',
    auth: 'key',
    response: Overage,
    async handler({ services, principal }) {
      const period = currentPeriod();
      const used = await usedUnits(services.db, principal.userId, period);
      const pricing = planPricing(principal.plan, services.commerce.settings.pricing);
      return {
        body: { ...computeOverage(principal.plan, used, pricing), period_start: period.start.toISOString(), period_end: period.end.toISOString() },
      };
    },
  }),
];

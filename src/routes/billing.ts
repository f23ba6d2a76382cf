import { z } from 'zod';
import type { Principal } from '../auth/principal.js';
import { audit, type AuditTarget } from '../domain/accounts/audit.js';
import { computeOverage, planPricing, createCheckout, createPortal, currentPeriod, listOrders, meterUsage, subscriptionInfo, usedUnits } from '../domain/commerce/billing.js';
import { httpReplyOf } from '../http/errors.js';
import { invalid } from '../domain/errors.js';
import { defineRoute } from '../http/route.js';
import type { Services } from '../services.js';

const CheckoutBody = z.object({ plan: z.string().min(1).max(32) }).strict();

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
    async handler({ services, principal }) {
      return { body: await listOrders(services, services.commerce, principal) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/billing/subscription',
    auth: 'key',
    async handler({ services, principal }) {
      return { body: await subscriptionInfo(services, services.commerce, principal) };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/billing/meter-usage',
    auth: 'key',
    async handler({ services, principal }) {
      return { body: await meterUsage(services, services.commerce, principal) };
    },
  }),
  // OveragePreviewResponse from the locally recorded usage of the current period (no provider call).
  defineRoute({
    method: 'GET',
    path: '/v1/billing/overage-preview',
    auth: 'key',
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

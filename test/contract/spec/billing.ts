// Spec: "Endpoints > Billing", with "Other records > Billing" and "Overage math".
import { t, type ContractFile } from '../contract.js';

export default {
  area: 'Billing',
  routes: [
    {
      method: 'POST',
      path: '/v1/billing/checkout',
      spec: 'POST /v1/billing/checkout | CheckoutRequest (plan; only pro is valid) -> CheckoutResponse (checkout_url) (200)',
      // A Free user buys Pro through the local Stripe-compatible provider (src/providers/localStripe.ts).
      request: async (c) => ({ key: (await c.user('free', 'contract-buyer')).key, body: { plan: 'pro' } }),
      status: 200,
      fields: { checkout_url: t.string },
    },
    {
      method: 'POST',
      path: '/v1/billing/portal',
      spec: 'POST /v1/billing/portal | PortalResponse (portal_url)',
      request: async (c) => {
        const buyer = await c.user('free', 'contract-portal');
        await c.ok('POST', '/v1/billing/checkout', { plan: 'pro' }, buyer.key);
        return { key: buyer.key };
      },
      status: 200,
      fields: { portal_url: t.string },
    },
    { method: 'GET', path: '/v1/billing/orders', spec: 'GET /v1/billing/orders | array of OrderItem', status: 200, body: 'array', note: 'OrderItem fields are not shown by the spec.' },
    { method: 'GET', path: '/v1/billing/subscription', spec: 'GET /v1/billing/subscription | SubscriptionInfo', status: 200, note: 'SubscriptionInfo fields are not shown by the spec.' },
    {
      method: 'GET',
      path: '/v1/billing/meter-usage',
      spec: 'MeterUsageResponse (count for the billing period; 0 for Free)',
      status: 200,
      fields: { count: t.integer },
      check: async (_res, c) => {
        const free = await c.user('free', 'contract-meter');
        const res = await c.server.request('GET', '/v1/billing/meter-usage', { key: free.key });
        if (res.status !== 200 || res.json.count !== 0) throw new Error(`a Free user's count should be 0: ${res.status} ${res.text.slice(0, 200)}`);
      },
    },
    {
      method: 'GET',
      path: '/v1/billing/overage-preview',
      spec: 'OveragePreviewResponse (included_units, -1 for Enterprise meaning unlimited)',
      status: 200,
      // The owner is on Enterprise.
      fields: { included_units: t.const(-1) },
    },
  ],
} satisfies ContractFile;

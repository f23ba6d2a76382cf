import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { syncMeters } from '../../src/domain/commerce/billing.js';
import { signStripePayload } from '../../src/providers/stripe.js';
import { DB_KIND, type TestServer } from '../helpers/server.js';
import { expectAudit, makeUser, startCommerceServer, type CommerceServer } from './helpers.js';
import { waitFor } from '../helpers/waitFor.js';

let cs: CommerceServer;
let server: TestServer;

beforeAll(async () => {
  // As BILLING_PRO_INCLUDED_UNITS=3, BILLING_PRO_UNIT_CENTS=7, BILLING_PRO_CAP_CENTS=20 would set them.
  const pricing = loadConfig({ BILLING_PRO_INCLUDED_UNITS: '3', BILLING_PRO_UNIT_CENTS: '7', BILLING_PRO_CAP_CENTS: '20' }).commerce.pricing;
  cs = await startCommerceServer({ pricing });
  server = cs.server;
});
afterAll(async () => {
  await cs?.close();
});

async function addUsage(userId: string, n: number) {
  for (let i = 0; i < n; i++) {
    await server.app.services.db.query(`insert into usage_events (user_id, method, status, input_tokens, output_tokens) values ($1, 'REST', 'success', 100, 20)`, [userId]);
  }
}

async function postEvent(event: unknown, secret = cs.commerce.stripeWebhookSecret!) {
  const body = JSON.stringify(event, null, 2);
  return server.request('POST', '/v1/webhooks/billing', { key: null, rawBody: body, headers: { 'content-type': 'application/json', 'stripe-signature': signStripePayload(body, secret) } });
}

describe(`billing (${DB_KIND})`, () => {
  it('checkout: only pro (else 400, 422 without plan), through the local Stripe-compatible provider; portal; audited', async () => {
    const u = await makeUser(server, 'free', { email: 'buyer@example.test' });
    const team = await server.request('POST', '/v1/billing/checkout', { key: u.key, body: { plan: 'team' } });
    expect(team.status).toBe(400);
    await expectAudit(server, u.key, team, 'billing.checkout', 'denied');
    expect((await server.request('POST', '/v1/billing/checkout', { key: u.key, body: {} })).status).toBe(422);
    expect((await server.request('POST', '/v1/billing/checkout', { key: null, body: { plan: 'pro' } })).status).toBe(401);

    const calls = cs.commerce.localStripe!.calls.length;
    const ok = await server.request('POST', '/v1/billing/checkout', { key: u.key, body: { plan: 'pro' } });
    expect(ok.status).toBe(200);
    expect(ok.json.checkout_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/c\/pay\/cs_test_/);
    expect(cs.commerce.localStripe!.calls.slice(calls)).toEqual(['POST /v1/customers', 'POST /v1/checkout/sessions']);
    await expectAudit(server, u.key, ok, 'billing.checkout');
    const customer = cs.commerce.localStripe!.sessions.get(ok.json.session_id)!.customer!;
    expect(cs.commerce.localStripe!.customers.get(customer)!.email).toBe('buyer@example.test');

    const portal = await server.request('POST', '/v1/billing/portal', { key: u.key });
    expect(portal.status).toBe(200);
    expect(portal.json.portal_url).toMatch(/\/p\/session\/bps_/);
    await expectAudit(server, u.key, portal, 'billing.portal');

    expect((await server.request('GET', '/v1/billing/orders', { key: u.key })).json).toEqual([]);
    const sub0 = await server.request('GET', '/v1/billing/subscription', { key: u.key });
    expect(sub0.json).toMatchObject({ plan: 'free', status: 'none' });
  });

  it('plan changes from signed provider webhooks: checkout completed -> pro, deleted -> free; forged 401; replay no-op', async () => {
    const u = await makeUser(server, 'free');
    const { json: checkout } = await server.request('POST', '/v1/billing/checkout', { key: u.key, body: { plan: 'pro' } });
    const { events, subscription } = cs.commerce.localStripe!.completeCheckout(checkout.session_id);

    const forged = await postEvent(events[0], 'whsec_wrong');
    expect(forged.status).toBe(401);
    const unsigned = await server.request('POST', '/v1/webhooks/billing', { key: null, body: events[0] });
    expect(unsigned.status).toBe(401);
    expect((await server.request('GET', '/v1/billing/subscription', { key: u.key })).json.plan).toBe('free');

    for (const e of events) expect((await postEvent(e)).status).toBe(200);
    expect((await postEvent(events[0])).json).toMatchObject({ duplicate: true });

    const sub = await server.request('GET', '/v1/billing/subscription', { key: u.key });
    expect(sub.status).toBe(200);
    expect(sub.json).toMatchObject({ plan: 'pro', subscribed_plan: 'pro', status: 'active', subscription_id: subscription.id, cancel_at_period_end: false });
    const orders = await server.request('GET', '/v1/billing/orders', { key: u.key });
    expect(orders.status).toBe(200);
    expect(orders.json).toHaveLength(1);
    expect(orders.json[0]).toMatchObject({ status: 'paid', amount_paid_cents: 4900, currency: 'usd' });
    // The plan gate sees the new plan at once.
    expect((await server.request('GET', '/v1/billing/overage-preview', { key: u.key })).json.plan).toBe('pro');

    const canceled = await postEvent(cs.commerce.localStripe!.subscriptionEvent(subscription.id, 'customer.subscription.deleted'));
    expect(canceled.status).toBe(200);
    expect((await server.request('GET', '/v1/billing/overage-preview', { key: u.key })).json.plan).toBe('free');
    const audit = await server.request('GET', '/v1/governance/audit?action=billing.plan_change', { key: u.key });
    expect(audit.json.items.map((r: any) => r.detail.to)).toEqual(['free', 'pro', 'pro']);
    expect(audit.json.items[0].actor.via).toBe('system');
  });

  it('overage preview follows the spec math for the caller plan', async () => {
    const pro = await makeUser(server, 'pro');
    await addUsage(pro.userId, 3);
    expect((await server.request('GET', '/v1/billing/overage-preview', { key: pro.key })).json).toMatchObject({
      plan: 'pro', used_units: 3, included_units: 3, overage_units: 0, unit_amount_cents: 7, cost_cents: 0, cap_cents: 20, billed_cents: 0,
    });
    await addUsage(pro.userId, 2);
    expect((await server.request('GET', '/v1/billing/overage-preview', { key: pro.key })).json).toMatchObject({ used_units: 5, overage_units: 2, cost_cents: 14, billed_cents: 14 });
    await addUsage(pro.userId, 2);
    expect((await server.request('GET', '/v1/billing/overage-preview', { key: pro.key })).json).toMatchObject({ used_units: 7, overage_units: 4, cost_cents: 28, billed_cents: 20 });
    const free = await makeUser(server, 'free');
    await addUsage(free.userId, 4);
    expect((await server.request('GET', '/v1/billing/overage-preview', { key: free.key })).json).toMatchObject({ plan: 'free', used_units: 4, overage_units: 0, billed_cents: 0 });
    const ent = await makeUser(server, 'enterprise');
    await addUsage(ent.userId, 4);
    expect((await server.request('GET', '/v1/billing/overage-preview', { key: ent.key })).json).toMatchObject({ plan: 'enterprise', included_units: -1, overage_units: 0, cost_cents: 0, billed_cents: 0 });
    expect((await server.request('GET', '/v1/billing/overage-preview', { key: null })).status).toBe(401);
  });

  it('meter usage: 0 for Free; provider count; cached value while the provider is down; 503 with nothing cached', async () => {
    const free = await makeUser(server, 'free');
    expect((await server.request('GET', '/v1/billing/meter-usage', { key: free.key })).json).toMatchObject({ count: 0, plan: 'free' });

    // A paying customer whose usage is pushed to the provider's meter.
    const u = await makeUser(server, 'free');
    const { json: checkout } = await server.request('POST', '/v1/billing/checkout', { key: u.key, body: { plan: 'pro' } });
    for (const e of cs.commerce.localStripe!.completeCheckout(checkout.session_id).events) await postEvent(e);
    const other = await makeUser(server, 'free');
    const { json: c2 } = await server.request('POST', '/v1/billing/checkout', { key: other.key, body: { plan: 'pro' } });
    for (const e of cs.commerce.localStripe!.completeCheckout(c2.session_id).events) await postEvent(e);

    await addUsage(u.userId, 6);
    await syncMeters(server.app.services, cs.commerce);
    await addUsage(u.userId, 2);
    await syncMeters(server.app.services, cs.commerce);
    await syncMeters(server.app.services, cs.commerce); // nothing new: no duplicate push
    const live = await server.request('GET', '/v1/billing/meter-usage', { key: u.key });
    expect(live.status).toBe(200);
    expect(live.json).toMatchObject({ plan: 'pro', count: 8, source: 'provider', stale: false });

    // Outage: stop the local provider mid-test.
    await cs.commerce.localStripe!.stop();
    for (let i = 0; i < 3; i++) {
      const cached = await server.request('GET', '/v1/billing/meter-usage', { key: u.key });
      expect(cached.status).toBe(200);
      expect(cached.json).toMatchObject({ count: 8, source: 'cache', stale: true });
    }
    const diag = await server.request('GET', '/health/diagnostics', { key: null });
    expect(diag.json.circuit_breakers.billing_provider.state).toBe('open');
    expect(diag.json.circuit_breakers.email_provider.state).toBe('closed');
    const nothingCached = await server.request('GET', '/v1/billing/meter-usage', { key: other.key });
    expect(nothingCached.status).toBe(503);
    expect(nothingCached.headers.get('retry-after')).toBeTruthy();
    const down = await server.request('POST', '/v1/billing/checkout', { key: free.key, body: { plan: 'pro' } });
    expect(down.status).toBe(503);
    await expectAudit(server, free.key, down, 'billing.checkout', 'failure');
    expect((await server.request('GET', '/v1/billing/orders', { key: u.key })).status).toBe(503);
    expect((await server.request('GET', '/v1/billing/subscription', { key: u.key })).status).toBe(503);
    expect((await server.request('POST', '/v1/billing/portal', { key: u.key })).status).toBe(503);
    // The preview needs no provider.
    expect((await server.request('GET', '/v1/billing/overage-preview', { key: u.key })).status).toBe(200);

    // Recovery: after the breaker's cool-down the provider is asked again.
    await cs.commerce.localStripe!.start();
    const back = await waitFor('meter usage from the provider again', async () => {
      const res = await server.request('GET', '/v1/billing/meter-usage', { key: u.key });
      return res.json?.source === 'provider' && res;
    });
    expect(back.json).toMatchObject({ count: 8, source: 'provider', stale: false });
    expect((await server.request('GET', '/health/diagnostics', { key: null })).json.circuit_breakers.billing_provider.state).toBe('closed');
  });
});

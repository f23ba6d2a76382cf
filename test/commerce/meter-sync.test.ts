import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signStripePayload } from '../../src/providers/stripe.js';
import { DB_KIND } from '../helpers/server.js';
import { makeUser, startCommerceServer, waitFor, type CommerceServer } from './helpers.js';

// The periodic meter sync is wired by startApp (startMeterSync), not by the commerce area itself.
let cs: CommerceServer;
beforeAll(async () => {
  cs = await startCommerceServer({ meterSyncMs: 50 });
});
afterAll(async () => {
  await cs?.close();
});

describe(`meter sync timer (${DB_KIND})`, () => {
  it('pushes a paying customer’s usage to the provider meter without being called', async () => {
    const { server, commerce } = cs;
    const u = await makeUser(server, 'free');
    const { json: checkout } = await server.request('POST', '/v1/billing/checkout', { key: u.key, body: { plan: 'pro' } });
    for (const e of commerce.localStripe!.completeCheckout(checkout.session_id).events) {
      const body = JSON.stringify(e);
      const res = await server.request('POST', '/v1/webhooks/billing', {
        key: null,
        rawBody: body,
        headers: { 'content-type': 'application/json', 'stripe-signature': signStripePayload(body, commerce.stripeWebhookSecret!) },
      });
      expect(res.status).toBe(200);
    }
    for (let i = 0; i < 3; i++) {
      await server.app.services.db.query(`insert into usage_events (user_id, method, status, input_tokens, output_tokens) values ($1, 'REST', 'success', 100, 20)`, [u.userId]);
    }
    const synced = await waitFor(async () => {
      const res = await server.request('GET', '/v1/billing/meter-usage', { key: u.key });
      return res.json?.source === 'provider' && res.json.count === 3 ? res.json : null;
    });
    expect(synced).toMatchObject({ plan: 'pro', count: 3 });
  });
});

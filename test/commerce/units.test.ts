import { describe, expect, it } from 'vitest';
import { computeOverage, planPricing } from '../../src/domain/commerce/billing.js';
import { backoffMs } from '../../src/domain/commerce/outbox.js';
import { parsePaymentHeaders, signPaymentPayload } from '../../src/domain/commerce/payments.js';
import { sanitizeDetail } from '../../src/domain/audit/audit.js';
import { signSvix, verifySvix } from '../../src/providers/identityWebhook.js';
import { parseForm } from '../../src/providers/localStripe.js';
import { formEncode, signStripePayload, verifyStripeSignature } from '../../src/providers/stripe.js';

const pro = { included_units: 100, unit_amount_cents: 3, cap_cents: 150 };

describe('overage math at its edges', () => {
  it('Pro: no overage at or below the included units', () => {
    for (const used of [0, 1, 99, 100]) {
      const o = computeOverage('pro', used, pro);
      expect(o).toMatchObject({ overage_units: 0, cost_cents: 0, billed_cents: 0, included_units: 100 });
    }
  });
  it('Pro: one unit over costs one unit price', () => {
    expect(computeOverage('pro', 101, pro)).toMatchObject({ overage_units: 1, cost_cents: 3, billed_cents: 3 });
  });
  it('Pro: billed equals the cost exactly at the cap and is capped above it', () => {
    expect(computeOverage('pro', 150, pro)).toMatchObject({ overage_units: 50, cost_cents: 150, billed_cents: 150 });
    expect(computeOverage('pro', 151, pro)).toMatchObject({ overage_units: 51, cost_cents: 153, billed_cents: 150 });
    expect(computeOverage('pro', 10_000, pro)).toMatchObject({ overage_units: 9900, cost_cents: 29_700, billed_cents: 150 });
  });
  it('Team uses the same formula with its own pricing', () => {
    const team = { included_units: 5, unit_amount_cents: 2, cap_cents: 7 };
    expect(computeOverage('team', 5, team)).toMatchObject({ overage_units: 0, billed_cents: 0 });
    expect(computeOverage('team', 8, team)).toMatchObject({ overage_units: 3, cost_cents: 6, billed_cents: 6 });
    expect(computeOverage('team', 9, team)).toMatchObject({ overage_units: 4, cost_cents: 8, billed_cents: 7 });
  });
  it('Free: zero overage whatever the usage', () => {
    for (const used of [0, 1000, 1_000_000]) {
      expect(computeOverage('free', used)).toMatchObject({ overage_units: 0, cost_cents: 0, billed_cents: 0, used_units: used });
    }
  });
  it('Enterprise: zero cost and included_units -1 (unlimited)', () => {
    for (const used of [0, 5_000_000]) {
      expect(computeOverage('enterprise', used)).toMatchObject({ included_units: -1, overage_units: 0, cost_cents: 0, billed_cents: 0 });
    }
    expect(planPricing('enterprise').included_units).toBe(-1);
  });
  it('a zero cap bills nothing even with overage', () => {
    expect(computeOverage('pro', 200, { ...pro, cap_cents: 0 })).toMatchObject({ overage_units: 100, cost_cents: 300, billed_cents: 0 });
  });
});

describe('wire formats', () => {
  it('form-encodes in Stripe bracket notation and parses back', () => {
    const encoded = formEncode({ a: 'x y', line_items: [{ price: 'p1', quantity: 1 }, { price: 'p2' }], metadata: { user_id: 'u' }, skip: null });
    expect(decodeURIComponent(encoded)).toContain('line_items[1][price]=p2');
    expect(parseForm(encoded)).toEqual({ a: 'x y', line_items: [{ price: 'p1', quantity: '1' }, { price: 'p2' }], metadata: { user_id: 'u' } });
  });
  it('verifies Stripe-Signature: good, tampered, stale, malformed', () => {
    const body = '{"id":"evt_1"}';
    const header = signStripePayload(body, 'whsec_a');
    expect(verifyStripeSignature(body, header, 'whsec_a')).toEqual({ ok: true });
    expect(verifyStripeSignature(body + ' ', header, 'whsec_a').ok).toBe(false);
    expect(verifyStripeSignature(body, header, 'whsec_b').ok).toBe(false);
    expect(verifyStripeSignature(body, signStripePayload(body, 'whsec_a', Math.floor(Date.now() / 1000) - 3600), 'whsec_a')).toMatchObject({ ok: false, reason: expect.stringMatching(/tolerance/) });
    expect(verifyStripeSignature(body, 'v1=abc', 'whsec_a').ok).toBe(false);
    expect(verifyStripeSignature(body, undefined, 'whsec_a').ok).toBe(false);
  });
  it('verifies Svix-style identity webhook signatures', () => {
    const secret = `whsec_${Buffer.from('k'.repeat(24)).toString('base64')}`;
    const ts = Math.floor(Date.now() / 1000);
    const sig = signSvix(secret, 'msg_1', ts, '{}');
    expect(verifySvix(secret, { 'svix-id': 'msg_1', 'svix-timestamp': String(ts), 'svix-signature': `v1,bogus ${sig}` }, ['{}'])).toEqual({ ok: true, id: 'msg_1' });
    expect(verifySvix(secret, { 'svix-id': 'msg_2', 'svix-timestamp': String(ts), 'svix-signature': sig }, ['{}']).ok).toBe(false);
    expect(verifySvix(secret, { 'svix-id': 'msg_1', 'svix-timestamp': String(ts - 900), 'svix-signature': signSvix(secret, 'msg_1', ts - 900, '{}') }, ['{}']).ok).toBe(false);
  });
  it('parses payment-signature headers and checks the MAC when a secret is configured', () => {
    const sig = signPaymentPayload({ payment_id: 'pay_1', amount_micros: 2500 }, 's3cret');
    expect(parsePaymentHeaders({}, {})).toBeNull();
    expect(parsePaymentHeaders({ 'x-payment-signature': sig, 'x-payment-facilitator': 'x402' }, { x402: 's3cret' })).toMatchObject({ ok: true, verified: true, amountMicros: 2500 });
    expect(parsePaymentHeaders({ 'x-payment-signature': sig, 'x-payment-facilitator': 'x402' }, { x402: 'other' })).toMatchObject({ ok: false });
    expect(parsePaymentHeaders({ 'x-payment-signature': sig, 'x-payment-facilitator': 'stripe_acp' }, {})).toMatchObject({ ok: true, verified: false });
    expect(parsePaymentHeaders({ 'x-payment-signature': sig, 'x-payment-facilitator': 'paypal' }, {})).toMatchObject({ ok: false });
    expect(parsePaymentHeaders({ 'x-payment-signature': 'garbage', 'x-payment-facilitator': 'x402' }, {})).toMatchObject({ ok: false });
  });
  it('backs off exponentially up to the maximum', () => {
    expect([1, 2, 3, 4, 10].map((n) => backoffMs(n, 100, 1000))).toEqual([100, 200, 400, 800, 1000]);
  });
  it('keeps secrets out of audit details', () => {
    expect(sanitizeDetail({ plan: 'pro', api_key: 'x', note: `gc_${'a'.repeat(32)}`, nested: { token: 't', ok: 1 } })).toEqual({ plan: 'pro', nested: { ok: 1 } });
  });
});

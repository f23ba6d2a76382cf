import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audit } from '../../src/domain/audit/audit.js';
import { recordPaymentInBackground, recordPaymentSignature, signPaymentPayload } from '../../src/domain/commerce/payments.js';
import type { Principal } from '../../src/auth/principal.js';
import { DB_KIND, type TestServer } from '../helpers/server.js';
import { makeUser, startCommerceServer, type CommerceServer } from './helpers.js';

let cs: CommerceServer;
let server: TestServer;
const SECRETS = { x402: 'x402-test-secret', stripe_acp: null, skyfire: 'skyfire-test-secret' };

beforeAll(async () => {
  cs = await startCommerceServer();
  server = cs.server;
});
afterAll(async () => {
  await cs?.close();
});

const principalOf = (userId: string, keyId: string): Principal => ({ userId, plan: 'pro', isAdmin: false, keyId, environment: 'production', projectId: null, via: 'api_key' });

describe(`payments (${DB_KIND})`, () => {
  it('records charge events from payment-signature headers and reconciles them in the spec envelope', async () => {
    const u = await makeUser(server, 'pro');
    const p = principalOf(u.userId, u.keyId);
    const services = server.app.services;
    expect(await recordPaymentSignature(services, p, {}, 10, SECRETS)).toBeNull();
    const a = await recordPaymentSignature(services, p, { 'x-payment-facilitator': 'x402', 'x-payment-signature': signPaymentPayload({ payment_id: 'pay_a', amount_micros: 1500 }, 'x402-test-secret') }, 420, SECRETS);
    expect(a).toMatchObject({ recorded: true, duplicate: false, settlement_status: 'pending' });
    const again = await recordPaymentSignature(services, p, { 'x-payment-facilitator': 'x402', 'x-payment-signature': signPaymentPayload({ payment_id: 'pay_a', amount_micros: 1500 }, 'x402-test-secret') }, 420, SECRETS);
    expect(again).toMatchObject({ recorded: true, duplicate: true });
    const b = await recordPaymentSignature(services, p, { 'x-payment-facilitator': 'stripe_acp', 'x-payment-signature': signPaymentPayload({ payment_id: 'pi_b', amount_micros: 99 }, 'unused') }, 7, SECRETS);
    expect(b).toMatchObject({ recorded: true, settlement_status: 'unverified' });
    const bad = await recordPaymentSignature(services, p, { 'x-payment-facilitator': 'skyfire', 'x-payment-signature': signPaymentPayload({ payment_id: 'sf_c', amount_micros: 5 }, 'wrong') }, 7, SECRETS);
    expect(bad).toMatchObject({ recorded: false });

    const res = await server.request('GET', '/v1/payments/reconciliation', { key: u.key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(['count', 'events', 'window']);
    expect(res.json.count).toBe(2);
    expect(Object.keys(res.json.window).sort()).toEqual(['from', 'to']);
    const ev = res.json.events.find((e: any) => e.payment_id === 'pay_a');
    expect(Object.keys(ev).sort()).toEqual(['amount_charged_micros', 'created_at', 'facilitator', 'id', 'payment_id', 'project_id', 'settlement_status', 'tokens_saved', 'user_id'].sort());
    expect(ev).toMatchObject({ user_id: u.userId, project_id: null, facilitator: 'x402', settlement_status: 'pending', amount_charged_micros: 1500, tokens_saved: 420 });
    expect(ev.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(ev.created_at).toMatch(/Z$/);

    const filtered = await server.request('GET', '/v1/payments/reconciliation?facilitator=stripe_acp', { key: u.key });
    expect(filtered.json.events.map((e: any) => e.payment_id)).toEqual(['pi_b']);
    expect((await server.request('GET', '/v1/payments/reconciliation?limit=1', { key: u.key })).json.count).toBe(1);
    expect((await server.request('GET', '/v1/payments/reconciliation?limit=5000', { key: u.key })).status).toBe(200);
    for (const q of ['limit=0', 'limit=5001', 'limit=abc', 'facilitator=paypal', 'from=yesterday', 'from=2026-01-01T00:00:00%2B02:00', 'from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z']) {
      expect((await server.request('GET', `/v1/payments/reconciliation?${q}`, { key: u.key })).status, q).toBe(422);
    }
    const past = await server.request('GET', '/v1/payments/reconciliation?from=2020-01-01T00:00:00Z&to=2020-02-01T00:00:00Z', { key: u.key });
    expect(past.json).toEqual({ events: [], count: 0, window: { from: '2020-01-01T00:00:00.000Z', to: '2020-02-01T00:00:00.000Z' } });
    // The background form the compress routes call (header names as documented; unverified without a secret in env).
    recordPaymentInBackground(services, p, { 'x-payment-facilitator': 'stripe_acp', 'x-payment-signature': signPaymentPayload({ payment_id: 'pi_bg', amount_micros: 12 }, 'x') }, 33);
    recordPaymentInBackground(services, p, {}, 33);
    await services.background.drain();
    const bg = await server.request('GET', '/v1/payments/reconciliation?facilitator=stripe_acp', { key: u.key });
    expect(bg.json.events.find((e: any) => e.payment_id === 'pi_bg')).toMatchObject({ tokens_saved: 33, amount_charged_micros: 12, settlement_status: 'unverified' });
    // An event stamped by a database clock ahead of this host's (or in the same millisecond as the
    // request: the column keeps µs, a JS date ms) is in the default window; an explicit `to` bounds it.
    await services.db.query(
      `insert into payment_events (user_id, facilitator, settlement_status, payment_id, amount_charged_micros, tokens_saved, created_at)
       values ($1, 'x402', 'pending', 'pay_ahead', 7, 1, now() + interval '2 seconds')`,
      [u.userId],
    );
    const ahead = await server.request('GET', '/v1/payments/reconciliation', { key: u.key });
    expect(ahead.json.events.map((e: any) => e.payment_id)).toContain('pay_ahead');
    const bounded = await server.request('GET', `/v1/payments/reconciliation?to=${encodeURIComponent(new Date().toISOString())}`, { key: u.key });
    expect(bounded.json.events.map((e: any) => e.payment_id)).not.toContain('pay_ahead');
    // Owner-scoped: another user sees none of them.
    const other = await makeUser(server, 'pro');
    expect((await server.request('GET', '/v1/payments/reconciliation', { key: other.key })).json.count).toBe(0);
    expect((await server.request('GET', '/v1/payments/reconciliation', { key: null })).status).toBe(401);
  });
});

describe(`governance audit (${DB_KIND})`, () => {
  it('is paginated, newest first, owner-scoped and filterable', async () => {
    const u = await makeUser(server, 'pro');
    const p = principalOf(u.userId, u.keyId);
    for (let i = 0; i < 5; i++) {
      await audit(server.app.services, p, 'project.update', { type: 'project', id: `p${i}` }, 'success', { detail: { n: i, api_key: 'gc_' + 'a'.repeat(32) } });
    }
    await audit(server.app.services, p, 'key.revoke', { type: 'api_key', id: u.keyId }, 'denied');
    const page1 = await server.request('GET', '/v1/governance/audit?page_size=4', { key: u.key });
    expect(page1.status).toBe(200);
    expect(page1.json).toMatchObject({ page: 1, page_size: 4, total: 6, has_more: true });
    expect(page1.json.items).toHaveLength(4);
    expect(page1.json.items[0]).toMatchObject({ action: 'key.revoke', outcome: 'denied', actor: { user_id: u.userId, key_id: u.keyId, via: 'api_key' }, target: { type: 'api_key', id: u.keyId } });
    const page2 = await server.request('GET', '/v1/governance/audit?page_size=4&page=2', { key: u.key });
    expect(page2.json.items).toHaveLength(2);
    expect(page2.json.has_more).toBe(false);
    const ids = new Set([...page1.json.items, ...page2.json.items].map((r: any) => r.id));
    expect(ids.size).toBe(6);
    expect(JSON.stringify(page1.json)).not.toContain('gc_aaaa');
    expect((await server.request('GET', '/v1/governance/audit?action=key.revoke', { key: u.key })).json.total).toBe(1);
    expect((await server.request('GET', '/v1/governance/audit?outcome=denied', { key: u.key })).json.total).toBe(1);
    const other = await makeUser(server, 'pro');
    expect((await server.request('GET', '/v1/governance/audit', { key: other.key })).json.total).toBe(0);
    for (const q of ['page=0', 'page_size=101', 'outcome=maybe', 'since=yesterday']) {
      expect((await server.request('GET', `/v1/governance/audit?${q}`, { key: u.key })).status, q).toBe(422);
    }
    expect((await server.request('GET', '/v1/governance/audit', { key: null })).status).toBe(401);
  });
});

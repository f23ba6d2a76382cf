import { SignJWT, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeLicense } from '../../src/domain/commerce/licenses.js';
import { signSvix } from '../../src/providers/identityWebhook.js';
import { DB_KIND, type TestServer } from '../helpers/server.js';
import { expectAudit, IDENTITY_SECRET, makeUser, startCommerceServer, waitFor, type CommerceServer } from './helpers.js';

let cs: CommerceServer;
let server: TestServer;

beforeAll(async () => {
  cs = await startCommerceServer();
  server = cs.server;
});
afterAll(async () => {
  await cs?.close();
});

function identityHeaders(body: string, id = `msg_${Math.random().toString(36).slice(2)}`, secret = IDENTITY_SECRET) {
  const ts = Math.floor(Date.now() / 1000);
  return { 'svix-id': id, 'svix-timestamp': String(ts), 'svix-signature': signSvix(secret, id, ts, body), 'content-type': 'application/json' };
}

describe(`referrals (${DB_KIND})`, () => {
  it('generates one stable code per caller (idempotent) and audits each call', async () => {
    const a = await makeUser(server, 'pro');
    const first = await server.request('POST', '/v1/referrals/generate', { key: a.key });
    expect(first.status).toBe(200);
    expect(first.json.code).toMatch(/^GC-[A-Z2-9]{8}$/);
    expect(first.json.created).toBe(true);
    await expectAudit(server, a.key, first, 'referral.generate');
    const second = await server.request('POST', '/v1/referrals/generate', { key: a.key });
    expect(second.json.code).toBe(first.json.code);
    expect(second.json.created).toBe(false);
    await expectAudit(server, a.key, second, 'referral.generate');
    const other = await makeUser(server, 'free');
    const theirs = await server.request('POST', '/v1/referrals/generate', { key: other.key });
    expect(theirs.json.code).not.toBe(first.json.code);
    expect((await server.request('POST', '/v1/referrals/generate', { key: null })).status).toBe(401);
  });

  it('claims: 200 once, 400 self-referral, 404 unknown code, 409 double claim, 422 missing code', async () => {
    const referrer = await makeUser(server, 'pro');
    const referred = await makeUser(server, 'free');
    const { json: gen } = await server.request('POST', '/v1/referrals/generate', { key: referrer.key });

    const self = await server.request('POST', '/v1/referrals/claim', { key: referrer.key, body: { code: gen.code } });
    expect(self.status).toBe(400);
    await expectAudit(server, referrer.key, self, 'referral.claim', 'denied');

    const unknown = await server.request('POST', '/v1/referrals/claim', { key: referred.key, body: { code: 'GC-ZZZZZZZZ' } });
    expect(unknown.status).toBe(404);
    await expectAudit(server, referred.key, unknown, 'referral.claim', 'denied');

    expect((await server.request('POST', '/v1/referrals/claim', { key: referred.key, body: {} })).status).toBe(422);

    const ok = await server.request('POST', '/v1/referrals/claim', { key: referred.key, body: { code: gen.code.toLowerCase() } });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ claimed: true, code: gen.code });
    await expectAudit(server, referred.key, ok, 'referral.claim');

    const again = await server.request('POST', '/v1/referrals/claim', { key: referred.key, body: { code: gen.code } });
    expect(again.status).toBe(409);
    await expectAudit(server, referred.key, again, 'referral.claim', 'denied');

    const list = await server.request('GET', '/v1/referrals', { key: referrer.key });
    expect(list.status).toBe(200);
    expect(list.json.code).toBe(gen.code);
    expect(list.json.count).toBe(1);
    expect(list.json.referrals[0]).toMatchObject({ referred_user_id: referred.userId, source: 'manual', referred_plan: 'free' });

    const stats = await server.request('GET', '/v1/referrals/stats', { key: referrer.key });
    expect(stats.status).toBe(200);
    expect(stats.json).toMatchObject({ code: gen.code, total_referrals: 1, converted_referrals: 0, claimed_manually: 1, claimed_via_signup: 0 });
    expect((await server.request('GET', '/v1/referrals/stats', { key: null })).status).toBe(401);
  });

  it("claims automatically on the identity provider's signed user.created webhook", async () => {
    const referrer = await makeUser(server, 'team');
    const { json: gen } = await server.request('POST', '/v1/referrals/generate', { key: referrer.key });
    const event = {
      type: 'user.created',
      data: {
        id: 'user_2abcSIGNUP',
        primary_email_address_id: 'idn_1',
        email_addresses: [{ id: 'idn_1', email_address: 'newbie@example.test' }],
        first_name: 'New',
        last_name: 'Bie',
        unsafe_metadata: { referral_code: gen.code },
      },
    };
    const body = JSON.stringify(event);
    const headers = identityHeaders(body, 'msg_signup_1');

    const forged = await server.request('POST', '/v1/webhooks/identity', { key: null, rawBody: body, headers: identityHeaders(body, 'msg_x', 'whsec_' + Buffer.from('wrong').toString('base64')) });
    expect(forged.status).toBe(401);
    const unsigned = await server.request('POST', '/v1/webhooks/identity', { key: null, rawBody: body, headers: { 'content-type': 'application/json' } });
    expect(unsigned.status).toBe(401);

    const res = await server.request('POST', '/v1/webhooks/identity', { key: null, rawBody: body, headers });
    expect(res.status).toBe(200);
    expect(res.json.referral).toMatchObject({ claimed: true });
    const replay = await server.request('POST', '/v1/webhooks/identity', { key: null, rawBody: body, headers });
    expect(replay.json).toMatchObject({ duplicate: true });

    const stats = await server.request('GET', '/v1/referrals/stats', { key: referrer.key });
    expect(stats.json).toMatchObject({ total_referrals: 1, claimed_via_signup: 1 });
    const [row] = await server.app.services.db.query<{ action: string; outcome: string }>(
      `select action, outcome from audit_log where owner_id = $1 and action = 'referral.claim'`, [res.json.user_id]);
    expect(row).toMatchObject({ action: 'referral.claim', outcome: 'success' });
  });
});

describe(`leads (${DB_KIND})`, () => {
  it('stores the lead (201), notifies the sales inbox through the outbox, audits', async () => {
    const u = await makeUser(server, 'free');
    const res = await server.request('POST', '/v1/leads', {
      key: u.key,
      body: { email: 'cto@acme.test', name: 'Ada', company: 'Acme', message: 'We want 40 seats', plan_interest: 'enterprise' },
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ id: expect.any(String), email: 'cto@acme.test', status: 'received' });
    await expectAudit(server, u.key, res, 'lead.create');
    const delivery = await waitFor(async () => {
      const [d] = await server.app.services.db.query<{ recipient: string; subject: string; body: string }>(
        `select recipient, subject, body from email_deliveries where body like $1`, [`%${res.json.id}%`]);
      return d;
    });
    expect(delivery.recipient).toBe('sales@example.test');
    expect(delivery.subject).toContain('Acme');
    expect((await server.request('POST', '/v1/leads', { key: u.key, body: { email: 'not-an-email' } })).status).toBe(422);
    expect((await server.request('POST', '/v1/leads', { key: u.key, body: {} })).status).toBe(422);
    expect((await server.request('POST', '/v1/leads', { key: null, body: { email: 'a@b.test' } })).status).toBe(401);
  });
});

describe(`licenses and metering (${DB_KIND})`, () => {
  it('generates (201, Enterprise only), e-mails through the outbox, validates publicly and meters idempotently', async () => {
    const ent = await makeUser(server, 'enterprise');
    const pro = await makeUser(server, 'pro');
    const denied = await server.request('POST', '/v1/licenses/generate', { key: pro.key, body: { customer_email: 'ops@corp.test' } });
    expect(denied.status).toBe(403);
    expect((await server.request('POST', '/v1/licenses/generate', { key: ent.key, body: { seats: 2 } })).status).toBe(422);

    const gen = await server.request('POST', '/v1/licenses/generate', { key: ent.key, body: { customer_email: 'ops@corp.test', customer_name: 'Corp', seats: 25, expires_in_days: 30 } });
    expect(gen.status).toBe(201);
    expect(gen.json).toMatchObject({ license_id: expect.any(String), plan: 'enterprise', seats: 25, customer_email: 'ops@corp.test', emailed: true });
    const license: string = gen.json.license_key;
    expect(license.split('.')).toHaveLength(3);
    await expectAudit(server, ent.key, gen, 'license.generate');

    const mail = await waitFor(async () => {
      const [d] = await server.app.services.db.query<{ recipient: string; body: string }>(
        `select recipient, body from email_deliveries where recipient = 'ops@corp.test'`);
      return d;
    });
    expect(mail.body).toContain(license);
    const [stored] = await server.app.services.db.query<Record<string, unknown>>('select * from licenses where id = $1', [gen.json.license_id]);
    expect(JSON.stringify(stored)).not.toContain(license);

    const valid = await server.request('POST', '/v1/licenses/validate', { key: null, body: { license_key: license } });
    expect(valid.status).toBe(200);
    expect(valid.json).toMatchObject({ valid: true, reason: null, license_id: gen.json.license_id, seats: 25 });

    const [h, p, s] = license.split('.');
    const tamperedPayload = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), seats: 9999 })).toString('base64url');
    const tampered = await server.request('POST', '/v1/licenses/validate', { key: null, body: { license_key: `${h}.${tamperedPayload}.${s}` } });
    expect(tampered.json).toMatchObject({ valid: false, reason: 'bad_signature' });
    expect((await server.request('POST', '/v1/licenses/validate', { key: null, body: { license_key: 'nope' } })).json).toMatchObject({ valid: false, reason: 'malformed' });
    expect((await server.request('POST', '/v1/licenses/validate', { key: null, body: {} })).status).toBe(422);

    // A license signed by someone else's key, and an expired one signed by the service's own key.
    const foreign = await generateKeyPair('EdDSA', { crv: 'Ed25519' });
    const forged = await new SignJWT({ plan: 'enterprise', seats: 1 }).setProtectedHeader({ alg: 'EdDSA', kid: 'x', typ: 'gc-license+jwt' }).setSubject(gen.json.license_id).setExpirationTime('1d').sign(foreign.privateKey);
    expect((await server.request('POST', '/v1/licenses/validate', { key: null, body: { license_key: forged } })).json).toMatchObject({ valid: false, reason: 'unknown_signing_key' });
    const { signingKeys } = await import('../../src/domain/identity/signingKeys.js');
    const [own] = await signingKeys(server.app.services.db);
    const expired = await new SignJWT({ plan: 'enterprise', seats: 1 })
      .setProtectedHeader({ alg: 'EdDSA', kid: own!.kid, typ: 'gc-license+jwt' })
      .setIssuer('semantic-compression-service').setAudience('gc-self-hosted').setSubject(gen.json.license_id)
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200).setExpirationTime(Math.floor(Date.now() / 1000) - 3600).sign(own!.privateKey);
    expect((await server.request('POST', '/v1/licenses/validate', { key: null, body: { license_key: expired } })).json).toMatchObject({ valid: false, reason: 'expired' });

    // Metering: license in Authorization; 202; idempotent per period and instance; feeds usage.
    const report = { period: new Date().toISOString().slice(0, 7), compressions: 120, tokens_saved: 50_000, instance_id: 'node-a' };
    const noAuth = await server.request('POST', '/v1/metering', { key: null, body: report });
    expect(noAuth.status).toBe(401);
    const badAuth = await server.request('POST', '/v1/metering', { key: null, body: report, headers: { authorization: `Bearer ${expired}` } });
    expect(badAuth.status).toBe(401);
    expect(badAuth.json.detail).toContain('expired');
    const m1 = await server.request('POST', '/v1/metering', { key: null, body: report, headers: { authorization: `License ${license}` } });
    expect(m1.status).toBe(202);
    expect(m1.json).toMatchObject({ accepted: true, duplicate: false, license_id: gen.json.license_id, compressions: 120 });
    await expectAudit(server, ent.key, m1, 'metering.report');
    const m2 = await server.request('POST', '/v1/metering', { key: null, body: { ...report, compressions: 999 }, headers: { authorization: `Bearer ${license}` } });
    expect(m2.status).toBe(202);
    expect(m2.json).toMatchObject({ duplicate: true, report_id: m1.json.report_id, compressions: 120 });
    await expectAudit(server, ent.key, m2, 'metering.report');
    expect((await server.request('POST', '/v1/metering', { key: null, body: { ...report, period: '2026-13' }, headers: { authorization: `Bearer ${license}` } })).status).toBe(422);
    const preview = await server.request('GET', '/v1/billing/overage-preview', { key: ent.key });
    expect(preview.json).toMatchObject({ used_units: 120, included_units: -1, billed_cents: 0 });

    // A revoked license stops validating and metering.
    await revokeLicense(server.app.services.db, ent.userId, gen.json.license_id);
    expect((await server.request('POST', '/v1/licenses/validate', { key: null, body: { license_key: license } })).json).toMatchObject({ valid: false, reason: 'revoked' });
    expect((await server.request('POST', '/v1/metering', { key: null, body: report, headers: { authorization: `Bearer ${license}` } })).status).toBe(401);
  });
});

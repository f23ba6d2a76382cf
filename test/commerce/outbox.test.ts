import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DB_KIND, type TestServer } from '../helpers/server.js';
import { expectAudit, makeUser, SmtpSink, startCommerceServer, waitFor, type CommerceServer } from './helpers.js';

let cs: CommerceServer;
let server: TestServer;
const sink = new SmtpSink();

beforeAll(async () => {
  await sink.start();
  cs = await startCommerceServer({ smtpUrl: sink.url, mailFrom: 'GC <no-reply@gc.test>' });
  server = cs.server;
});
afterAll(async () => {
  await cs?.close();
  await sink.stop();
});

type OutboxState = { status: string; attempts: number; last_error: string | null };
const outboxRow = async (id: string) => {
  const [row] = await server.app.services.db.query<OutboxState>(`select status, attempts, last_error from outbox where payload->>'text' like $1`, [`%${id}%`]);
  return row!;
};

describe(`outbox over SMTP (${DB_KIND})`, () => {
  it('delivers a lead notification through the real SMTP client', async () => {
    const u = await makeUser(server, 'free');
    const res = await server.request('POST', '/v1/leads', { key: u.key, body: { email: 'lead@corp.test', company: 'Corp' } });
    expect(res.status).toBe(201);
    await expectAudit(server, u.key, res, 'lead.create');
    const msg = await waitFor(async () => sink.messages.find((m) => m.data.includes(res.json.id)));
    expect(msg.to.join()).toContain('sales@example.test');
    expect(msg.data).toContain('Subject: New lead: Corp');
    await waitFor(async () => (await outboxRow(res.json.id)).status === 'delivered');
  });

  it('loses nothing while the mail provider is down: retries with back-off, delivers after restart', async () => {
    const u = await makeUser(server, 'enterprise');
    await sink.stop();
    const lead = await server.request('POST', '/v1/leads', { key: u.key, body: { email: 'outage@corp.test', company: 'Outage Inc' } });
    expect(lead.status).toBe(201);
    const license = await server.request('POST', '/v1/licenses/generate', { key: u.key, body: { customer_email: 'ops@outage.test' } });
    expect(license.status).toBe(201);
    await expectAudit(server, u.key, license, 'license.generate');

    // The sender keeps failing: attempts grow, the rows stay pending, the breaker opens.
    await waitFor(async () => (await outboxRow(lead.json.id)).attempts >= 2);
    const failing = await outboxRow(lead.json.id);
    expect(failing.status).toBe('pending');
    expect(failing.last_error).toMatch(/ECONNREFUSED|connect/i);
    await waitFor(async () => {
      const diag = await server.request('GET', '/health/diagnostics', { key: null });
      return diag.json.circuit_breakers.email_provider.state !== 'closed';
    });
    expect(sink.messages.some((m) => m.data.includes(lead.json.id))).toBe(false);

    // Recovery on the same port: the waiting rows go out, nothing lost, nothing twice.
    await sink.start();
    await waitFor(async () => (await outboxRow(lead.json.id)).status === 'delivered' && (await outboxRow(license.json.license_id)).status === 'delivered', 10_000);
    expect(sink.messages.filter((m) => m.data.includes(lead.json.id))).toHaveLength(1);
    const licenseMail = sink.messages.filter((m) => m.data.includes(license.json.license_id));
    expect(licenseMail).toHaveLength(1);
    expect(licenseMail[0]!.to.join()).toContain('ops@outage.test');
    const [pending] = await server.app.services.db.query<{ n: number }>(`select count(*)::int as n from outbox where status <> 'delivered'`);
    expect(pending!.n).toBe(0);
  });
});

// Webhook signing secrets at rest (issue 45): sealed with AES-256-GCM like provider keys, shown once
// at creation, and deliveries still signed so the receiver verifies them with the secret it was
// shown. Secrets an earlier version stored in plain text are sealed at start; a server key configured
// later re-seals the installation-key ones; a key the process lacks leaves the row and says so.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueEvent, verifySignature } from '../../src/domain/federation/webhooks.js';
import { openWebhookSecret, startWebhookSealing } from '../../src/domain/federation/webhookSecrets.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { startReceiver, until } from './helpers.js';

let server: TestServer;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let ownerId: string;

beforeAll(async () => {
  receiver = await startReceiver();
  server = await startTestServer({ federation: { allowedHosts: [receiver.host], sweepMs: 5000 } });
  ownerId = (await server.app.services.db.query<{ id: string }>('select id from users limit 1'))[0]!.id;
});
afterAll(async () => {
  await server?.close();
  await receiver?.close();
});

const stored = async (id: string) =>
  (await server.app.services.db.query<{ secret: string }>('select secret from user_webhooks where id = $1', [id]))[0]!.secret;

/** Queues one event for the owner's webhooks (the outbox delivers it) and waits for its arrival. */
async function deliverOne(): Promise<{ headers: Record<string, unknown>; body: string }> {
  const id = randomBytes(8).toString('hex');
  await enqueueEvent(server.app.services.db, ownerId, { id, type: 'a2a.task.status', created_at: new Date().toISOString(), data: { probe: id } });
  await server.app.services.commerce.outbox.drainOnce();
  const got = await until(() => receiver.received.find((r) => r.body.includes(id)), (r) => r !== undefined);
  if (!got) {
    const rows = await server.app.services.db.query<{ status: string; last_error: string | null }>(`select status, last_error from outbox where kind = 'webhook' and payload::text like $1`, [`%${id}%`]);
    expect.fail(`the event did not reach the receiver: ${JSON.stringify(rows)}`);
  }
  return got!;
}

const log = { lines: [] as string[], info(m: string) { this.lines.push(m); }, warn(m: string, f?: Record<string, unknown>) { this.lines.push(`${m} ${JSON.stringify(f)}`); } };

describe(`webhook secrets at rest (${DB_KIND})`, () => {
  let hookId: string;
  let secret: string;

  it('the secret is shown once and stored sealed; deliveries verify with it', async () => {
    const created = await server.request('POST', '/v1/webhooks', { body: { url: receiver.url, events: ['a2a.task.status'] } });
    expect(created.status).toBe(201);
    ({ webhook_id: hookId, secret } = created.json);
    expect(secret).toMatch(/^whsec_[0-9a-f]{48}$/);
    const column = await stored(hookId);
    expect(column).toMatch(/^sealed:install:v1\./);
    expect(column).not.toContain(secret.slice(6, 20));
    // Listing never shows it.
    expect(JSON.stringify((await server.request('GET', '/v1/webhooks')).json)).not.toContain(secret);
    const got = await deliverOne();
    expect(verifySignature(secret, got.headers['x-gc-signature'] as string, got.body)).toBe(true);
    expect(verifySignature(`whsec_${'0'.repeat(48)}`, got.headers['x-gc-signature'] as string, got.body)).toBe(false);
  });

  it('a sealed secret does not open under another webhook (the id is bound in)', async () => {
    await expect(openWebhookSecret(server.app.services.db, '00000000-0000-4000-8000-000000000000', await stored(hookId))).rejects.toThrow();
  });

  it('a plain secret an earlier version stored is sealed at start and keeps verifying', async () => {
    const db = server.app.services.db;
    const legacy = `whsec_${randomBytes(24).toString('hex')}`;
    await db.query('update user_webhooks set secret = $2 where id = $1', [hookId, legacy]);
    expect(await startWebhookSealing(db, null, log)).toBe(1);
    const column = await stored(hookId);
    expect(column).toMatch(/^sealed:install:/);
    expect(column).not.toContain(legacy.slice(6));
    const got = await deliverOne();
    expect(verifySignature(legacy, got.headers['x-gc-signature'] as string, got.body)).toBe(true);
    secret = legacy;
  });

  it('a server key configured later re-seals; a process without it leaves the row and logs why', async () => {
    const db = server.app.services.db;
    const serverKey = randomBytes(32);
    try {
      expect(await startWebhookSealing(db, serverKey, log)).toBe(1);
      expect(await stored(hookId)).toMatch(/^sealed:server:v1\./);
      const got = await deliverOne();
      expect(verifySignature(secret, got.headers['x-gc-signature'] as string, got.body)).toBe(true);
      // Restarted without PROVIDER_KEY_SECRET: nothing rewritten, the reason logged with the webhook's id only.
      const before = await stored(hookId);
      expect(await startWebhookSealing(db, null, log)).toBe(0);
      expect(await stored(hookId)).toBe(before);
      expect(log.lines.at(-1)).toContain(hookId);
      expect(log.lines.join('\n')).not.toContain(secret);
    } finally {
      // Back as the server started (no server key): re-create the webhook's secret state it can open.
      await startWebhookSealing(db, serverKey, log);
      await db.query('delete from user_webhooks where id = $1', [hookId]);
      await startWebhookSealing(db, null, log);
    }
  });
});

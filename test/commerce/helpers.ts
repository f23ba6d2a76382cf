import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { expect } from 'vitest';
import type { Plan } from '../../src/auth/plans.js';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import type { CommerceRuntime, CommerceSettings } from '../../src/domain/commerce/commerce.js';
import { createUser } from '../../src/domain/identity/users.js';
import { startTestServer, type TestResponse, type TestServer } from '../helpers/server.js';
import { waitFor as poll } from '../helpers/waitFor.js';

export const IDENTITY_SECRET = `whsec_${randomBytes(24).toString('base64')}`;

export interface CommerceServer {
  server: TestServer;
  commerce: CommerceRuntime;
  close(): Promise<void>;
}

/** A real server whose commerce area (services.commerce) has fast outbox/breaker timings for tests. */
export async function startCommerceServer(overrides: Partial<CommerceSettings> = {}): Promise<CommerceServer> {
  const settings: Partial<CommerceSettings> = {
    stripeApiBase: null,
    stripeSecretKey: null,
    stripeWebhookSecret: null,
    smtpUrl: null,
    identityWebhookSecret: IDENTITY_SECRET,
    salesInbox: 'sales@example.test',
    outboxPollMs: 50,
    outboxBackoffBaseMs: 50,
    outboxBackoffMaxMs: 200,
    meterSyncMs: 0,
    breakerThreshold: 2,
    breakerCoolDownMs: 300,
    paymentSecrets: { x402: 'x402-test-secret', stripe_acp: null, skyfire: 'skyfire-test-secret' },
    ...overrides,
  };
  const server = await startTestServer({}, { commerce: settings });
  const commerce = server.app.services.commerce;
  return {
    server,
    commerce,
    async close() {
      await server.close();
    },
  };
}

export async function makeUser(server: TestServer, plan: Plan = 'pro', options: { email?: string } = {}) {
  const db = server.app.services.db;
  const user = await createUser(db, { plan, name: `user-${plan}`, email: options.email ?? null });
  const { key, row } = await createApiKey(db, { userId: user.id, plan, name: 'first' });
  return { userId: user.id, key, keyId: row.key_id };
}

/** The audit row written for the request that produced `res` (matched by request id). */
export async function expectAudit(server: TestServer, key: string | undefined, res: TestResponse, action: string, outcome: 'success' | 'denied' | 'failure' = 'success') {
  const requestId = res.headers.get('x-request-id');
  const list = await server.request('GET', `/v1/governance/audit?action=${encodeURIComponent(action)}&page_size=100`, { key });
  expect(list.status).toBe(200);
  const row = list.json.items.find((r: any) => r.request_id === requestId);
  expect(row, `audit row for ${action} (${requestId})`).toBeDefined();
  expect(row.outcome).toBe(outcome);
  expect(JSON.stringify(row)).not.toMatch(/gc_[0-9a-f]{32}|eyJ[\w-]+\.[\w-]+\.|sk_test|whsec_/);
  return row;
}

export async function waitFor<T>(fn: () => Promise<T | null | undefined | false>, timeoutMs = 5000, stepMs = 25): Promise<T> {
  return (await poll('condition', fn, { timeoutMs, everyMs: stepMs })) as T;
}

/** A minimal SMTP sink (RFC 5321 subset, no TLS) that records messages; stop()/start() keep the port. */
export class SmtpSink {
  readonly messages: { from: string; to: string[]; data: string }[] = [];
  private server: Server | null = null;
  private sockets = new Set<Socket>();
  port = 0;

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const server = createServer((socket) => this.session(socket));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private session(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => {});
    let buffer = '';
    let inData = false;
    let current = { from: '', to: [] as string[], data: '' };
    socket.write('220 sink ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          current.data = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          this.messages.push(current);
          current = { from: '', to: [], data: '' };
          socket.write('250 OK queued\r\n');
          continue;
        }
        const nl = buffer.indexOf('\r\n');
        if (nl < 0) return;
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        const verb = line.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250-sink\r\n250 8BITMIME\r\n');
        else if (verb === 'MAIL') {
          current.from = line;
          socket.write('250 OK\r\n');
        } else if (verb === 'RCPT') {
          current.to.push(line);
          socket.write('250 OK\r\n');
        } else if (verb === 'DATA') {
          inData = true;
          socket.write('354 End data with <CR><LF>.<CR><LF>\r\n');
        } else if (verb === 'QUIT') {
          socket.end('221 Bye\r\n');
        } else socket.write('250 OK\r\n');
      }
    });
  }
}

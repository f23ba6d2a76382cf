import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small Stripe-compatible server (node:http, 127.0.0.1) implementing exactly the subset
 * StripeClient calls, so the same client code runs against it over a real socket. State is in
 * memory and survives stop()/start() (which is how tests simulate a provider outage).
 * It is the default billing provider when STRIPE_API_BASE / STRIPE_SECRET_KEY are not set.
 */

interface Customer { id: string; object: 'customer'; email: string | null; name: string | null; metadata: Record<string, string>; created: number }
interface Session { id: string; object: 'checkout.session'; url: string; customer: string | null; mode: string; status: string; client_reference_id: string | null; metadata: Record<string, string>; subscription: string | null; line_items: { price: string }[] }
interface Subscription {
  id: string; object: 'subscription'; customer: string; status: string; cancel_at_period_end: boolean;
  current_period_start: number; current_period_end: number; metadata: Record<string, string>; created: number;
  items: { object: 'list'; data: { id: string; price: { id: string; metadata: Record<string, string> }; current_period_start: number; current_period_end: number }[] };
}
interface Invoice { id: string; object: 'invoice'; number: string; customer: string; status: string; amount_due: number; amount_paid: number; currency: string; created: number; hosted_invoice_url: string; period_start: number; period_end: number; subscription: string | null }
interface MeterEvent { identifier: string; event_name: string; customer: string; value: number; timestamp: number }

export interface LocalStripeOptions {
  secretKey: string;
  port?: number;
  /** Plan per price id, for the subscriptions completeCheckout creates. */
  pricePlans?: Record<string, string>;
  /** Monthly amount in cents per plan, for the invoices completeCheckout creates. */
  planAmounts?: Record<string, number>;
}

/** Stripe's bracket form encoding back into nested objects / arrays. */
export function parseForm(body: string): Record<string, any> {
  const root: Record<string, any> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const parts = key.split(/\[|\]\[|\]/).filter((p) => p !== '');
    let node: any = root;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) node[part] = value;
      else node = node[part] ??= /^\d+$/.test(parts[i + 1]!) ? [] : {};
    });
  }
  return root;
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

export class LocalStripe {
  readonly customers = new Map<string, Customer>();
  readonly sessions = new Map<string, Session>();
  readonly subscriptions = new Map<string, Subscription>();
  readonly invoices = new Map<string, Invoice>();
  readonly meterEvents = new Map<string, MeterEvent>();
  /** Requests answered, by "METHOD path" (tests assert the client really called the provider). */
  readonly calls: string[] = [];
  private server: Server | null = null;
  private port = 0;
  private invoiceSeq = 1;

  constructor(private readonly options: LocalStripeOptions) {
    this.port = options.port ?? 0;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.server !== null;
  }

  async start(): Promise<void> {
    if (this.server) return;
    const server = createServer((req, res) => {
      this.handle(req, res).catch((err) => this.send(res, 500, { error: { type: 'api_error', message: String(err) } }));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    server.unref();
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops listening and drops open connections: the outage tests rely on this. */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  private send(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }

  private error(res: ServerResponse, status: number, message: string, type = 'invalid_request_error'): void {
    this.send(res, status, { error: { type, message } });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    if (req.headers.authorization !== `Bearer ${this.options.secretKey}`) {
      return this.error(res, 401, 'Invalid API Key provided', 'authentication_error');
    }
    const form = method === 'POST' ? parseForm(Buffer.concat(chunks).toString('utf8')) : parseForm(url.search.slice(1));
    const path = url.pathname;
    this.calls.push(`${method} ${path}`);

    if (method === 'POST' && path === '/v1/customers') {
      const customer: Customer = { id: id('cus'), object: 'customer', email: form.email ?? null, name: form.name ?? null, metadata: form.metadata ?? {}, created: nowSeconds() };
      this.customers.set(customer.id, customer);
      return this.send(res, 200, customer);
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      if (form.customer && !this.customers.has(form.customer)) return this.error(res, 400, `No such customer: '${form.customer}'`);
      const items = (form.line_items ?? []) as { price: string }[];
      if (!items.length) return this.error(res, 400, 'line_items is required in subscription mode');
      const sid = id('cs_test');
      const session: Session = {
        id: sid, object: 'checkout.session', url: `${this.url}/c/pay/${sid}`, customer: form.customer ?? null,
        mode: form.mode ?? 'payment', status: 'open', client_reference_id: form.client_reference_id ?? null,
        metadata: form.metadata ?? {}, subscription: null, line_items: items,
      };
      this.sessions.set(sid, session);
      return this.send(res, 200, session);
    }
    if (method === 'POST' && path === '/v1/billing_portal/sessions') {
      if (!form.customer || !this.customers.has(form.customer)) return this.error(res, 400, `No such customer: '${form.customer}'`);
      const pid = id('bps');
      return this.send(res, 200, { id: pid, object: 'billing_portal.session', url: `${this.url}/p/session/${pid}`, customer: form.customer, return_url: form.return_url ?? null });
    }
    if (method === 'GET' && path === '/v1/subscriptions') {
      const data = [...this.subscriptions.values()].filter((s) => !form.customer || s.customer === form.customer).sort((a, b) => b.created - a.created);
      return this.send(res, 200, { object: 'list', data: data.slice(0, Number(form.limit ?? 10)), has_more: false, url: path });
    }
    if (method === 'GET' && path === '/v1/invoices') {
      const data = [...this.invoices.values()].filter((i) => !form.customer || i.customer === form.customer).sort((a, b) => b.created - a.created);
      return this.send(res, 200, { object: 'list', data: data.slice(0, Number(form.limit ?? 10)), has_more: false, url: path });
    }
    const summary = /^\/v1\/billing\/meters\/([^/]+)\/event_summaries$/.exec(path);
    if (method === 'GET' && summary) {
      const start = Number(form.start_time);
      const end = Number(form.end_time);
      if (!form.customer || !Number.isFinite(start) || !Number.isFinite(end)) return this.error(res, 400, 'customer, start_time and end_time are required');
      let total = 0;
      for (const e of this.meterEvents.values()) if (e.customer === form.customer && e.timestamp >= start && e.timestamp < end) total += e.value;
      return this.send(res, 200, {
        object: 'list', has_more: false, url: path,
        data: [{ id: id('mtrusg'), object: 'billing.meter_event_summary', aggregated_value: total, start_time: start, end_time: end, meter: summary[1] }],
      });
    }
    if (method === 'POST' && path === '/v1/billing/meter_events') {
      const customer = form.payload?.stripe_customer_id;
      const value = Number(form.payload?.value ?? 1);
      if (!form.event_name || !customer || !Number.isFinite(value)) return this.error(res, 400, 'event_name and payload[stripe_customer_id] are required');
      const identifier = form.identifier ?? id('mevt');
      if (!this.meterEvents.has(identifier)) {
        this.meterEvents.set(identifier, { identifier, event_name: form.event_name, customer, value, timestamp: Number(form.timestamp ?? nowSeconds()) });
      }
      return this.send(res, 200, { object: 'billing.meter_event', identifier, event_name: form.event_name, payload: form.payload });
    }
    return this.error(res, 404, `Unrecognized request URL (${method}: ${path})`);
  }

  /**
   * What paying a checkout session does at Stripe: an active subscription and a paid invoice.
   * Returns the `checkout.session.completed` and `customer.subscription.created` event objects
   * a webhook would carry (the caller signs and posts them).
   */
  completeCheckout(sessionId: string): { session: Session; subscription: Subscription; events: Record<string, unknown>[] } {
    const session = this.sessions.get(sessionId);
    if (!session || !session.customer) throw new Error(`unknown session ${sessionId}`);
    const start = nowSeconds();
    const end = start + 30 * 86_400;
    const plan = session.metadata.plan ?? 'pro';
    const subscription: Subscription = {
      id: id('sub'), object: 'subscription', customer: session.customer, status: 'active', cancel_at_period_end: false,
      current_period_start: start, current_period_end: end, metadata: { ...session.metadata }, created: start,
      items: {
        object: 'list',
        data: session.line_items.map((li) => ({ id: id('si'), price: { id: li.price, metadata: { plan: this.options.pricePlans?.[li.price] ?? plan } }, current_period_start: start, current_period_end: end })),
      },
    };
    this.subscriptions.set(subscription.id, subscription);
    session.status = 'complete';
    session.subscription = subscription.id;
    const amount = this.options.planAmounts?.[plan] ?? 4900;
    const invoice: Invoice = {
      id: id('in'), object: 'invoice', number: `LOCAL-${String(this.invoiceSeq++).padStart(4, '0')}`, customer: session.customer,
      status: 'paid', amount_due: amount, amount_paid: amount, currency: 'usd', created: start,
      hosted_invoice_url: `${this.url}/i/${session.customer}`, period_start: start, period_end: end, subscription: subscription.id,
    };
    this.invoices.set(invoice.id, invoice);
    const event = (type: string, object: unknown) => ({ id: id('evt'), object: 'event', type, created: start, livemode: false, data: { object } });
    return {
      session,
      subscription,
      events: [event('checkout.session.completed', session), event('customer.subscription.created', subscription)],
    };
  }

  /** A subscription change event (e.g. cancellation) as the webhook would carry it. */
  subscriptionEvent(subscriptionId: string, type: 'customer.subscription.updated' | 'customer.subscription.deleted', changes: Partial<Subscription> = {}) {
    const sub = this.subscriptions.get(subscriptionId);
    if (!sub) throw new Error(`unknown subscription ${subscriptionId}`);
    Object.assign(sub, changes);
    if (type === 'customer.subscription.deleted') sub.status = 'canceled';
    return { id: id('evt'), object: 'event', type, created: nowSeconds(), livemode: false, data: { object: sub } };
  }
}

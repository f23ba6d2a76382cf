import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CircuitBreaker } from '../lib/breaker.js';

/**
 * A client for the subset of Stripe's REST API the billing area uses. Requests are form-encoded
 * (Stripe's wire format) with the secret key as a bearer token. The same code talks to
 * https://api.stripe.com or to the local Stripe-compatible provider (providers/localStripe.ts).
 */

/** The provider is unreachable, answered 5xx, or its breaker is open: callers answer 503 or fall back. */
export class ProviderUnavailableError extends Error {
  override name = 'ProviderUnavailableError';
  constructor(readonly provider: string, message: string) {
    super(message);
  }
}

/** The provider answered with a 4xx: a request problem, not an outage (does not trip the breaker). */
export class ProviderRequestError extends Error {
  override name = 'ProviderRequestError';
  constructor(readonly status: number, message: string, readonly code: string | null) {
    super(message);
  }
}

export interface StripeList<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
}

export interface StripeCustomer {
  id: string;
  email: string | null;
  metadata: Record<string, string>;
}
export interface StripeCheckoutSession {
  id: string;
  url: string;
  customer: string | null;
  mode: string;
}
export interface StripePortalSession {
  id: string;
  url: string;
}
export interface StripeSubscription {
  id: string;
  customer: string;
  status: string;
  cancel_at_period_end: boolean;
  current_period_start?: number;
  current_period_end?: number;
  metadata: Record<string, string>;
  items: { data: { price: { id: string; lookup_key?: string | null; metadata?: Record<string, string> }; current_period_start?: number; current_period_end?: number }[] };
}
export interface StripeInvoice {
  id: string;
  number: string | null;
  status: string | null;
  amount_due: number;
  amount_paid: number;
  currency: string;
  created: number;
  hosted_invoice_url: string | null;
  period_start: number;
  period_end: number;
}
export interface StripeMeterEventSummary {
  id: string;
  aggregated_value: number;
  start_time: number;
  end_time: number;
}

type FormValue = string | number | boolean | null | undefined | FormValue[] | { [k: string]: FormValue };

/** Stripe's bracket notation: a[b][0][c]=v. */
export function formEncode(params: Record<string, FormValue>): string {
  const out = new URLSearchParams();
  const walk = (prefix: string, value: FormValue) => {
    if (value === undefined || value === null) return;
    if (Array.isArray(value)) value.forEach((v, i) => walk(`${prefix}[${i}]`, v));
    else if (typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(`${prefix}[${k}]`, v);
    else out.append(prefix, String(value));
  };
  for (const [k, v] of Object.entries(params)) walk(k, v);
  return out.toString();
}

export interface StripeClientOptions {
  baseUrl: string;
  secretKey: string;
  breaker: CircuitBreaker;
  timeoutMs?: number;
}

export class StripeClient {
  constructor(private readonly options: StripeClientOptions) {}

  get breaker(): CircuitBreaker {
    return this.options.breaker;
  }

  private async request<T>(method: 'GET' | 'POST', path: string, params: Record<string, FormValue> = {}, idempotencyKey?: string): Promise<T> {
    const { breaker } = this.options;
    if (!breaker.allow()) throw new ProviderUnavailableError('stripe', 'billing provider circuit open');
    const encoded = formEncode(params);
    const url = new URL(path, this.options.baseUrl);
    if (method === 'GET' && encoded) url.search = encoded;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.secretKey}`,
      'stripe-version': '2025-03-31.basil',
    };
    if (method === 'POST') headers['content-type'] = 'application/x-www-form-urlencoded';
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, {
        method,
        headers,
        body: method === 'POST' ? encoded : undefined,
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
      text = await res.text();
    } catch (err) {
      breaker.failure();
      throw new ProviderUnavailableError('stripe', `billing provider unreachable: ${(err as Error).message}`);
    }
    if (res.status >= 500 || res.status === 429) {
      breaker.failure();
      throw new ProviderUnavailableError('stripe', `billing provider answered ${res.status}`);
    }
    breaker.success();
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      throw new ProviderUnavailableError('stripe', 'billing provider answered a non-JSON body');
    }
    if (res.status >= 400) {
      throw new ProviderRequestError(res.status, body?.error?.message ?? `HTTP ${res.status}`, body?.error?.code ?? null);
    }
    return body as T;
  }

  createCustomer(input: { email?: string | null; name?: string | null; userId: string }): Promise<StripeCustomer> {
    return this.request('POST', '/v1/customers', { email: input.email, name: input.name, metadata: { user_id: input.userId } }, `customer-${input.userId}`);
  }

  createCheckoutSession(input: {
    customer: string;
    priceIds: string[];
    successUrl: string;
    cancelUrl: string;
    userId: string;
    plan: string;
  }): Promise<StripeCheckoutSession> {
    return this.request('POST', '/v1/checkout/sessions', {
      mode: 'subscription',
      customer: input.customer,
      client_reference_id: input.userId,
      success_url: input.successUrl,
      cancel_url: input.cancelUrl,
      // Licensed prices carry a quantity; metered prices must not.
      line_items: input.priceIds.map((price, i) => (i === 0 ? { price, quantity: 1 } : { price })),
      metadata: { user_id: input.userId, plan: input.plan },
      subscription_data: { metadata: { user_id: input.userId, plan: input.plan } },
    });
  }

  createPortalSession(input: { customer: string; returnUrl: string }): Promise<StripePortalSession> {
    return this.request('POST', '/v1/billing_portal/sessions', { customer: input.customer, return_url: input.returnUrl });
  }

  listSubscriptions(customer: string): Promise<StripeList<StripeSubscription>> {
    return this.request('GET', '/v1/subscriptions', { customer, status: 'all', limit: 10 });
  }

  listInvoices(customer: string, limit = 24): Promise<StripeList<StripeInvoice>> {
    return this.request('GET', '/v1/invoices', { customer, limit });
  }

  /** Billing meters: the summed usage of one customer between two instants (seconds, minute-aligned). */
  meterEventSummaries(meterId: string, customer: string, startTime: number, endTime: number): Promise<StripeList<StripeMeterEventSummary>> {
    return this.request('GET', `/v1/billing/meters/${encodeURIComponent(meterId)}/event_summaries`, {
      customer,
      start_time: startTime,
      end_time: endTime,
    });
  }

  /** One meter event; Stripe de-duplicates on `identifier`. */
  createMeterEvent(input: { eventName: string; customer: string; value: number; identifier: string; timestamp?: number }) {
    return this.request<{ identifier: string }>('POST', '/v1/billing/meter_events', {
      event_name: input.eventName,
      identifier: input.identifier,
      timestamp: input.timestamp,
      payload: { stripe_customer_id: input.customer, value: String(input.value) },
    });
  }
}

/** Stripe-Signature: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<payload>")>` (several v1 allowed). */
export function signStripePayload(payload: string, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  const mac = createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex');
  return `t=${timestamp},v1=${mac}`;
}

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

export function verifyStripeSignature(payload: string, header: string | undefined, secret: string, toleranceSeconds = 300, now = Date.now()): SignatureCheck {
  if (!header) return { ok: false, reason: 'missing Stripe-Signature header' };
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [k, v] = part.split('=', 2).map((s) => s.trim());
    if (k === 't' && v && /^\d+$/.test(v)) timestamp = Number(v);
    else if (k === 'v1' && v) signatures.push(v);
  }
  if (timestamp === null || signatures.length === 0) return { ok: false, reason: 'malformed Stripe-Signature header' };
  if (Math.abs(now / 1000 - timestamp) > toleranceSeconds) return { ok: false, reason: 'signature timestamp outside the tolerance' };
  const expected = Buffer.from(createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex'));
  for (const sig of signatures) {
    const given = Buffer.from(sig);
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true };
  }
  return { ok: false, reason: 'signature mismatch' };
}

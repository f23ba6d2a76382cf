import { randomBytes } from 'node:crypto';
import { CircuitBreaker } from '../../lib/breaker.js';
import { localEmailProvider, smtpProvider, type EmailProvider } from '../../providers/email.js';
import { LocalStripe } from '../../providers/localStripe.js';
import { StripeClient } from '../../providers/stripe.js';
import type { Services } from '../../services.js';
import { OutboxSender } from './outbox.js';

/**
 * Everything the commerce area holds between requests: provider clients, their circuit breakers,
 * the local providers (defaults), the outbox sender. One per Services instance. startCommerce()
 * is meant to be called once at startup; routes call getCommerce(), which starts it lazily if the
 * startup call was not wired.
 */

export interface CommerceSettings {
  /** Stripe-compatible API base; null starts the in-process local provider. */
  stripeApiBase: string | null;
  stripeSecretKey: string | null;
  stripeWebhookSecret: string | null;
  stripePricePro: string;
  stripePriceProMetered: string | null;
  stripePriceTeam: string;
  stripeMeterId: string;
  stripeMeterEventName: string;
  /** Port for the local Stripe provider (0 = any free port). */
  localStripePort: number;
  checkoutSuccessUrl: string;
  checkoutCancelUrl: string;
  portalReturnUrl: string;
  smtpUrl: string | null;
  mailFrom: string;
  salesInbox: string;
  identityWebhookSecret: string | null;
  outboxPollMs: number;
  outboxBackoffBaseMs: number;
  outboxBackoffMaxMs: number;
  outboxMaxAttempts: number;
  /** 0 disables the periodic meter sync (usage pushed to the provider's meter). */
  meterSyncMs: number;
  breakerThreshold: number;
  breakerCoolDownMs: number;
  /** Shared secrets (HMAC) per payment facilitator; a missing secret leaves events unverified. */
  paymentSecrets: Record<string, string | null>;
}

function env(name: string): string | null {
  const v = process.env[name];
  return v === undefined || v === '' ? null : v;
}

function envInt(name: string, fallback: number): number {
  const raw = env(name);
  if (raw === null) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got '${raw}'`);
  return n;
}

export function settingsFromEnv(): CommerceSettings {
  const secret = env('STRIPE_SECRET_KEY');
  const base = env('STRIPE_API_BASE') ?? (secret ? 'https://api.stripe.com' : null);
  const publicUrl = (env('PUBLIC_URL') ?? 'http://localhost:8080').replace(/\/$/, '');
  return {
    stripeApiBase: base,
    stripeSecretKey: secret,
    stripeWebhookSecret: env('STRIPE_WEBHOOK_SECRET'),
    stripePricePro: env('STRIPE_PRICE_PRO') ?? 'price_local_pro',
    stripePriceProMetered: env('STRIPE_PRICE_PRO_METERED'),
    stripePriceTeam: env('STRIPE_PRICE_TEAM') ?? 'price_local_team',
    stripeMeterId: env('STRIPE_METER_ID') ?? 'mtr_local_compressions',
    stripeMeterEventName: env('STRIPE_METER_EVENT_NAME') ?? 'gc_compressions',
    localStripePort: envInt('LOCAL_STRIPE_PORT', 0),
    checkoutSuccessUrl: env('BILLING_SUCCESS_URL') ?? `${publicUrl}/billing/success?session_id={CHECKOUT_SESSION_ID}`,
    checkoutCancelUrl: env('BILLING_CANCEL_URL') ?? `${publicUrl}/billing/cancel`,
    portalReturnUrl: env('BILLING_PORTAL_RETURN_URL') ?? `${publicUrl}/billing`,
    smtpUrl: env('SMTP_URL'),
    mailFrom: env('MAIL_FROM') ?? 'Semantic Compression <no-reply@localhost>',
    salesInbox: env('SALES_INBOX') ?? 'sales@localhost',
    identityWebhookSecret: env('IDENTITY_WEBHOOK_SECRET'),
    outboxPollMs: envInt('OUTBOX_POLL_MS', 1000),
    outboxBackoffBaseMs: envInt('OUTBOX_BACKOFF_BASE_MS', 2000),
    outboxBackoffMaxMs: envInt('OUTBOX_BACKOFF_MAX_MS', 15 * 60_000),
    outboxMaxAttempts: envInt('OUTBOX_MAX_ATTEMPTS', 20),
    meterSyncMs: envInt('METER_SYNC_MS', 60_000),
    breakerThreshold: envInt('PROVIDER_BREAKER_THRESHOLD', 5),
    breakerCoolDownMs: envInt('PROVIDER_BREAKER_COOLDOWN_MS', 30_000),
    paymentSecrets: {
      x402: env('PAYMENT_SECRET_X402'),
      stripe_acp: env('PAYMENT_SECRET_STRIPE_ACP'),
      skyfire: env('PAYMENT_SECRET_SKYFIRE'),
    },
  };
}

export interface Commerce {
  settings: CommerceSettings;
  stripe: StripeClient;
  /** Present when the in-process Stripe-compatible provider is in use. */
  localStripe: LocalStripe | null;
  /** The secret Stripe-Signature is checked against (generated for the local provider). */
  stripeWebhookSecret: string | null;
  email: EmailProvider;
  outbox: OutboxSender;
  breakers: { billing: CircuitBreaker; email: CircuitBreaker };
  close(): Promise<void>;
}

const started = new WeakMap<Services, Promise<Commerce>>();

/**
 * Starts the commerce area once per Services: local providers (unless real ones are configured),
 * the outbox sender, the meter sync; registers the provider breakers in services.breakers so
 * /health/diagnostics shows them. Later calls return the same instance.
 */
export function startCommerce(services: Services, overrides: Partial<CommerceSettings> = {}): Promise<Commerce> {
  let commerce = started.get(services);
  if (!commerce) {
    commerce = create(services, { ...settingsFromEnv(), ...overrides }).catch((err) => {
      started.delete(services);
      throw err;
    });
    started.set(services, commerce);
  }
  return commerce;
}

export const getCommerce = (services: Services): Promise<Commerce> => startCommerce(services);

async function create(services: Services, settings: CommerceSettings): Promise<Commerce> {
  const billingBreaker = new CircuitBreaker('billing_provider', settings.breakerThreshold, settings.breakerCoolDownMs);
  const emailBreaker = new CircuitBreaker('email_provider', settings.breakerThreshold, settings.breakerCoolDownMs);
  for (const b of [billingBreaker, emailBreaker]) {
    const i = services.breakers.findIndex((x) => x.name === b.name);
    if (i >= 0) services.breakers.splice(i, 1, b);
    else services.breakers.push(b);
  }

  let localStripe: LocalStripe | null = null;
  let baseUrl = settings.stripeApiBase;
  let secretKey = settings.stripeSecretKey;
  let webhookSecret = settings.stripeWebhookSecret;
  if (!baseUrl) {
    secretKey = `sk_test_local_${randomBytes(12).toString('hex')}`;
    webhookSecret ??= `whsec_local_${randomBytes(16).toString('hex')}`;
    localStripe = new LocalStripe({
      secretKey,
      port: settings.localStripePort,
      pricePlans: { [settings.stripePricePro]: 'pro', [settings.stripePriceTeam]: 'team' },
      planAmounts: { pro: 4900, team: 9900 },
    });
    await localStripe.start();
    baseUrl = localStripe.url;
  }
  const stripe = new StripeClient({ baseUrl, secretKey: secretKey ?? '', breaker: billingBreaker });

  const email = settings.smtpUrl ? smtpProvider(settings.smtpUrl, settings.mailFrom) : localEmailProvider(services.db);
  const outbox = new OutboxSender(
    services.db,
    email,
    emailBreaker,
    {
      pollMs: settings.outboxPollMs,
      backoffBaseMs: settings.outboxBackoffBaseMs,
      backoffMaxMs: settings.outboxBackoffMaxMs,
      maxAttempts: settings.outboxMaxAttempts,
    },
    services.log,
  );
  outbox.start();

  const commerce: Commerce = {
    settings,
    stripe,
    localStripe,
    stripeWebhookSecret: webhookSecret,
    email,
    outbox,
    breakers: { billing: billingBreaker, email: emailBreaker },
    async close() {
      clearInterval(meterTimer);
      await outbox.stop();
      await email.close();
      await localStripe?.stop();
    },
  };

  let meterTimer: NodeJS.Timeout | undefined;
  if (settings.meterSyncMs > 0) {
    const { syncMeters } = await import('./billing.js');
    meterTimer = setInterval(() => {
      void syncMeters(services, commerce).catch((err) => services.log.error('meter sync failed', { error: (err as Error).message }));
    }, settings.meterSyncMs);
    meterTimer.unref();
  }
  return commerce;
}

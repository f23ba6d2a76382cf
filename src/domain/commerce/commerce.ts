import { randomBytes } from 'node:crypto';
import { CircuitBreaker } from '../../lib/breaker.js';
import { localEmailProvider, smtpProvider, type EmailProvider } from '../../providers/email.js';
import { LocalStripe } from '../../providers/localStripe.js';
import { StripeClient } from '../../providers/stripe.js';
import type { CommerceSettings } from '../../commerceSettings.js';
import type { Logger } from '../../lib/log.js';
import type { Db } from '../../store/db.js';
import { OutboxSender } from './outbox.js';
import type { Commerce } from './ports.js';

/**
 * Everything the commerce area holds between requests: provider clients, their circuit breakers,
 * the local providers (defaults), the outbox sender. app.ts creates one with createCommerce() before
 * the Services object and hands it over as services.commerce; its settings come from the
 * configuration (config.commerce, read from the environment in config.ts only).
 */

/** The port (ports.ts) plus what app.ts, which owns the providers, holds. */
export interface CommerceRuntime extends Commerce {
  stripe: StripeClient;
  /** Present when the in-process Stripe-compatible provider is in use. */
  localStripe: LocalStripe | null;
  email: EmailProvider;
  outbox: OutboxSender;
  breakers: { billing: CircuitBreaker; email: CircuitBreaker };
  close(): Promise<void>;
}

/** What creating the commerce area needs; it is built before the Services object. */
export interface CommerceDeps {
  db: Db;
  log: Logger;
  breakers: CircuitBreaker[];
}

export type { CommerceSettings };

/**
 * Starts the commerce area: local providers (unless real ones are configured) and the outbox
 * sender; registers the provider breakers in deps.breakers so /health/diagnostics shows them.
 * The periodic meter sync is started separately (startMeterSync in billing.ts, wired by app.ts).
 */
export async function createCommerce(deps: CommerceDeps, settings: CommerceSettings): Promise<CommerceRuntime> {
  const billingBreaker = new CircuitBreaker('billing_provider', settings.breakerThreshold, settings.breakerCoolDownMs);
  const emailBreaker = new CircuitBreaker('email_provider', settings.breakerThreshold, settings.breakerCoolDownMs);
  for (const b of [billingBreaker, emailBreaker]) {
    const i = deps.breakers.findIndex((x) => x.name === b.name);
    if (i >= 0) deps.breakers.splice(i, 1, b);
    else deps.breakers.push(b);
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

  const email = settings.smtpUrl ? smtpProvider(settings.smtpUrl, settings.mailFrom) : localEmailProvider(deps.db);
  const outbox = new OutboxSender(
    deps.db,
    email,
    emailBreaker,
    {
      pollMs: settings.outboxPollMs,
      backoffBaseMs: settings.outboxBackoffBaseMs,
      backoffMaxMs: settings.outboxBackoffMaxMs,
      maxAttempts: settings.outboxMaxAttempts,
    },
    deps.log,
  );
  outbox.start();

  return {
    settings,
    stripe,
    localStripe,
    stripeWebhookSecret: webhookSecret,
    email,
    outbox,
    breakers: { billing: billingBreaker, email: emailBreaker },
    async close() {
      await outbox.stop();
      await email.close();
      await localStripe?.stop();
    },
  };
}

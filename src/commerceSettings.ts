// The commerce area's settings, read from the environment by config.ts (which owns its settings types).
import type { BillingPricing } from './domain/commerce/pricing.js';

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
  /** Overage pricing (BILLING_FREE_INCLUDED_UNITS, BILLING_PRO_*, BILLING_TEAM_*). */
  pricing: BillingPricing;
}

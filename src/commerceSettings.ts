// The commerce area's settings, read from the environment by config.ts (which owns its settings types).
// Overage pricing per plan too: plain values, no I/O (config.ts fills them from the environment; the
// commerce domain reads them from here).

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

export interface PlanPricing {
  /** Compressions included per billing period; -1 = unlimited. */
  included_units: number;
  unit_amount_cents: number;
  cap_cents: number;
}

/** The configurable part of the pricing: Free's included units, Pro's and Team's full pricing. */
export interface BillingPricing {
  freeIncludedUnits: number;
  pro: PlanPricing;
  team: PlanPricing;
}

/** Defaults of BILLING_FREE_INCLUDED_UNITS, BILLING_PRO_* and BILLING_TEAM_* (docs/commerce.md). */
export const DEFAULT_BILLING_PRICING: BillingPricing = {
  freeIncludedUnits: 1000,
  pro: { included_units: 10_000, unit_amount_cents: 1, cap_cents: 5_000 },
  team: { included_units: 50_000, unit_amount_cents: 1, cap_cents: 20_000 },
};

// What the commerce use cases reach of the commerce area's runtime (commerce.ts builds it: provider
// clients, breakers, the outbox sender). Settings types are the configuration's (src/commerceSettings.ts).
import type { CommerceSettings } from '../../commerceSettings.js';
import type { StripeClient } from '../../providers/stripe.js';

/** The billing provider calls the use cases make (src/providers/stripe.ts implements them). */
export type BillingProvider = Pick<
  StripeClient,
  'createCustomer' | 'createCheckoutSession' | 'createPortalSession' | 'listInvoices' | 'listSubscriptions' | 'meterEventSummaries' | 'createMeterEvent'
>;

export interface Commerce {
  settings: CommerceSettings;
  stripe: BillingProvider;
  /** The secret Stripe-Signature is checked against (generated for the local provider). */
  stripeWebhookSecret: string | null;
  /** Sends what is due now rather than at the next poll. */
  outbox: { drainOnce(): Promise<number> };
}

// Overage pricing per plan: plain values, no I/O (config.ts fills them from the environment).

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

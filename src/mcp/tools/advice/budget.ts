import type { Plan } from '../../../auth/plans.js';

// The context thresholds live with the use cases that apply them (check_context_budget, advise_context).
export { CONTEXT_THRESHOLDS, contextLevel } from '../../../domain/advice/thresholds.js';

/** Default monthly token budgets by plan for check_budget when the caller gives none (documented in docs/). */
export const MONTHLY_TOKEN_BUDGET: Record<Plan, number | null> = {
  free: 1_000_000,
  pro: 25_000_000,
  team: 100_000_000,
  enterprise: null,
};

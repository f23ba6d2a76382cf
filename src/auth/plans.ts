import { forbidden } from '../http/errors.js';

export const PLANS = ['free', 'pro', 'team', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

const RANK: Record<Plan, number> = { free: 0, pro: 1, team: 2, enterprise: 3 };

export function isPlan(value: unknown): value is Plan {
  return typeof value === 'string' && (PLANS as readonly string[]).includes(value);
}

export function planAtLeast(plan: Plan, minimum: Plan): boolean {
  return RANK[plan] >= RANK[minimum];
}

const LABEL: Record<Plan, string> = { free: 'Free', pro: 'Pro', team: 'Team', enterprise: 'Enterprise' };

/** The one place plan gating is decided: 403 naming the plan required. */
export function requirePlan(plan: Plan, minimum: Plan): void {
  if (!planAtLeast(plan, minimum)) {
    throw forbidden(`This operation requires the ${LABEL[minimum]} plan or higher; your plan is ${LABEL[plan]}`);
  }
}

import { DomainError } from '../domain/errors.js';

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

/** A minimum plan, or the exact plans allowed (the spec gates issue detection to Pro or Enterprise). */
export type PlanRule = Plan | readonly Plan[];

export function planAllows(plan: Plan, rule: PlanRule): boolean {
  return typeof rule === 'string' ? planAtLeast(plan, rule) : rule.includes(plan);
}

export function describePlanRule(rule: PlanRule): string {
  return typeof rule === 'string' ? `the ${LABEL[rule]} plan or higher` : `the ${rule.map((p) => LABEL[p]).join(' or ')} plan`;
}

/** The one place plan gating is decided: plan_required (REST 403) naming the plan required. */
export function requirePlan(plan: Plan, rule: PlanRule, what = 'This operation'): void {
  if (!planAllows(plan, rule)) {
    throw new DomainError('plan_required', `${what} requires ${describePlanRule(rule)}; your plan is ${LABEL[plan]}`, {
      extra: { required_plan: typeof rule === 'string' ? rule : rule[0] },
    });
  }
}

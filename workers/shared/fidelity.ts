/** The five fidelity levels of the spec, most aggressive first. */
export const FIDELITIES = ['abstract', 'outline', 'balanced', 'detailed', 'raw'] as const;
export type Fidelity = (typeof FIDELITIES)[number];

/** Share of the original tokens each level keeps (the budget table). */
export const FIDELITY_BUDGET: Record<Fidelity, number> = {
  abstract: 0.05,
  outline: 0.1,
  balanced: 0.2,
  detailed: 0.4,
  raw: 1,
};

export function isFidelity(value: unknown): value is Fidelity {
  return typeof value === 'string' && (FIDELITIES as readonly string[]).includes(value);
}

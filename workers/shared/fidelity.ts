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

/**
 * Fewest tokens each level aims for, however short the input. A share of a short text is smaller
 * than one sentence and its elision marker, so without a floor every level of a 50-token paragraph
 * would keep the same single sentence; per-level floors keep the levels apart (detailed keeps more
 * than balanced) and leave small inputs whole at the upper levels.
 */
export const FIDELITY_FLOOR: Record<Fidelity, number> = {
  abstract: 24,
  outline: 40,
  balanced: 64,
  detailed: 128,
  raw: Number.POSITIVE_INFINITY,
};

/** Token budget of a level for an input of `originalTokens`: its share, raised to its floor (never above the input). */
export function budgetFor(originalTokens: number, fidelity: Fidelity): number {
  const share = Math.floor(originalTokens * FIDELITY_BUDGET[fidelity]);
  return Math.max(share, Math.min(originalTokens, FIDELITY_FLOOR[fidelity]));
}

// quality_score: 1 minus severity weights, blind spots capped (loss is expected of compression;
// unsupported claims are not). Exactly 1 when nothing is found. See docs/detection.md.
import type { DetectedIssue, Severity } from './types.js';

export const HALLUCINATION_WEIGHT: Record<Severity, number> = { high: 0.25, medium: 0.12, low: 0.04 };
export const BLIND_SPOT_WEIGHT: Record<Severity, number> = { high: 0.06, medium: 0.03, low: 0.01 };
/** Blind spots together never take more than this off the score. */
export const BLIND_SPOT_CAP = 0.4;

export function qualityScore(issues: readonly DetectedIssue[]): number {
  if (issues.length === 0) return 1;
  let h = 0;
  let b = 0;
  for (const i of issues) {
    if (i.type === 'hallucination') h += HALLUCINATION_WEIGHT[i.severity];
    else b += BLIND_SPOT_WEIGHT[i.severity];
  }
  const score = Math.max(0, 1 - h - Math.min(BLIND_SPOT_CAP, b));
  // Rounded to 3 decimals, and never 1 when something was found.
  return Math.min(0.999, Math.round(score * 1000) / 1000);
}

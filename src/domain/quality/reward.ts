import type { Call } from '../call.js';
import { detectIssues } from '../compression/detection.js';
import { countTokensMany } from '../compression/tokens.js';

export interface RewardInput {
  original_text: string;
  compressed_text: string;
  model?: string;
  /** How many times more fidelity counts than savings (F-beta's beta). */
  fidelity_weight: number;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/**
 * calculate_reward: one score in 0..1 for a compression, trading savings against fidelity.
 *   savings  s = max(0, 1 - compressed_tokens / original_tokens)
 *   fidelity f = the detection engine's quality_score (1 with no issue; lowered per hallucination and
 *                blind spot by severity, as verify_compression reports it)
 *   reward     = (1 + b^2) * s * f / (b^2 * s + f), b = fidelity_weight (0 when s or f is 0)
 * The weighted harmonic mean (F-beta) is high only when both are: deleting everything (s = 1, f low)
 * or changing nothing (f = 1, s = 0) both score near 0. b = 2 weighs fidelity twice as much.
 */
export async function calculateReward(call: Call, input: RewardInput) {
  const [original, compressed] = await countTokensMany(call, [input.original_text, input.compressed_text], input.model);
  const detected = await detectIssues(call, { original_text: input.original_text, compressed_text: input.compressed_text, check_hallucination: true, check_blind_spots: true });
  const s = original! > 0 ? Math.max(0, 1 - compressed! / original!) : 0;
  const f = detected.quality_score;
  const b2 = input.fidelity_weight ** 2;
  const reward = s > 0 && f > 0 ? ((1 + b2) * s * f) / (b2 * s + f) : 0;
  const high = detected.issues.filter((i) => i.severity === 'high').length;
  const count = (type: string) => detected.issues.filter((i) => i.type === type).length;
  return {
    reward: r3(reward),
    savings: r3(s),
    fidelity: r3(f),
    fidelity_weight: input.fidelity_weight,
    original_tokens: original!,
    compressed_tokens: compressed!,
    tokens_saved: Math.max(0, original! - compressed!),
    hallucinations: count('hallucination'),
    blind_spots: count('blind_spot'),
    high_severity_issues: high,
    issues: detected.issues.slice(0, 20),
    formula: 'reward = (1 + b^2) * savings * fidelity / (b^2 * savings + fidelity); savings = max(0, 1 - compressed/original tokens); fidelity = quality_score of the issue detection; b = fidelity_weight',
  };
}

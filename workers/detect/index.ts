// Issue detection between an original text and its compression: hallucinations (claims the original
// does not support) and blind spots (critical information the compression lost). docs/detection.md.
import { SegmentIndex } from './align.js';
import { detectBlindSpots } from './blindspots.js';
import { alignAll, detectHallucinations } from './hallucination.js';
import type { Context } from './hallucination.js';
import { qualityScore } from './score.js';
import { segmentText } from './segment.js';
import type { DetectInput, DetectOptions, DetectResult } from './types.js';

export type { DetectInput, DetectedIssue, DetectResult, DetectOptions, Severity } from './types.js';
export { qualityScore, HALLUCINATION_WEIGHT, BLIND_SPOT_WEIGHT, BLIND_SPOT_CAP } from './score.js';
export { MAX_BLIND_SPOTS, MAX_LOW_BLIND_SPOTS } from './blindspots.js';
export { ELISION, segmentText } from './segment.js';

export async function detectIssues(input: DetectInput, options: DetectOptions = {}): Promise<DetectResult> {
  const checkH = input.check_hallucination !== false;
  const checkB = input.check_blind_spots !== false;
  const original = input.original_text ?? '';
  const compressed = input.compressed_text ?? '';
  if (!checkH && !checkB) return { issues_found: 0, issues: [], quality_score: 1 };
  const orig = segmentText(original);
  const comp = segmentText(compressed);
  const origIndex = new SegmentIndex(orig.segments.map((s) => s.text));
  const compIndex = new SegmentIndex(comp.segments.map((s) => s.text));
  const origByText = new Map<string, number>();
  orig.segments.forEach((s, i) => origByText.has(s.text) || origByText.set(s.text, i));
  const ctx: Context = { orig, comp, origIndex, compTerms: compIndex.docTerms, origByText };
  const alignments = alignAll(ctx);
  const issues = [
    ...(checkH ? await detectHallucinations(ctx, alignments, options.embed) : []),
    ...(checkB ? detectBlindSpots(ctx, alignments, compIndex) : []),
  ];
  return { issues_found: issues.length, issues, quality_score: qualityScore(issues) };
}

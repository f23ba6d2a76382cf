import { DomainError, unavailable } from '../errors.js';
import type { DetectInput, DetectResult } from '../../../workers/detect/index.js';
import type { Call } from '../call.js';

/** The spec gates issue detection to Pro or Enterprise (Team included in neither). */
export const DETECTION_PLANS = ['pro', 'enterprise'] as const;

/** Longer than any real check (a 10k-token pair takes tens of ms); past it the detector is treated as down. */
const DETECT_TIMEOUT_MS = 15_000;

/** Issue detection in the pool; a saturated or stuck detector is the spec's 503 (unavailable), never a hang or a 500. */
export async function detectIssues(call: Call, input: DetectInput): Promise<DetectResult> {
  try {
    return await call.compute('detectIssues', input, { deadlineMs: DETECT_TIMEOUT_MS });
  } catch (err) {
    if (err instanceof DomainError && (err.kind === 'unavailable' || err.kind === 'timeout')) {
      throw unavailable('Issue detection is unavailable right now; retry shortly', 2);
    }
    throw err;
  }
}

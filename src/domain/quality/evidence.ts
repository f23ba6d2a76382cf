import type { Call } from '../call.js';
import { DomainError, unavailable } from '../errors.js';

/** Same deadline as issue detection (src/domain/compression/detection.ts): both run the same alignment. */
const EVIDENCE_TIMEOUT_MS = 15_000;

/** get_evidence_stats: per-claim support of a compressed text in its original, counted in the pool. */
export async function evidenceStats(call: Call, input: { original_text: string; compressed_text: string; max_segments: number }) {
  try {
    return await call.compute('evidenceStats', input, { deadlineMs: EVIDENCE_TIMEOUT_MS });
  } catch (err) {
    if (err instanceof DomainError && (err.kind === 'unavailable' || err.kind === 'timeout')) throw unavailable('Evidence analysis is unavailable right now; retry shortly', 2);
    throw err;
  }
}

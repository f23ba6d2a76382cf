import type { Principal } from '../../auth/principal.js';
import { unavailable } from '../../http/errors.js';
import { PoolBusyError } from '../../pool/pool.js';
import type { Services } from '../../services.js';
import type { DetectInput, DetectResult } from '../../../workers/detect/index.js';

/** The spec gates issue detection to Pro or Enterprise (Team included in neither). */
export const DETECTION_PLANS = ['pro', 'enterprise'] as const;

/** Longer than any real check (a 10k-token pair takes tens of ms); past it the detector is treated as down. */
const DETECT_TIMEOUT_MS = 15_000;

/** Runs issue detection in the pool; an unavailable or stuck detector is a 503, never a hang or a 500. */
export async function detectForCaller(services: Services, _principal: Principal, input: DetectInput, signal?: AbortSignal): Promise<DetectResult> {
  const timeout = AbortSignal.timeout(DETECT_TIMEOUT_MS);
  try {
    return await services.pool.run('detectIssues', input, signal ? AbortSignal.any([signal, timeout]) : timeout);
  } catch (err) {
    if (err instanceof PoolBusyError || timeout.aborted || (err as Error)?.name === 'AbortError') {
      throw unavailable('Issue detection is unavailable right now; retry shortly', 2);
    }
    throw err;
  }
}

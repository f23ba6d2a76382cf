import type { Principal } from '../../auth/principal.js';
import type { Services } from '../../services.js';
import { recordPaymentInBackground } from '../commerce/payments.js';
import { recordUsageInBackground } from '../accounts/usage.js';

/** What a REST compression call reports for billing and analytics. */
export interface RestCompression {
  fidelity: string;
  model?: string | null;
  inputTokens: number;
  outputTokens: number;
  /** performance.now() when the call started. */
  started: number;
  inputText: string | null;
  cacheHit?: boolean;
}

/** One place for a REST compression's side records: its usage event and any payment-signature charge. */
export function recordRestCompression(services: Services, principal: Principal, headers: Record<string, string>, c: RestCompression): void {
  recordPaymentInBackground(services, principal, headers, c.inputTokens - c.outputTokens);
  recordUsageInBackground(services, {
    principal,
    method: 'REST',
    fidelity: c.fidelity,
    model: c.model,
    status: 'success',
    inputTokens: c.inputTokens,
    outputTokens: c.outputTokens,
    latencyMs: performance.now() - c.started,
    cacheHit: c.cacheHit,
    inputText: c.inputText,
  });
}

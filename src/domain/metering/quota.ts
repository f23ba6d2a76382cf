import type { Principal } from '../../auth/principal.js';
import { DomainError } from '../errors.js';
import type { Services } from '../../services.js';
import type { Queryable } from '../../store/db.js';

export type QuotaAlertState = 'none' | 'warning' | 'exceeded';

/** Share of the monthly quota at which the key's alert state becomes 'warning'. */
export const QUOTA_WARNING_RATIO = 0.8;

/** Adds whole calendar months in UTC, clamping the day (Jan 31 + 1 month = Feb 28/29). */
export function addMonths(date: Date, months: number): Date {
  const d = new Date(date.getTime());
  const day = d.getUTCDate();
  d.setUTCDate(1);
  d.setUTCMonth(d.getUTCMonth() + months);
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  d.setUTCDate(Math.min(day, last));
  return d;
}

/** The monthly period containing `now`, counted from quota_period_start (reset on any quota change). */
export function currentQuotaPeriod(periodStart: Date, now = new Date()): { start: Date; end: Date } {
  let months = Math.max(0, (now.getUTCFullYear() - periodStart.getUTCFullYear()) * 12 + now.getUTCMonth() - periodStart.getUTCMonth() - 1);
  while (addMonths(periodStart, months + 1) <= now) months++;
  return { start: addMonths(periodStart, months), end: addMonths(periodStart, months + 1) };
}

export function alertStateFor(used: number, quota: number): QuotaAlertState {
  if (used >= quota) return 'exceeded';
  if (used >= quota * QUOTA_WARNING_RATIO) return 'warning';
  return 'none';
}

export interface QuotaStatus {
  keyId: string;
  quota: number | null;
  used: number;
  enforced: boolean;
  alertState: QuotaAlertState;
  periodStart: Date;
  periodEnd: Date;
}

/**
 * The key's quota standing. Counts successful compression events (advisory MCP calls do not
 * compress and do not count) since the current period's start, and moves quota_alert_state to
 * what the count says (states fall back to 'none' when a new period starts).
 */
export async function quotaStatus(db: Queryable, keyId: string, now = new Date()): Promise<QuotaStatus | null> {
  const [key] = await db.query<{ monthly_quota: number | null; enforce_quota: boolean; quota_alert_state: string; quota_period_start: Date }>(
    'select monthly_quota, enforce_quota, quota_alert_state, quota_period_start from api_keys where key_id = $1',
    [keyId],
  );
  if (!key) return null;
  const period = currentQuotaPeriod(key.quota_period_start, now);
  if (key.monthly_quota === null) {
    return { keyId, quota: null, used: 0, enforced: false, alertState: 'none', periodStart: period.start, periodEnd: period.end };
  }
  const [count] = await db.query<{ n: number }>(
    `select count(*)::int as n from usage_events
      where key_id = $1 and created_at >= $2 and status = 'success' and method <> 'mcp_advisory'`,
    [keyId, period.start],
  );
  const used = count!.n;
  const alertState = alertStateFor(used, key.monthly_quota);
  if (alertState !== key.quota_alert_state) {
    // Conditional on the quota not having changed meanwhile (a PATCH resets the state). JS dates
    // carry milliseconds, the column microseconds: compare at millisecond precision.
    await db.query(
      `update api_keys set quota_alert_state = $2
        where key_id = $1 and date_trunc('milliseconds', quota_period_start) = $3 and monthly_quota = $4`,
      [keyId, alertState, key.quota_period_start, key.monthly_quota],
    );
  }
  return { keyId, quota: key.monthly_quota, used, enforced: key.enforce_quota, alertState, periodStart: period.start, periodEnd: period.end };
}

/** No quota to count: an identity-provider session, or an uncapped key (as of authentication, at most AUTH_CACHE_MS old). */
export function quotaUncounted(principal: Principal): boolean {
  return !principal.keyId || principal.monthlyQuota === null;
}

/**
 * Call before a compression runs. Refuses with 429 (Retry-After = seconds until the next period)
 * when the key's quota is enforced and already used up; otherwise only updates the alert state.
 * Identity-provider sessions have no key and no key quota.
 */
export async function enforceQuota(services: Services, principal: Principal): Promise<void> {
  if (quotaUncounted(principal) || !principal.keyId) return;
  const status = await quotaStatus(services.db, principal.keyId);
  if (!status || status.quota === null || !status.enforced || status.used < status.quota) return;
  const retryAfter = Math.max(1, Math.ceil((status.periodEnd.getTime() - Date.now()) / 1000));
  throw new DomainError(
    'quota_exceeded',
    `Monthly quota exhausted for API key '${status.keyId}': ${status.used} of ${status.quota} compressions used ` +
      `in the period that started ${status.periodStart.toISOString()}; it resets at ${status.periodEnd.toISOString()}`,
    { retryAfter },
  );
}

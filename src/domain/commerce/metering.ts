import type { Queryable } from '../../store/db.js';

export interface MeteringReport {
  period: string;
  compressions: number;
  tokens_saved: number;
  instance_id: string;
}

/**
 * Records a self-hosted instance's usage for one period. Idempotent per (license, period,
 * instance): a repeated report returns the first one (duplicate true) and changes nothing.
 * The reports count in the license owner's billed usage (billing.usedUnits).
 */
export async function recordMeteringReport(db: Queryable, licenseId: string, userId: string, r: MeteringReport) {
  const [inserted] = await db.query<{ id: string; created_at: Date }>(
    `insert into metering_reports (license_id, user_id, period, instance_id, compressions, tokens_saved)
     values ($1, $2, $3, $4, $5, $6) on conflict (license_id, period, instance_id) do nothing returning id, created_at`,
    [licenseId, userId, r.period, r.instance_id, r.compressions, r.tokens_saved],
  );
  if (inserted) return { report_id: inserted.id, duplicate: false, received_at: inserted.created_at, compressions: r.compressions };
  const [prior] = await db.query<{ id: string; created_at: Date; compressions: number }>(
    'select id, created_at, compressions from metering_reports where license_id = $1 and period = $2 and instance_id = $3',
    [licenseId, r.period, r.instance_id],
  );
  return { report_id: prior!.id, duplicate: true, received_at: prior!.created_at, compressions: prior!.compressions };
}

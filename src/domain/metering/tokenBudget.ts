import type { Queryable } from '../../store/db.js';

const PERIOD_START_SQL = {
  daily: "date_trunc('day', now())",
  monthly: "date_trunc('month', now())",
} as const;

/**
 * Input tokens a user sent (all methods) in a window, and the share of the window gone by (check_budget):
 * since a session started (share 1: a session has no end), or in the current UTC day or month (at least
 * a minute's share, so an early projection stays finite).
 */
export async function tokensUsed(db: Queryable, userId: string, window: { scope: 'session'; since: Date } | { scope: 'daily' | 'monthly' }): Promise<{ used: number; elapsedShare: number }> {
  if (window.scope === 'session') {
    const [row] = await db.query<{ used: number }>(`select coalesce(sum(input_tokens), 0)::int as used from usage_events where user_id = $1 and created_at >= $2`, [userId, window.since]);
    return { used: row!.used, elapsedShare: 1 };
  }
  const start = PERIOD_START_SQL[window.scope];
  const [row] = await db.query<{ used: number; elapsed: number }>(
    `select coalesce(sum(input_tokens), 0)::int as used,
            extract(epoch from now() - ${start})
              / extract(epoch from (${start} + interval '1 ${window.scope === 'daily' ? 'day' : 'month'}') - ${start}) as elapsed
       from usage_events where user_id = $1 and created_at >= ${start}`,
    [userId],
  );
  return { used: row!.used, elapsedShare: Math.max(Number(row!.elapsed), 1 / 1440) };
}

import type { Queryable } from '../../store/db.js';

/**
 * Applies a provider's webhook message once per message id (webhook_events): a repeated delivery is
 * `duplicate`; an apply that throws forgets the id, so the provider's retry is processed.
 */
export async function applyOnce<T>(db: Queryable, provider: string, eventId: string, apply: () => Promise<T>): Promise<{ duplicate: true } | { duplicate: false; value: T }> {
  const [fresh] = await db.query<{ event_id: string }>(
    `insert into webhook_events (provider, event_id) values ($1, $2) on conflict do nothing returning event_id`,
    [provider, eventId],
  );
  if (!fresh) return { duplicate: true };
  try {
    return { duplicate: false, value: await apply() };
  } catch (err) {
    await db.query(`delete from webhook_events where provider = $1 and event_id = $2`, [provider, eventId]).catch(() => undefined);
    throw err;
  }
}

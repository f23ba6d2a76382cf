import type { Logger } from '../../lib/log.js';
import type { Queryable } from '../../store/db.js';
import type { KeyActivity as KeyActivityPort } from './ports.js';

/** last_used_at is kept to this resolution: at most one write per key per minute. */
export const LAST_USED_RESOLUTION_MS = 60_000;
const TRACKED_KEYS = 100_000;

/**
 * Keeps api_keys.last_used_at current off the request path: the first use of a key in a minute
 * schedules one background UPDATE, later uses in that minute cost a map lookup. The UPDATE itself
 * skips rows written less than a minute ago, so several instances coalesce too.
 */
export class KeyActivity implements KeyActivityPort {
  private readonly lastWrite = new Map<string, number>();

  constructor(
    private readonly db: Queryable,
    private readonly background: { add(label: string, work: Promise<unknown>): void },
    private readonly log: Pick<Logger, 'error'>,
  ) {}

  touch(keyId: string, now = Date.now()): void {
    const last = this.lastWrite.get(keyId);
    if (last !== undefined && now - last < LAST_USED_RESOLUTION_MS) return;
    if (this.lastWrite.size >= TRACKED_KEYS) this.lastWrite.clear();
    this.lastWrite.set(keyId, now);
    this.background.add(
      'key last_used_at',
      this.db
        .query(
          `update api_keys set last_used_at = now()
            where key_id = $1 and (last_used_at is null or last_used_at < now() - interval '${LAST_USED_RESOLUTION_MS / 1000} seconds')`,
          [keyId],
        )
        .catch((err) => this.log.error('last_used_at not written', { key_id: keyId, error: err instanceof Error ? err.message : String(err) })),
    );
  }
}

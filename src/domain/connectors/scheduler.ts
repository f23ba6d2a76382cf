// Scheduled connector syncs: a loop (like the workflow run executor) that every CONNECTOR_POLL_MS
// claims feeds whose next_sync_at has passed and syncs them one after another. Across instances each
// due sync happens once: claimDueFeed takes a due feed for this process in one statement, and the
// feed's lease keeps two processes (or a manual sync) from syncing the same feed at once.
import type { Services } from '../../services.js';
import { claimDueFeed } from './feeds.js';
import { SYNC_LEASE_MS, syncFeed } from './sync.js';

/** Feeds synced per poll at most, one after another. */
const BATCH = 4;

export interface ConnectorScheduler {
  close(): Promise<void>;
}

export function startConnectorScheduler(services: Services): ConnectorScheduler {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  const tick = async () => {
    try {
      for (let n = 0; n < BATCH && !stopped; n++) {
        const id = await claimDueFeed(services.db, SYNC_LEASE_MS);
        if (!id) return;
        await syncFeed(services, id).catch((err) => {
          // The error is recorded on the feed (last_error); conflicts mean another sync has it.
          services.log.warn('scheduled connector sync failed', { feed_id: id, error: err instanceof Error ? err.message : String(err) });
        });
      }
    } catch (err) {
      if (!stopped) services.log.warn('connector scheduler poll failed', { error: err instanceof Error ? err.message : String(err) });
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = tick().finally(schedule);
    }, services.config.web.pollMs);
    timer.unref();
  };
  schedule();
  return {
    async close() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}

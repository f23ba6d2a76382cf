import { TERMINAL_STATES, type StreamResponse } from './wire.js';

/**
 * The live events of one task run in this process (status updates, the artifact), for the streams
 * that follow it: message:stream and tasks/{id}:subscribe. The store holds the state; this only carries
 * what happens while someone listens.
 */
export class TaskBus {
  private readonly listeners = new Set<(e: StreamResponse | null) => void>();
  private ended = false;

  publish(event: StreamResponse): void {
    for (const l of this.listeners) l(event);
  }

  /** No more events (the run is over): every follower's iteration ends. */
  end(): void {
    this.ended = true;
    for (const l of this.listeners) l(null);
    this.listeners.clear();
  }

  /**
   * Events from now on, until a terminal status or the end of the run. Attach before starting the work
   * (or before reading the stored state) so nothing falls between.
   */
  follow(): AsyncGenerator<StreamResponse> {
    const queue: (StreamResponse | null)[] = [];
    let wake: (() => void) | null = null;
    const listener = (e: StreamResponse | null) => {
      queue.push(e);
      wake?.();
    };
    if (this.ended) queue.push(null);
    else this.listeners.add(listener);
    const listeners = this.listeners;
    return (async function* () {
      try {
        for (;;) {
          while (queue.length === 0) await new Promise<void>((r) => (wake = r));
          wake = null;
          const e = queue.shift()!;
          if (e === null) return;
          yield e;
          if ('statusUpdate' in e && TERMINAL_STATES.has(e.statusUpdate.status.state)) return;
        }
      } finally {
        listeners.delete(listener);
      }
    })();
  }
}

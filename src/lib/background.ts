import type { Logger } from './log.js';

/** Fire-and-forget writes (usage events) that shutdown still waits for, so none are lost. */
export class BackgroundTasks {
  private readonly pending = new Set<Promise<unknown>>();

  constructor(private readonly log: Logger) {}

  add(label: string, work: Promise<unknown>): void {
    const tracked = work
      .catch((err) => this.log.error(`${label} failed`, { error: err instanceof Error ? err.message : String(err) }))
      .finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  async drain(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }
}

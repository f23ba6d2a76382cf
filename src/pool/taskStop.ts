/**
 * What stops one running task: the abort signal Piscina listens to. Not an AbortController: making one
 * and adding a listener to its signal costs about 8 µs of event-loop CPU on Node 20, once per task;
 * Piscina takes any object with these four members (its AbortSignalEventTarget).
 */
export class TaskStop {
  aborted = false;
  reason: unknown = undefined;
  private listeners: (() => void)[] = [];

  addEventListener(_name: 'abort', listener: () => void): void {
    this.listeners.push(listener);
  }

  removeEventListener(_name: 'abort', listener: () => void): void {
    this.listeners = this.listeners.filter((l) => l !== listener);
  }

  /** Once: listeners hear the first abort only, like an AbortSignal's. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    for (const l of this.listeners.splice(0)) l();
  }
}

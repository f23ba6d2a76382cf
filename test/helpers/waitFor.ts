// Tests wait for the condition they need, never for a fixed time: a loaded machine only makes them
// slower, not wrong. The timeout bounds a condition that never comes; it says nothing about speed.

/** Polling interval: short, so a test waits about as long as its condition takes. */
export const POLL_MS = 20;

export interface WaitOptions {
  /** How long before the test is failed as stuck (not a claim about how fast the condition must come). */
  timeoutMs?: number;
  everyMs?: number;
}

type Truthy<T> = Exclude<T, false | null | undefined | 0 | ''>;

/**
 * Polls `check` until it returns a truthy value and returns that value; throws naming `what` (a function
 * of the state seen last, if the caller keeps one) and the last value.
 */
export async function waitFor<T>(what: string | (() => string), check: () => T | Promise<T>, { timeoutMs = 20_000, everyMs = POLL_MS }: WaitOptions = {}): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as Truthy<T>;
    if (Date.now() > deadline) throw new Error(`${typeof what === 'function' ? what() : what}: not met within ${timeoutMs} ms (last: ${JSON.stringify(value)})`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

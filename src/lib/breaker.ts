export type BreakerState = 'closed' | 'open' | 'half_open';

/** Consecutive-failure circuit breaker: open after `threshold` failures, one trial call after `coolDownMs`. */
export class CircuitBreaker {
  private failures = 0;
  private openedAt = 0;
  private state: BreakerState = 'closed';

  constructor(
    readonly name: string,
    private readonly threshold = 5,
    private readonly coolDownMs = 5_000,
  ) {}

  /** False while open: the caller fails fast instead of waiting on a dead dependency. */
  allow(now = Date.now()): boolean {
    if (this.state !== 'open') return true;
    if (now - this.openedAt >= this.coolDownMs) {
      this.state = 'half_open';
      return true;
    }
    return false;
  }

  success(): void {
    this.failures = 0;
    this.state = 'closed';
  }

  failure(now = Date.now()): void {
    this.failures++;
    if (this.state === 'half_open' || this.failures >= this.threshold) {
      this.state = 'open';
      this.openedAt = now;
    }
  }

  snapshot() {
    return { state: this.state, consecutive_failures: this.failures };
  }
}

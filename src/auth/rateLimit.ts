import type { Redis } from 'ioredis';
import { DomainError } from '../domain/errors.js';
import type { Plan } from './plans.js';
import type { Principal } from './principal.js';
import type { RateLimiter } from '../domain/identity/ports.js';

export type { RateLimiter };

/** Requests per minute per key (or per user for JWT sessions); the spec leaves the values open. */
export const DEFAULT_RATE_LIMITS: Record<Plan, number> = { free: 60, pro: 600, team: 1200, enterprise: 6000 };

const WINDOW_MS = 60_000;

function refuse(limit: number, now: number): never {
  const retryAfter = Math.max(1, Math.ceil((WINDOW_MS - (now % WINDOW_MS)) / 1000));
  throw new DomainError('rate_limited', `Rate limit of ${limit} requests per minute exceeded; retry in ${retryAfter} s`, { retryAfter });
}

const subject = (p: Principal) => p.keyId ?? `user:${p.userId}`;

/** Fixed one-minute windows in this process (single instance). */
export function memoryRateLimiter(limits: Record<Plan, number>): RateLimiter {
  const counts = new Map<string, number>();
  let window = Math.floor(Date.now() / WINDOW_MS);
  return {
    async check(principal) {
      const now = Date.now();
      const current = Math.floor(now / WINDOW_MS);
      if (current !== window) {
        counts.clear();
        window = current;
      }
      const key = subject(principal);
      const used = (counts.get(key) ?? 0) + 1;
      counts.set(key, used);
      if (used > limits[principal.plan]) refuse(limits[principal.plan], now);
    },
  };
}

/**
 * The same windows shared by every instance through Redis. While Redis cannot be reached each instance
 * counts on its own (the in-process windows), so a Redis outage loosens the limit by the number of
 * instances instead of lifting it.
 */
export function redisRateLimiter(redis: Redis, limits: Record<Plan, number>): RateLimiter {
  const local = memoryRateLimiter(limits);
  return {
    async check(principal) {
      const now = Date.now();
      const key = `gc:rl:${subject(principal)}:${Math.floor(now / WINDOW_MS)}`;
      let used: number;
      try {
        const [[, count]] = (await redis.multi().incr(key).pexpire(key, WINDOW_MS * 2).exec()) as [[Error | null, number]];
        used = count;
      } catch {
        return local.check(principal);
      }
      if (used > limits[principal.plan]) refuse(limits[principal.plan], now);
    },
  };
}

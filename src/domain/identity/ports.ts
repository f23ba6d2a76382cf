// What authentication, the key and account use cases reach of the per-instance auth state
// (src/auth/ implements the cache, the rate limiter and the revocation bus; keyActivity.ts the last-use writes).
import type { Principal } from '../../auth/principal.js';

/** Authentication cache: an entry never outlives its TTL, so a revocation elsewhere lands within that bound. */
export interface AuthCache {
  get(keyHash: string, now?: number): Principal | null;
  set(keyHash: string, principal: Principal, keyExpiresAt: number | null, now?: number): void;
  /** Drops every cached entry of a key (revocation on this instance takes effect at once). */
  dropKey(keyId: string): void;
  /** Drops every cached entry of a user (an account setting changed on this instance takes effect at once). */
  dropUser(userId: string): void;
}

export interface RateLimiter {
  /** Throws 429 with Retry-After when the caller's window is used up. */
  check(principal: Principal): Promise<void>;
}

/** Tells every instance that a key was revoked so each drops its cached authentication at once. */
export interface RevocationBus {
  publish(keyId: string): Promise<void>;
}

/** Coalesced api_keys.last_used_at writes (at most one per key per minute). */
export interface KeyActivity {
  touch(keyId: string, now?: number): void;
}

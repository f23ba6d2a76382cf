import type { Redis } from 'ioredis';
import type { Logger } from '../lib/log.js';
import { connectRedis } from '../lib/redis.js';
import type { AuthCache, RevocationBus as RevocationBusPort } from '../domain/identity/ports.js';

const CHANNEL = 'gc:key-revoked';

/**
 * Tells every instance that a key was revoked so each drops its cached authentication at once.
 * Without Redis only this instance is told; the others catch up when their cache entry expires (<= 5 s).
 */
export interface RevocationBus extends RevocationBusPort {
  close(): Promise<void>;
}

export async function startRevocationBus(redisUrl: string | null, cache: AuthCache, log: Logger): Promise<RevocationBus> {
  if (!redisUrl) {
    return { publish: async (keyId) => cache.dropKey(keyId), close: async () => {} };
  }
  const [publisher, subscriber]: Redis[] = await Promise.all([connectRedis(redisUrl), connectRedis(redisUrl)]);
  subscriber!.on('message', (_channel: string, keyId: string) => cache.dropKey(keyId));
  for (const client of [publisher!, subscriber!]) client.on('error', (err: Error) => log.warn('redis error', { error: err.message }));
  await subscriber!.subscribe(CHANNEL);
  return {
    async publish(keyId) {
      cache.dropKey(keyId);
      try {
        await publisher!.publish(CHANNEL, keyId);
      } catch (err) {
        // Other instances still converge through the 5-second cache bound.
        log.warn('revocation publish failed', { error: (err as Error).message });
      }
    },
    async close() {
      subscriber!.disconnect();
      publisher!.disconnect();
    },
  };
}

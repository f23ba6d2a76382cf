import { Redis } from 'ioredis';

/** A Redis connection that fails fast instead of queueing commands forever while Redis is down. */
export function connectRedis(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, lazyConnect: false });
}

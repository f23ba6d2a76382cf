import { Redis } from 'ioredis';

/**
 * A ready Redis connection that fails fast instead of queueing commands forever while Redis is down
 * (callers degrade: a cache miss, a revocation that converges through the 5-second bound).
 */
export async function connectRedis(url: string, timeoutMs = 5000): Promise<Redis> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: timeoutMs });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Redis at ${new URL(url).host} not ready after ${timeoutMs} ms`)), timeoutMs);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  }).catch((err) => {
    redis.disconnect();
    throw err;
  });
  return redis;
}

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freshDatabase } from '../helpers/server.js';
import { waitFor } from '../helpers/waitFor.js';
import { call, startInstance } from './helpers.js';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

/*
 * Two server instances on one database. PGlite is embedded and single-process, so two instances
 * cannot share it: this runs on the PostgreSQL path only.
 */
describe.skipIf(!process.env.DATABASE_URL)('revocation across two instances (postgres)', () => {
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    database = await freshDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  // The owner key is printed only by the first instance ever started on the database.
  let owner: string | null = null;

  /** Auth cache entries that outlive any test: a revocation can only reach B by the fan-out, or by B's clock passing the entry's lifetime. */
  const LONG_CACHE_MS = 60 * 60_000;

  async function pair(redisUrl: string | null) {
    const a = await startInstance(database.databaseUrl!, { redisUrl, authCacheMs: LONG_CACHE_MS });
    owner ??= a.app.ownerKey;
    const b = await startInstance(database.databaseUrl!, { redisUrl, authCacheMs: LONG_CACHE_MS, bootstrapOwner: false });
    return { a, b, owner: owner!, close: async () => Promise.all([a.app.close(), b.app.close()]) };
  }

  it("with Redis, a key revoked on A is rejected on B by the fan-out, with B's cache entry still fresh", async () => {
    const { a, b, owner, close } = await pair(REDIS_URL);
    try {
      const created = await call(a.url, 'POST', '/v1/keys', owner, { name: 'shared' });
      expect(created.status).toBe(201);
      const key = created.json.key as string;
      // B caches the key's authentication for an hour.
      expect((await call(b.url, 'GET', '/v1/keys', key)).status).toBe(200);
      const revoked = await call(a.url, 'DELETE', `/v1/keys/${created.json.key_id}`, owner);
      expect(revoked.status).toBe(200);
      await waitFor('B rejects the revoked key', async () => {
        const res = await call(b.url, 'GET', '/v1/keys', key);
        expect([200, 401]).toContain(res.status);
        return res.status === 401;
      });
    } finally {
      await close();
    }
  });

  it("without Redis, B serves the revoked key from its cache until the entry's lifetime has passed, and not after", async () => {
    const { a, b, owner, close } = await pair(null);
    // Only Date is faked, and it keeps running: the test moves B's clock past the entry's lifetime instead of waiting it out.
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    try {
      const created = await call(a.url, 'POST', '/v1/keys', owner, { name: 'shared-no-redis' });
      const key = created.json.key as string;
      expect((await call(b.url, 'GET', '/v1/keys', key)).status).toBe(200);
      const cachedBy = Date.now();
      expect((await call(a.url, 'DELETE', `/v1/keys/${created.json.key_id}`, owner)).status).toBe(200);
      // A drops its own cache at once; B, told nothing, still answers from its entry.
      expect((await call(a.url, 'GET', '/v1/keys', key)).status).toBe(401);
      expect((await call(b.url, 'GET', '/v1/keys', key)).status).toBe(200);
      vi.setSystemTime(cachedBy + LONG_CACHE_MS);
      expect((await call(b.url, 'GET', '/v1/keys', key)).status).toBe(401);
    } finally {
      vi.useRealTimers();
      await close();
    }
  });
});

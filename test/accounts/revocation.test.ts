import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase } from '../helpers/server.js';
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

  async function pair(redisUrl: string | null) {
    const a = await startInstance(database.databaseUrl!, { redisUrl });
    owner ??= a.app.ownerKey;
    const b = await startInstance(database.databaseUrl!, { redisUrl, bootstrapOwner: false });
    return { a, b, owner: owner!, close: async () => Promise.all([a.app.close(), b.app.close()]) };
  }

  /** Polls B until the key is rejected; returns how long that took. */
  async function timeUntilRejected(url: string, key: string, limitMs: number): Promise<number> {
    const started = Date.now();
    while (Date.now() - started < limitMs) {
      const res = await call(url, 'GET', '/v1/keys', key);
      if (res.status === 401) return Date.now() - started;
      expect(res.status).toBe(200);
      await new Promise((r) => setTimeout(r, 25));
    }
    return Infinity;
  }

  it('with Redis, a key revoked on A is rejected on B at once', async () => {
    const { a, b, owner, close } = await pair(REDIS_URL);
    try {
      const created = await call(a.url, 'POST', '/v1/keys', owner, { name: 'shared' });
      expect(created.status).toBe(201);
      const key = created.json.key as string;
      // B caches the key's authentication.
      expect((await call(b.url, 'GET', '/v1/keys', key)).status).toBe(200);
      const revoked = await call(a.url, 'DELETE', `/v1/keys/${created.json.key_id}`, owner);
      expect(revoked.status).toBe(200);
      const took = await timeUntilRejected(b.url, key, 5000);
      console.log(`redis fan-out: rejected on B after ${took} ms`);
      expect(took).toBeLessThan(1000);
    } finally {
      await close();
    }
  });

  it('without Redis, B rejects the revoked key within 5 seconds (cache bound)', async () => {
    const { a, b, owner, close } = await pair(null);
    try {
      const created = await call(a.url, 'POST', '/v1/keys', owner, { name: 'shared-no-redis' });
      const key = created.json.key as string;
      expect((await call(b.url, 'GET', '/v1/keys', key)).status).toBe(200);
      expect((await call(a.url, 'DELETE', `/v1/keys/${created.json.key_id}`, owner)).status).toBe(200);
      // A drops its own cache at once.
      expect((await call(a.url, 'GET', '/v1/keys', key)).status).toBe(401);
      const took = await timeUntilRejected(b.url, key, 7000);
      console.log(`no redis: rejected on B after ${took} ms`);
      expect(took).toBeLessThanOrEqual(5100);
    } finally {
      await close();
    }
  });
});

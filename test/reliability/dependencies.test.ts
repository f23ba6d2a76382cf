// The service's dependencies going away mid-traffic, on servers this test starts and stops itself:
// PostgreSQL stopped at once (as a crash would) makes readiness false and calls answer 503 with
// Retry-After within a bounded time, never hanging; when it returns, service resumes by itself.
// Redis going away degrades (cache, shared rate limits, revocation fan-out) without failing calls;
// readiness reports it, and the connection comes back on its own (docs/reliability.md).
// The embedded database's thread crashing makes readiness false and calls answer 503, never hang.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../accounts/helpers.js';
import { canStartOwnServices, startOwnPostgres, startOwnRedis, type OwnPostgres, type OwnRedis } from '../helpers/ownServices.js';
import { crashPgliteThreads } from '../../src/store/pgliteThread.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';

const available = canStartOwnServices();
if (!available) console.warn('dependencies test skipped: no PostgreSQL binaries (pg_config, initdb) or redis-server on this machine');

const text = 'A dependency may go away at any time; the service must answer quickly and come back by itself. '.repeat(20);

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    if (await check()) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`);
}

// It brings its own servers, so one of the two CI passes (the PostgreSQL one) is enough.
describe.runIf(available && DB_KIND === 'postgres')('dependencies going away mid-traffic', () => {
  let pg: OwnPostgres;
  let redis: OwnRedis;
  let server: TestServer;

  beforeAll(async () => {
    [pg, redis] = await Promise.all([startOwnPostgres(), startOwnRedis()]);
    server = await startTestServer({ databaseUrl: pg.url, redisUrl: redis.url, authCacheMs: 1000 });
  }, 90_000);
  afterAll(async () => {
    await server?.close();
    await redis?.stop();
    await pg?.destroy();
  });

  it('PostgreSQL stopped: readiness false, calls answer 503 with Retry-After in bounded time; back by itself when it returns', async () => {
    const compress = (i: number) => server.request('POST', '/v1/compress', { body: { text: `${i} ${text}`, fidelity: 'balanced' } });
    expect((await compress(0)).status).toBe(200);
    expect((await server.request('GET', '/health/readiness', { key: null })).status).toBe(200);

    // Traffic that runs through the outage and the return: every answer is a 200 or a 503 with Retry-After, none hangs.
    let traffic = true;
    const seen: { status: number; retryAfter: string | null; ms: number }[] = [];
    const loops = Array.from({ length: 3 }, async (_, n) => {
      for (let i = 0; traffic; i++) {
        const t0 = performance.now();
        const res = await compress(10_000 * (n + 1) + i);
        seen.push({ status: res.status, retryAfter: res.headers.get('retry-after'), ms: performance.now() - t0 });
        await new Promise((r) => setTimeout(r, 20));
      }
    });
    await new Promise((r) => setTimeout(r, 300));
    await pg.stop();
    // Traffic while it is down: every call answers, none hangs; past the auth cache every one is 503 + Retry-After.
    await new Promise((r) => setTimeout(r, 1200));
    const down = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const t0 = performance.now();
        const res = i % 3 === 0 ? await server.request('GET', '/v1/keys') : await compress(100 + i);
        return { status: res.status, retryAfter: res.headers.get('retry-after'), ms: performance.now() - t0, detail: res.json?.detail };
      }),
    );
    for (const r of down) {
      expect(r.status, JSON.stringify(r)).toBe(503);
      expect(Number(r.retryAfter)).toBeGreaterThan(0);
      expect(r.ms).toBeLessThan(7000);
    }
    const readiness = await server.request('GET', '/health/readiness', { key: null });
    expect(readiness.status).toBe(503);
    expect(readiness.json.checks.database).toBe('unavailable');

    await pg.start();
    // The breaker lets one trial through after its cool-down; the pool reconnects; no restart of the service.
    const resumedMs = await until('compress after PostgreSQL returned', async () => (await compress(999)).status === 200, 30_000);
    expect((await server.request('GET', '/health/readiness', { key: null })).status).toBe(200);
    expect((await server.request('GET', '/v1/keys')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    traffic = false;
    await Promise.all(loops);
    expect(seen.filter((r) => r.status !== 200 && !(r.status === 503 && Number(r.retryAfter) > 0))).toEqual([]);
    expect(seen.some((r) => r.status === 503) && seen.some((r) => r.status === 200)).toBe(true);
    expect(Math.max(...seen.map((r) => r.ms))).toBeLessThan(7000);
    console.log(`dependencies: PostgreSQL down -> 503 within ${Math.max(...down.map((r) => r.ms)).toFixed(0)} ms; resumed ${resumedMs.toFixed(0)} ms after it returned; background traffic ${seen.length} calls, slowest ${Math.max(...seen.map((r) => r.ms)).toFixed(0)} ms`);
  }, 90_000);

  it('Redis gone: calls keep succeeding (no hang), rate limits hold per instance, readiness reports redis unavailable; it reconnects by itself', async () => {
    const compress = (i: number) => server.request('POST', '/v1/compress', { body: { text: `redis ${i} ${text}`, fidelity: 'balanced' } });
    expect((await compress(0)).status).toBe(200);
    await redis.stop();
    const during = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const t0 = performance.now();
        const res = await compress(i + 1);
        return { status: res.status, ms: performance.now() - t0 };
      }),
    );
    for (const r of during) {
      expect(r.status).toBe(200);
      expect(r.ms).toBeLessThan(7000);
    }
    // Rate limits still hold, counted by this instance alone (Free: 60 a minute).
    const free = await makeUser(server, 'free');
    const statuses = await Promise.all(Array.from({ length: 70 }, () => server.request('GET', '/v1/keys', { key: free.key }).then((r) => r.status)));
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(5);
    const readiness = await server.request('GET', '/health/readiness', { key: null });
    expect(readiness.json.checks.redis).toBe('unavailable');
    expect(readiness.json.status).toBe('degraded');
    expect(readiness.status).toBe(200);

    await redis.start();
    await until('readiness sees Redis again', async () => (await server.request('GET', '/health/readiness', { key: null })).json?.checks?.redis === 'ok', 30_000);
    // The cache serves through Redis again: the same call twice, the second a hit.
    const again = { text: `after redis ${text}`, fidelity: 'balanced' };
    await server.request('POST', '/v1/compress', { body: again });
    const hit = await server.request('POST', '/v1/compress', { body: again });
    expect(hit.status).toBe(200);
    expect(hit.headers.get('x-semantic-cache')).toBe('hit');
  }, 90_000);
});

describe.runIf(DB_KIND === 'pglite' && process.env.PGLITE_THREAD !== 'false')('the PGlite thread crashing', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ authCacheMs: 0 });
  });
  afterAll(() => server?.close());

  it('readiness false, calls in flight and later ones answer 503 with detail, liveness and the process stay up', async () => {
    const compress = (i: number) => server.request('POST', '/v1/compress', { body: { text: `${i} ${text}`, fidelity: 'balanced' } });
    expect((await compress(0)).status).toBe(200);
    const inFlight = Array.from({ length: 6 }, (_, i) => compress(1 + i));
    expect(await crashPgliteThreads()).toBe(1);
    const t0 = performance.now();
    const after = await Promise.all([...inFlight, compress(100), server.request('GET', '/v1/keys')]);
    expect(performance.now() - t0).toBeLessThan(7000);
    // Calls the database had answered before the crash may have finished; none hangs or fails otherwise.
    for (const r of after) expect([200, 503], r.text).toContain(r.status);
    for (const r of after.slice(-2)) {
      expect(r.status, r.text).toBe(503);
      expect(r.json.detail).toBe('Database unavailable');
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const readiness = await server.request('GET', '/health/readiness', { key: null });
    expect(readiness.status).toBe(503);
    expect(readiness.json).toMatchObject({ status: 'not_ready', checks: { database: 'unavailable', pool: 'ok' } });
    expect((await server.request('GET', '/health/liveness', { key: null })).status).toBe(200);
  });
});

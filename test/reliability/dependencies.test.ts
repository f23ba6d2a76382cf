// The service's dependencies going away mid-traffic, on servers this test starts and stops itself:
// PostgreSQL stopped at once (as a crash would) makes readiness false and calls answer 503 with
// Retry-After while it is down, never holding a call until it returns; then service resumes by itself.
// Redis going away degrades (cache, shared rate limits, revocation fan-out) without failing calls;
// readiness reports it, and the connection comes back on its own (docs/reliability.md).
// The embedded database's thread crashing makes readiness false and calls answer 503, never hang.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeUser } from '../accounts/helpers.js';
import { canStartOwnServices, startOwnPostgres, startOwnRedis, type OwnPostgres, type OwnRedis } from '../helpers/ownServices.js';
import { crashPgliteThreads } from '../../src/store/pgliteThread.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { waitFor } from '../helpers/waitFor.js';

const available = canStartOwnServices();
if (!available) console.warn('dependencies test skipped: no PostgreSQL binaries (pg_config, initdb) or redis-server on this machine');

const text = 'A dependency may go away at any time; the service must answer quickly and come back by itself. '.repeat(20);


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

  it('PostgreSQL stopped: readiness false, calls answer 503 with Retry-After while it is down, none held until it returns; back by itself when it returns', async () => {
    const compress = (i: number) => server.request('POST', '/v1/compress', { body: { text: `${i} ${text}`, fidelity: 'balanced' } });
    expect((await compress(0)).status).toBe(200);
    expect((await server.request('GET', '/health/readiness', { key: null })).status).toBe(200);

    // Traffic that runs through the outage and the return: every answer is a 200 or a 503 with Retry-After,
    // none hangs. Each answer notes the phase it was sent and answered in: a call held for PostgreSQL to come
    // back instead of refused would be served (200) once it had, although it was sent while it was down.
    let traffic = true;
    type Phase = 'up' | 'down' | 'starting' | 'returned';
    let phase = 'up' as Phase;
    const seen: { status: number; retryAfter: string | null; sent: Phase; answered: Phase }[] = [];
    const loops = Array.from({ length: 3 }, async (_, n) => {
      for (let i = 0; traffic; i++) {
        const sent = phase;
        const res = await compress(10_000 * (n + 1) + i);
        seen.push({ status: res.status, retryAfter: res.headers.get('retry-after'), sent, answered: phase });
        await new Promise((r) => setImmediate(r));
      }
    });
    await waitFor('background traffic answered while PostgreSQL is up', () => seen.filter((r) => r.status === 200).length >= 3);
    await pg.stop();
    phase = 'down';
    // Past the auth cache every call is refused: wait for a refused compression, not for the cache's lifetime.
    await waitFor('a compression refused with PostgreSQL down', async () => (await compress(50)).status === 503);
    // Traffic while it is down: every call answers 503 + Retry-After (PostgreSQL is started again only once all have).
    const down = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const res = i % 3 === 0 ? await server.request('GET', '/v1/keys') : await compress(100 + i);
        return { status: res.status, retryAfter: res.headers.get('retry-after'), detail: res.json?.detail };
      }),
    );
    for (const r of down) {
      expect(r.status, JSON.stringify(r)).toBe(503);
      expect(Number(r.retryAfter)).toBeGreaterThan(0);
    }
    const readiness = await server.request('GET', '/health/readiness', { key: null });
    expect(readiness.status).toBe(503);
    expect(readiness.json.checks.database).toBe('unavailable');

    phase = 'starting';
    await pg.start();
    phase = 'returned';
    // The breaker lets one trial through after its cool-down; the pool reconnects; no restart of the service.
    await waitFor('compress after PostgreSQL returned', async () => (await compress(999)).status === 200, { timeoutMs: 30_000, everyMs: 200 });
    expect((await server.request('GET', '/health/readiness', { key: null })).status).toBe(200);
    expect((await server.request('GET', '/v1/keys')).status).toBe(200);
    const back = seen.length;
    await waitFor('background traffic served again', () => seen.slice(back).some((r) => r.status === 200 && r.sent === 'returned'));
    traffic = false;
    await Promise.all(loops);
    expect(seen.filter((r) => r.status !== 200 && !(r.status === 503 && Number(r.retryAfter) > 0))).toEqual([]);
    // Background calls sent during the outage were refused, not held and served once PostgreSQL was back
    // (a refusal may arrive after the restart: one takes about 1.6 s here, as long as the restart).
    const sentDown = seen.filter((r) => r.sent === 'down');
    expect(sentDown.filter((r) => r.status === 503).length).toBeGreaterThan(0);
    expect(sentDown.filter((r) => r.answered === 'returned' && r.status === 200)).toEqual([]);
  }, 90_000);

  it('Redis gone: calls keep succeeding (no hang), rate limits hold per instance, readiness reports redis unavailable; it reconnects by itself', async () => {
    const compress = (i: number) => server.request('POST', '/v1/compress', { body: { text: `redis ${i} ${text}`, fidelity: 'balanced' } });
    expect((await compress(0)).status).toBe(200);
    await redis.stop();
    // Calls succeed while Redis is still down (it is started again only below): none waits for it.
    const during = await Promise.all(Array.from({ length: 6 }, async (_, i) => (await compress(i + 1)).status));
    expect(during).toEqual(Array(6).fill(200));
    // Rate limits still hold, counted by this instance alone (Free: 60 a minute).
    const free = await makeUser(server, 'free');
    const statuses = await Promise.all(Array.from({ length: 70 }, () => server.request('GET', '/v1/keys', { key: free.key }).then((r) => r.status)));
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(5);
    const readiness = await server.request('GET', '/health/readiness', { key: null });
    expect(readiness.json.checks.redis).toBe('unavailable');
    expect(readiness.json.status).toBe('degraded');
    expect(readiness.status).toBe(200);

    await redis.start();
    await waitFor('readiness sees Redis again', async () => (await server.request('GET', '/health/readiness', { key: null })).json?.checks?.redis === 'ok', { timeoutMs: 30_000, everyMs: 200 });
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
    // The thread is not restarted by the test: a call that waited for the database would never answer.
    const after = await Promise.all([...inFlight, compress(100), server.request('GET', '/v1/keys')]);
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

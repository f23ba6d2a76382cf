// In-process state across instances (docs/deployment.md, "What each instance holds"): two instances on
// one PostgreSQL database and one Redis; a change made through A is seen through B, and how soon.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type RunningApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { createProject } from '../../src/domain/identity/projects.js';
import { createUser } from '../../src/domain/identity/users.js';
import { createLogger } from '../../src/lib/log.js';
import { DB_KIND, freshDatabase, sampleDocument } from '../helpers/server.js';
import { REDIS_URL, skipReason } from './cluster.js';

const reason = DB_KIND === 'postgres' ? null : await skipReason();

describe.skipIf(!!reason)(reason ? `state across instances (skipped: ${reason})` : 'state across instances: what B sees of a change made through A', () => {
  let a: RunningApp;
  let b: RunningApp;
  let drop: () => Promise<void>;
  let key = '';
  let keyId = '';
  let project = '';

  beforeAll(async () => {
    const database = await freshDatabase();
    drop = database.drop;
    const config = () =>
      loadConfig({}, { host: '127.0.0.1', port: 0, poolThreads: 1, shutdownGraceMs: 2000, bootstrapOwner: false, databaseUrl: database.databaseUrl, dataDir: 'memory://', redisUrl: REDIS_URL });
    [a, b] = await Promise.all([startApp(config(), createLogger(false)), startApp(config(), createLogger(false))]);
    const user = await createUser(a.services.db, { plan: 'pro' });
    project = (await createProject(a.services.db, user.id, { name: 'scale' })).id;
    const created = await createApiKey(a.services.db, { userId: user.id, plan: 'pro', projectId: project });
    key = created.key;
    keyId = created.row.key_id;
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.close(), b?.close()]);
    await drop?.();
  });

  const post = async (app: RunningApp, path: string, body: unknown) => {
    const res = await fetch(`http://127.0.0.1:${app.port}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, json: (await res.json()) as any };
  };

  it('Knowledge Hub: an item ingested through A is found by a query through B as soon as A has indexed it', async () => {
    const kb = `/v1/projects/${project}/knowledge`;
    const created = await post(a, `${kb}/items`, { name: 'hangar', text: '# Hangar\n\nThe hangar keypad code is changed every Monday by the night shift supervisor. Visitors sign in at the north gate.' });
    expect(created.status).toBe(201);
    await a.services.knowledge.idle();
    const found = await post(b, `${kb}/query`, { query: 'who changes the hangar keypad code' });
    expect(found.status).toBe(200);
    expect(found.json.results.map((r: { item_id: string }) => r.item_id)).toContain(created.json.item_id);
  });

  it('markers: an id in an answer from A expands through B by the time the client asks (stored right after the answer)', async () => {
    const out = await post(a, '/v1/compress', { text: `${sampleDocument()}\n\nmarker run ${Date.now()}`, fidelity: 'outline' });
    expect(out.status).toBe(200);
    const ids = [...JSON.stringify(out.json).matchAll(/#(\d{12}\.\d+)/g)].map((m) => m[1]!);
    expect(ids.length).toBeGreaterThan(0);
    const expanded = await post(b, '/v1/expand', { ids: ids.slice(0, 3) });
    expect(expanded.status, JSON.stringify(expanded.json)).toBe(200);
  });

  it('semantic cache: a compression answered by A is a cache hit on B (shared through Redis)', async () => {
    const text = `${sampleDocument()}\n\ncache run ${Date.now()}`;
    expect((await post(a, '/v1/compress', { text, fidelity: 'balanced' })).status).toBe(200);
    const again = await post(b, '/v1/compress', { text, fidelity: 'balanced' });
    expect(again.status).toBe(200);
    expect(again.json.compressed_text).toBe((await post(a, '/v1/compress', { text, fidelity: 'balanced' })).json.compressed_text);
    // Each answered compression has committed its usage event: B's and A's second were hits.
    const events = await a.services.db.query<{ cache_hit: boolean }>(
      `select cache_hit from usage_events where key_id = $1 and method = 'REST' order by created_at desc limit 3`,
      [keyId],
    );
    expect(events.map((e) => e.cache_hit)).toEqual([true, true, false]);
  });
});

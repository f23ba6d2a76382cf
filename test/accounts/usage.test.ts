import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import type { Queryable } from '../../src/store/db.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { makeUser } from './helpers.js';

let server: TestServer;
let u: Awaited<ReturnType<typeof makeUser>>;
let staging: { key: string; keyId: string };
let other: Awaited<ReturnType<typeof makeUser>>;
let otherEventId: string;

interface Ev {
  userId: string;
  keyId?: string | null;
  environment?: string | null;
  method?: string;
  tool?: string | null;
  client?: string | null;
  fidelity?: string | null;
  model?: string | null;
  status?: string;
  input?: number;
  output?: number;
  latency?: number;
  cacheHit?: boolean;
  /** SQL interval subtracted from now(), e.g. '2 days'. */
  ago?: string;
}

async function insertEvent(db: Queryable, e: Ev): Promise<string> {
  const [row] = await db.query<{ id: string }>(
    `insert into usage_events (user_id, key_id, environment, method, tool_name, client, fidelity, model, status,
       input_tokens, output_tokens, savings_percent, latency_ms, cache_hit, input_preview, created_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, 'preview', now() - $15::text::interval) returning id`,
    [
      e.userId, e.keyId ?? null, e.environment ?? 'production', e.method ?? 'REST', e.tool ?? null, e.client ?? null,
      e.fidelity ?? 'balanced', e.model ?? null, e.status ?? 'success', e.input ?? 100, e.output ?? 20,
      e.input ? Math.round((((e.input ?? 100) - (e.output ?? 20)) / (e.input ?? 100)) * 1000) / 10 : 80,
      e.latency ?? 10, e.cacheHit ?? false, e.ago ?? '0 seconds',
    ],
  );
  return row!.id;
}

const get = (path: string, key = u.key) => server.request('GET', path, { key });

beforeAll(async () => {
  server = await startTestServer();
  const db = server.app.services.db;
  u = await makeUser(server, 'pro');
  const s = await createApiKey(db, { userId: u.userId, plan: 'pro', name: 'staging-key', environment: 'staging' });
  staging = { key: s.key, keyId: s.row.key_id };
  other = await makeUser(server, 'pro');
  otherEventId = await insertEvent(db, { userId: other.userId, keyId: other.keyId, model: 'gpt-4o', input: 9999, output: 1 });

  const prod = { userId: u.userId, keyId: u.keyId, environment: 'production' };
  const stag = { userId: u.userId, keyId: staging.keyId, environment: 'staging' };
  // Today: 3 REST compressions on prod (gpt-4o), one cache hit; 2 on staging (claude-3-5) saving more.
  await insertEvent(db, { ...prod, model: 'gpt-4o', input: 1000, output: 200, latency: 10, client: 'claude-code/1.0' });
  await insertEvent(db, { ...prod, model: 'gpt-4o', input: 1000, output: 200, latency: 20, cacheHit: true, client: 'Cursor' });
  await insertEvent(db, { ...prod, model: 'gpt-4o', input: 500, output: 500, latency: 30, fidelity: 'raw' }); // zero savings
  await insertEvent(db, { ...stag, model: 'claude-3-5', input: 4000, output: 400, latency: 40, method: 'MCP', tool: 'compress_tool_output', client: 'SomeAgent/2' });
  await insertEvent(db, { ...stag, model: 'claude-3-5', input: 4000, output: 400, latency: 50, method: 'batch', fidelity: 'outline' });
  // Advisory MCP calls: counted by tool, not as compressions.
  await insertEvent(db, { ...prod, method: 'mcp_advisory', tool: 'gc_lookup', input: 0, output: 0, model: null, latency: 5 });
  await insertEvent(db, { ...prod, method: 'mcp_advisory', tool: 'gc_lookup', input: 0, output: 0, model: null, latency: 5 });
  await insertEvent(db, { ...prod, method: 'mcp_advisory', tool: 'gc_lookup', input: 0, output: 0, model: null, latency: 5 });
  await insertEvent(db, { ...prod, method: 'mcp_advisory', tool: 'gc_lookup', input: 0, output: 0, model: null, latency: 5 });
  // Two days ago: one failed call; forty days ago: one compression (outside the month and the default windows).
  await insertEvent(db, { ...prod, model: 'gpt-4o', status: 'client_error', input: 300, output: 300, ago: '2 days' });
  await insertEvent(db, { ...prod, model: 'old-model', input: 800, output: 100, ago: '40 days', latency: 9000 });
});
afterAll(async () => {
  await server?.close();
});

describe(`usage analytics (${DB_KIND})`, () => {
  it('GET /v1/usage: this calendar month\'s compressions, original tokens and tokens saved', async () => {
    const res = await get('/v1/usage');
    expect(res.status).toBe(200);
    // The failed call two days ago is not a compression (docs/decisions.md, "What counts as a compression").
    expect(res.json.monthly_compressions).toBe(5);
    expect(res.json.original_tokens).toBe(10_500);
    expect(res.json.tokens_saved).toBe(800 + 800 + 0 + 3600 + 3600);
    expect(new Date(res.json.period_start).getUTCDate()).toBe(1);
  });

  it('history: exactly one row per calendar day, zero-filled, oldest first', async () => {
    const res = await get('/v1/usage/history?days=7');
    expect(res.status).toBe(200);
    expect(res.json.period).toBe('day');
    const data = res.json.data as any[];
    expect(data).toHaveLength(7);
    const today = new Date().toISOString().slice(0, 10);
    expect(data[6].date).toBe(today);
    for (let i = 1; i < data.length; i++) {
      expect(Date.parse(data[i].date) - Date.parse(data[i - 1].date)).toBe(86_400_000);
    }
    expect(data[6].compressions).toBe(5);
    expect(data[6].tokens_saved).toBe(8800);
    expect(data[4].compressions).toBe(0); // the failed call
    expect(data.filter((d) => d.compressions === 0)).toHaveLength(6);
    expect(data[0]).toEqual({ date: data[0].date, compressions: 0, original_tokens: 0, compressed_tokens: 0, tokens_saved: 0 });
    expect((await get('/v1/usage/history')).json.data).toHaveLength(30);
    expect((await get('/v1/usage/history?days=90&period=day')).json.data).toHaveLength(90);
    expect((await get('/v1/usage/history?days=1')).json.data).toHaveLength(1);
    for (const q of ['days=0', 'days=91', 'days=abc', 'days=2.5', 'period=week', 'period=month']) {
      const bad = await get(`/v1/usage/history?${q}`);
      expect(bad.status, q).toBe(422);
      expect(bad.json.detail[0].loc[0]).toBe('query');
    }
  });

  it('by-model, by-cache', async () => {
    const model = await get('/v1/usage/by-model');
    expect(model.status).toBe(200);
    expect(model.json.days).toBe(30);
    expect(model.json.data.map((r: any) => [r.model, r.compressions])).toEqual([['gpt-4o', 3], ['claude-3-5', 2]]);
    expect((await get('/v1/usage/by-model?days=60')).json.data.map((r: any) => r.model)).toContain('old-model');
    const cache = await get('/v1/usage/by-cache');
    expect(cache.json).toMatchObject({ hits: 1, misses: 4, hit_rate: 0.2 });
    expect(cache.json.data).toEqual([
      { cache: 'hit', calls: 1, tokens_saved: 800 },
      { cache: 'miss', calls: 4, tokens_saved: 8000 },
    ]);
    for (const path of ['/v1/usage/by-model', '/v1/usage/by-cache', '/v1/usage/by-tool', '/v1/usage/by-client', '/v1/usage/by-key']) {
      expect((await get(`${path}?days=0`)).status, path).toBe(422);
      expect((await get(`${path}?days=366`)).status, path).toBe(422);
      expect((await get(`${path}?days=365`)).status, path).toBe(200);
    }
  });

  it('by-key: top N keys by tokens saved', async () => {
    const res = await get('/v1/usage/by-key');
    expect(res.status).toBe(200);
    expect(res.json.limit).toBe(5);
    expect(res.json.data.map((r: any) => [r.key_id, r.tokens_saved])).toEqual([[staging.keyId, 7200], [u.keyId, 1600]]);
    expect(res.json.data[0]).toMatchObject({ name: 'staging-key', environment: 'staging', compressions: 2 });
    const top1 = await get('/v1/usage/by-key?limit=1');
    expect(top1.json.data).toHaveLength(1);
    expect(top1.json.data[0].key_id).toBe(staging.keyId);
    expect((await get('/v1/usage/by-key?limit=0')).status).toBe(422);
    expect((await get('/v1/usage/by-key?limit=101')).status).toBe(422);
    expect((await get('/v1/usage/by-key?limit=100')).status).toBe(200);
  });

  it('by-tool: REST calls as rest-api, ordered by call count, zero-savings calls counted', async () => {
    const res = await get('/v1/usage/by-tool');
    expect(res.status).toBe(200);
    const rows = res.json.data.map((r: any) => [r.tool_name, r.calls]);
    expect(rows).toEqual([['rest-api', 5], ['gc_lookup', 4], ['compress_tool_output', 1]]);
    const rest = res.json.data[0];
    expect(rest.zero_savings_calls).toBe(2); // the raw call and the failed one
  });

  it('by-client: known AI clients by name, everything else in other', async () => {
    const res = await get('/v1/usage/by-client');
    const byClient = Object.fromEntries(res.json.data.map((r: any) => [r.client, r.calls]));
    expect(byClient).toEqual({ 'claude-code': 1, cursor: 1, other: 8 }); // 10 calls in 30 days
    expect(res.json.data[0].client).toBe('other');
  });

  it('events: every filter, pagination and total', async () => {
    const all = await get('/v1/usage/events');
    expect(all.status).toBe(200);
    expect(all.json).toMatchObject({ page: 1, page_size: 20, total: 11 });
    expect(all.json.items).toHaveLength(11);
    const first = all.json.items[0];
    expect(first.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    for (const field of ['created_at', 'key_id', 'environment', 'method', 'tool_name', 'fidelity', 'model', 'status', 'input_tokens', 'output_tokens', 'tokens_saved', 'savings_percent', 'latency_ms', 'input_preview']) {
      expect(first, field).toHaveProperty(field);
    }
    const times = all.json.items.map((e: any) => Date.parse(e.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    const page2 = await get('/v1/usage/events?page=2&page_size=4');
    expect(page2.json).toMatchObject({ page: 2, page_size: 4, total: 11 });
    expect(page2.json.items.map((e: any) => e.id)).toEqual(all.json.items.slice(4, 8).map((e: any) => e.id));
    expect((await get('/v1/usage/events?page=4&page_size=4')).json.items).toHaveLength(0);

    const count = async (q: string) => {
      const r = await get(`/v1/usage/events?${q}`);
      expect(r.status, q).toBe(200);
      return r.json.total as number;
    };
    expect(await count('fidelity=raw')).toBe(1);
    expect(await count('fidelity=outline')).toBe(1);
    expect(await count('method=MCP')).toBe(1);
    expect(await count('method=mcp_advisory')).toBe(4);
    expect(await count('exclude_advisory=true')).toBe(7);
    expect(await count('exclude_advisory=false')).toBe(11);
    expect(await count('model=gpt-4o')).toBe(4);
    expect(await count('status=client_error')).toBe(1);
    expect(await count(`since=${encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString())}`)).toBe(9);
    expect(await count(`until=${encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString())}`)).toBe(2);
    expect(await count(`since=${encodeURIComponent(new Date(Date.now() - 3 * 86_400_000).toISOString())}&until=${encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString())}`)).toBe(1);
    expect(await count(`key_id=${staging.keyId}`)).toBe(2);
    expect(await count('environment=staging')).toBe(2);
    expect(await count('environment=staging&method=batch&model=claude-3-5&fidelity=outline')).toBe(1);
    expect(await count(`key_id=${other.keyId}`)).toBe(0); // another user's key: nothing

    for (const q of ['page=0', 'page_size=0', 'page_size=101', 'method=SOAP', 'exclude_advisory=maybe', 'since=yesterday', 'until=2024-13-01', `key_id=${'k'.repeat(33)}`, `environment=${'e'.repeat(17)}`]) {
      expect((await get(`/v1/usage/events?${q}`)).status, q).toBe(422);
    }
    expect((await get('/v1/usage/events?fidelity=extreme')).status).toBe(400);
  });

  it('one event by id; another caller\'s event and a malformed id are 404', async () => {
    const all = await get('/v1/usage/events?page_size=1');
    const id = all.json.items[0].id;
    const one = await get(`/v1/usage/events/${id}`);
    expect(one.status).toBe(200);
    expect(one.json).toEqual(all.json.items[0]);
    const foreign = await get(`/v1/usage/events/${otherEventId}`);
    expect(foreign.status).toBe(404);
    const unknown = await get('/v1/usage/events/00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(foreign.json.detail).toBe(unknown.json.detail);
    expect((await get('/v1/usage/events/not-a-uuid')).status).toBe(404);
    expect((await get(`/v1/usage/events/${otherEventId}`, other.key)).status).toBe(200);
  });

  it('latency percentiles over the window with HDR histograms', async () => {
    const p = await get('/v1/usage/latency-percentiles');
    expect(p.status).toBe(200);
    // Within 24 h: latencies 10, 20, 30, 40, 50 and four 5s (the 2-day and 40-day events are outside).
    expect(p.json).toMatchObject({ window_hours: 24, count: 9, p50: 10, p95: 50, p99: 50 });
    const wide = await get('/v1/usage/latency-percentiles?window_hours=168');
    expect(wide.json.count).toBe(10);
    for (const q of ['window_hours=0', 'window_hours=169', 'window_hours=x']) {
      expect((await get(`/v1/usage/latency-percentiles?${q}`)).status, q).toBe(422);
    }
    // A caller with no events gets nulls.
    const empty = await makeUser(server, 'free');
    expect((await get('/v1/usage/latency-percentiles', empty.key)).json).toMatchObject({ count: 0, p50: null, p95: null, p99: null });
  });

  it('latency percentiles match a known distribution', async () => {
    const v = await makeUser(server, 'pro');
    await server.app.services.db.query(
      `insert into usage_events (user_id, key_id, method, status, latency_ms) select $1, $2, 'REST', 'success', g from generate_series(1, 1000) g`,
      [v.userId, v.keyId],
    );
    const p = await get('/v1/usage/latency-percentiles', v.key);
    expect(p.json).toMatchObject({ count: 1000, p50: 500, p95: 950, p99: 990 });
  });

  it('activation histogram: admin only, buckets per plan', async () => {
    const denied = await get('/v1/usage/activation');
    expect(denied.status).toBe(403);
    const db = server.app.services.db;
    const admin = await makeUser(server, 'team', { isAdmin: true });
    // Team keys: first use after 10 min, after 5 h, after 3 days, never (admin's own key: never).
    const minutes = [10, 300, 3 * 24 * 60];
    for (const m of minutes) {
      const { row } = await createApiKey(db, { userId: admin.userId, plan: 'team' });
      await db.query(`update api_keys set created_at = now() - interval '30 days' where key_id = $1`, [row.key_id]);
      await db.query(
        `insert into usage_events (user_id, key_id, method, status, created_at) values ($1, $2, 'REST', 'success', now() - interval '30 days' + make_interval(mins => $3::int))`,
        [admin.userId, row.key_id, m],
      );
    }
    const res = await get('/v1/usage/activation', admin.key);
    expect(res.status).toBe(200);
    expect(res.json.period).toBe('all_time');
    expect(Date.parse(res.json.generated_at)).toBeGreaterThan(Date.now() - 60_000);
    expect(Object.keys(res.json.buckets).sort()).toEqual(['enterprise', 'free', 'pro', 'team']);
    expect(res.json.buckets.team).toMatchObject({ '<1h': 1, '1h-24h': 1, '1d-7d': 1, never: 1 });
    for (const plan of ['free', 'pro', 'team', 'enterprise']) {
      for (const b of ['<1h', '1h-24h', '1d-7d', 'never']) expect(Number.isInteger(res.json.buckets[plan][b])).toBe(true);
    }
  });

  it('requires authentication', async () => {
    for (const path of ['/v1/usage', '/v1/usage/history', '/v1/usage/events', '/v1/usage/activation', '/v1/usage/latency-percentiles']) {
      expect((await server.request('GET', path, { key: null })).status).toBe(401);
    }
  });
});

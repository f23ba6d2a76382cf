import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { ownerId } from './helpers.js';

const EVENTS = 100_000;
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  const db = server.app.services.db;
  const owner = await ownerId(server);
  const keys: string[] = [];
  for (let i = 0; i < 8; i++) {
    const { row } = await createApiKey(db, { userId: owner, plan: 'enterprise', name: `load-${i}`, environment: i % 2 ? 'staging' : 'production' });
    keys.push(row.key_id);
  }
  const started = performance.now();
  // One statement: 100k events spread over the last 90 days with a mix of methods, models, tools and clients.
  await db.query(
    `insert into usage_events (user_id, key_id, environment, method, tool_name, client, fidelity, model, status,
       input_tokens, output_tokens, savings_percent, latency_ms, cache_hit, input_preview, created_at)
     select $1, ($2::text[])[1 + g % 8], case when g % 2 = 1 then 'staging' else 'production' end,
            (array['REST','REST','MCP','batch','mcp_advisory'])[1 + g % 5],
            case when g % 5 in (2, 4) then (array['compress_tool_output','gc_lookup','read_skeleton'])[1 + g % 3] end,
            (array['claude-code', 'Cursor', null, 'unknown-bot', 'windsurf'])[1 + g % 5],
            (array['abstract','outline','balanced','detailed','raw'])[1 + g % 5],
            (array['gpt-4o','claude-3-5-sonnet','gemini-1.5','llama-3'])[1 + g % 4],
            case when g % 50 = 0 then 'client_error' else 'success' end,
            500 + g % 4000, 50 + g % 400, 80, 1 + (g * 7919) % 2000, g % 3 = 0, 'preview',
            now() - make_interval(secs => (g * 77.76)::int)
       from generate_series(1, $3::int) g`,
    [owner, keys, EVENTS],
  );
  await db.query('analyze usage_events');
  console.log(`[${DB_KIND}] inserted ${EVENTS} events in ${Math.round(performance.now() - started)} ms`);
}, 300_000);
afterAll(async () => {
  await server?.close();
});

describe(`analytics over ${EVENTS} events (${DB_KIND})`, () => {
  it('answers every analytics call; prints the timings', async () => {
    const [count] = await server.app.services.db.query<{ n: number }>('select count(*)::int as n from usage_events');
    expect(count!.n).toBeGreaterThanOrEqual(EVENTS);
    const paths = [
      '/v1/usage',
      '/v1/usage/history?days=90',
      '/v1/usage/by-model?days=365',
      '/v1/usage/by-cache?days=365',
      '/v1/usage/by-key?days=365&limit=100',
      '/v1/usage/by-tool?days=365',
      '/v1/usage/by-client?days=365',
      '/v1/usage/events?page=1&page_size=100',
      '/v1/usage/events?page=500&page_size=100&exclude_advisory=true',
      '/v1/usage/events?model=gpt-4o&environment=staging&method=REST&fidelity=balanced',
      '/v1/usage/latency-percentiles?window_hours=168',
      '/v1/usage/activation',
      '/v1/projects',
    ];
    const timings: string[] = [];
    for (const path of paths) {
      await server.request('GET', path); // warm
      const started = performance.now();
      const res = await server.request('GET', path);
      const ms = performance.now() - started;
      expect(res.status, path).toBe(200);
      timings.push(`${ms.toFixed(1).padStart(8)} ms  ${path}`);
    }
    const events = await server.request('GET', '/v1/usage/events?page_size=1');
    const one = performance.now();
    expect((await server.request('GET', `/v1/usage/events/${events.json.items[0].id}`)).status).toBe(200);
    timings.push(`${(performance.now() - one).toFixed(1).padStart(8)} ms  /v1/usage/events/{event_id}`);
    console.log(`[${DB_KIND}] analytics timings over ${EVENTS} events:\n${timings.join('\n')}`);

    const history = await server.request('GET', '/v1/usage/history?days=90');
    expect(history.json.data).toHaveLength(90);
    const tools = await server.request('GET', '/v1/usage/by-tool?days=365');
    expect(tools.json.data[0].tool_name).toBe('rest-api');
  });
});

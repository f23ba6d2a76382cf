// multilevel_encode and get_multi_level_skeleton over the MCP SDK client: every level in one call,
// equal to what each single-level call answers, levels growing with fidelity, owner-scoped.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connectMcp } from '../helpers/mcp.js';
import { connectAs, newKey } from '../helpers/users.js';
import { DB_KIND, sampleDocument, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let key: string;
let pro: Client;
let other: Client;
let free: Client;
beforeAll(async () => {
  server = await startTestServer();
  key = await newKey(server, 'pro');
  pro = await connectMcp(server.url, key);
  other = await connectAs(server, 'pro');
  free = await connectAs(server, 'free');
});
afterAll(async () => {
  for (const c of [pro, other, free]) await c?.close();
  await server?.close();
});

describe(`multi-level skeletons (${DB_KIND})`, () => {
  it('multilevel_encode: four levels in one call, each equal to /v1/compress at that level, growing with fidelity', async () => {
    const text = sampleDocument();
    const r = (await call(pro, 'multilevel_encode', { text })).data;
    expect(r.levels.map((l: { fidelity: string }) => l.fidelity)).toEqual(['abstract', 'outline', 'balanced', 'detailed']);
    let previous = 0;
    for (const level of r.levels) {
      const single = (await server.request('POST', '/v1/compress', { key, body: { text, fidelity: level.fidelity } })).json;
      expect(level.text, level.fidelity).toBe(single.compressed_text);
      expect(level.tokens).toBe(single.compressed_tokens);
      expect(level.tokens).toBeGreaterThanOrEqual(previous);
      previous = level.tokens;
    }
    expect(r.original_tokens).toBeGreaterThan(previous);
    const two = (await call(pro, 'multilevel_encode', { text, levels: ['detailed', 'abstract', 'abstract'] })).data;
    expect(two.levels.map((l: { fidelity: string }) => l.fidelity)).toEqual(['detailed', 'abstract']);
  });

  it('get_multi_level_skeleton: the levels of an ingested document, each the same as read_skeleton at that level', async () => {
    const ingested = (await call(pro, 'ingest_context', { text: sampleDocument(), name: 'guide.md' })).data;
    const r = (await call(pro, 'get_multi_level_skeleton', { file_id: ingested.file_id })).data;
    expect(r.file_id).toBe(ingested.file_id);
    expect(r.name).toBe('guide.md');
    for (const level of r.levels) {
      const one = (await call(pro, 'read_skeleton', { file_id: ingested.file_id, fidelity: level.fidelity })).data;
      expect(level.text, level.fidelity).toBe(one.skeleton);
    }
    expect((await call(other, 'get_multi_level_skeleton', { file_id: ingested.file_id })).data.error).toBe('not_found');
  });

  it('bad input is a validation error; Free gets plan_required', async () => {
    expect((await call(pro, 'multilevel_encode', { text: '' })).data.error).toBe('validation_error');
    expect((await call(pro, 'multilevel_encode', { text: 'x', levels: ['raw'] })).data.error).toBe('validation_error');
    expect((await call(pro, 'get_multi_level_skeleton', { file_id: 'nope' })).data.error).toBe('validation_error');
    expect((await call(free, 'multilevel_encode', { text: 'Some text.' })).data.error).toBe('plan_required');
  });
});

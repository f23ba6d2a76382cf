// create_project and project_stats over the MCP SDK client: the same project the REST routes see,
// plan-gated (Team for create), owner-scoped, with usage and contents counted from the project's own rows.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connectMcp } from '../helpers/mcp.js';
import { connectAs, newKey } from '../helpers/users.js';
import { DB_KIND, sampleDocument, startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let teamKey: string;
let team: Client;
let pro: Client;
let other: Client;
beforeAll(async () => {
  server = await startTestServer();
  teamKey = await newKey(server, 'team');
  team = await connectMcp(server.url, teamKey);
  pro = await connectAs(server, 'pro');
  other = await connectAs(server, 'team');
});
afterAll(async () => {
  for (const c of [team, pro, other]) await c?.close();
  await server?.close();
});

describe(`project tools (${DB_KIND})`, () => {
  it('create_project makes the project REST lists; project_stats counts its items and its bound key\'s usage', async () => {
    const made = (await call(team, 'create_project', { name: 'Docs', description: 'product docs' })).data;
    expect(made).toMatchObject({ name: 'Docs', description: 'product docs', is_default: false });
    const listed = (await server.request('GET', '/v1/projects', { key: teamKey })).json.projects.map((p: { project_id: string }) => p.project_id);
    expect(listed).toContain(made.project_id);
    // A key bound to the project ingests an item and compresses through MCP.
    const bound = (await server.request('POST', '/v1/keys', { key: teamKey, body: { name: 'docs-bound', project_id: made.project_id } })).json.key;
    const boundClient = await connectMcp(server.url, bound);
    try {
      expect((await call(boundClient, 'gc_kb_ingest', { name: 'guide.md', content: sampleDocument() })).isError).toBe(false);
      expect((await call(boundClient, 'compress_tool_output', { output: sampleDocument() })).isError).toBe(false);
      await server.app.services.background.drain();
      const own = (await call(boundClient, 'project_stats', {})).data;
      expect(own.total).toBe(1);
      const p = own.projects[0];
      expect(p.project_id).toBe(made.project_id);
      expect(p.contents.kb_items).toBe(1);
      expect(p.usage.bound_keys).toBe(1);
      const rest = (await server.request('GET', `/v1/projects/${made.project_id}`, { key: teamKey })).json.usage;
      expect(p.usage.total_compressions).toBe(rest.total_compressions);
      expect(p.usage.tokens_saved).toBe(Number(rest.tokens_saved));
    } finally {
      await boundClient.close();
    }
    const all = (await call(team, 'project_stats', {})).data;
    expect(all.projects.map((x: { project_id: string }) => x.project_id)).toEqual(expect.arrayContaining([made.project_id]));
    expect(all.total).toBe((await server.request('GET', '/v1/projects', { key: teamKey })).json.total);
  });

  it("another user's project is not_found; Pro cannot create projects; bad input is a validation error", async () => {
    const made = (await call(team, 'create_project', { name: 'Private' })).data;
    const foreign = await call(other, 'project_stats', { project_id: made.project_id });
    expect(foreign.data.error).toBe('not_found');
    expect((await call(pro, 'create_project', { name: 'Nope' })).data.error).toBe('plan_required');
    expect((await call(team, 'create_project', { name: '' })).data.error).toBe('validation_error');
    expect((await call(team, 'project_stats', { project_id: 'not-a-uuid' })).data.error).toBe('validation_error');
  });
});

import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connectMcp, ok } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { makeTenant } from '../kb/helpers.js';

let server: TestServer;
let t: Awaited<ReturnType<typeof makeTenant>>;
let stranger: Client;

beforeAll(async () => {
  server = await startTestServer({ rateLimits: { free: 1e9, pro: 1e9, team: 1e9, enterprise: 1e9 } });
  t = await makeTenant(server);
  stranger = await connectMcp(server.url, (await makeTenant(server)).keyA);
});
afterAll(async () => {
  await stranger?.close();
  await server?.close();
});

describe(`handoff bundles (${DB_KIND})`, () => {
  it('a second agent continues from a bundle the first one made (two SDK clients)', async () => {
    const first = await connectMcp(server.url, t.keyA, 'agent-one');
    const second = await connectMcp(server.url, t.keyB, 'agent-two');
    try {
      await ok(first, 'set_compression_profile', { profile: 'detailed' });
      await ok(first, 'add_memory', { content: 'The flaky test is test/queue/retry.test.ts; it fails when the clock jumps.', tags: ['bug'] });
      await ok(first, 'add_memory', { content: 'Prefers small commits', kind: 'preference', key: 'commit_style', value: 'small commits' });
      await ok(first, 'afm_add_message', { role: 'user', content: 'The fix must not change the public retry API.' });
      await ok(first, 'afm_add_message', { role: 'assistant', content: 'I replaced Date.now with the monotonic clock in the back-off timer and the test passed 200 times in a row.' });
      await ok(first, 'afm_add_message', { role: 'user', content: 'ok' });

      const created = await ok(first, 'create_handoff_bundle', { title: 'Retry flake', notes: 'Next: open the pull request.', state: { branch: 'fix/retry-clock', step: 3 } });
      expect(created.content_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(created.tokens).toBeGreaterThan(0);
      expect(created.bundle.session_state.profile).toBe('detailed');
      expect(created.bundle.memories.length).toBeGreaterThanOrEqual(2);
      expect(created.bundle.history.context).toMatch(/must not change the public retry API/);

      // The second agent: another key of the same project, another MCP session.
      const listed = await ok(second, 'list_handoff_bundles');
      expect(listed.bundles.map((b: { bundle_id: string }) => b.bundle_id)).toContain(created.bundle_id);
      const got = await ok(second, 'get_handoff_bundle', { bundle_id: created.bundle_id });
      expect(got).toMatchObject({ content_hash: created.content_hash, verified: true });
      expect(got.bundle).toEqual(created.bundle);

      expect((await ok(second, 'get_compression_profile')).profile).not.toBe('detailed');
      const replay = await ok(second, 'replay_handoff_bundle', { bundle_id: created.bundle_id });
      expect(replay).toMatchObject({ content_hash: created.content_hash, replayed_count: 1 });
      expect(replay.restored).toMatchObject({ profile: 'detailed', facts: 1 });
      expect(replay.context).toMatch(/Next: open the pull request/);
      expect(replay.context).toMatch(/fix\/retry-clock/);
      expect(replay.context).toMatch(/commit_style: small commits/);
      expect(replay.context).toMatch(/clock jumps/);
      // The second session now carries it: its profile, its adaptive-memory context, its stored history.
      expect((await ok(second, 'get_compression_profile')).profile).toBe('detailed');
      const ctx = await ok(second, 'afm_build_context', { budget_tokens: 4000 });
      expect(ctx.context).toMatch(/Handoff: Retry flake/);
      expect(ctx.items[0]).toMatchObject({ importance: 'CRITICAL', form: 'FULL' });
      const recovered = await ok(second, 'recover_session', { session_id: replay.session_id });
      expect(recovered.context).toMatch(/monotonic clock/);
      // The content hash is stable: the same bundle read twice hashes the same.
      expect((await ok(first, 'get_handoff_bundle', { bundle_id: created.bundle_id })).content_hash).toBe(created.content_hash);
    } finally {
      await Promise.allSettled([first.close(), second.close()]);
    }
  });

  it("another user's bundles are invisible; bad ids answer clearly; tampering is detected", async () => {
    const a = await connectMcp(server.url, t.keyA);
    try {
      const b = await ok(a, 'create_handoff_bundle', { notes: 'private notes' });
      for (const tool of ['get_handoff_bundle', 'replay_handoff_bundle']) {
        expect((await call(stranger, tool, { bundle_id: b.bundle_id })).data.error, tool).toBe('not_found');
        expect((await call(a, tool, { bundle_id: 'nope' })).data.error, tool).toBe('validation_error');
      }
      expect((await ok(stranger, 'list_handoff_bundles')).bundles).toEqual([]);
      expect((await call(a, 'create_handoff_bundle', { history_budget_tokens: 0 })).data.error).toBe('validation_error');
      await server.app.services.db.query("update handoff_bundles set content = replace(content, 'private notes', 'altered notes') where id = $1", [b.bundle_id]);
      expect((await ok(a, 'get_handoff_bundle', { bundle_id: b.bundle_id })).verified).toBe(false);
      expect((await call(a, 'replay_handoff_bundle', { bundle_id: b.bundle_id })).data.error).toBe('invalid_request');
    } finally {
      await a.close();
    }
  });
});

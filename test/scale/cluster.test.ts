// Issue 46: three instances on one PostgreSQL database and one Redis behind HAProxy, plain round-robin,
// no stickiness (docs/deployment.md). PostgreSQL path only; skipped with the reason otherwise.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { createUser } from '../../src/domain/identity/users.js';
import type { Plan } from '../../src/auth/plans.js';
import { connectMcp } from '../helpers/mcp.js';
import { freshDatabase } from '../helpers/server.js';
import { waitFor } from '../helpers/waitFor.js';
import { Cluster, skipReason } from './cluster.js';
import { moreAcknowledged, RETRIABLE, runClient, startClient, type LoadClient } from './load.js';

const reason = await skipReason();
if (reason) console.warn(`test/scale skipped: ${reason}`);

const FREE_LIMIT = 20;
/** The instances' auth cache lifetime (the longest allowed): a revocation must beat it. */
const AUTH_CACHE_MS = 5000;
const FILES = Array.from({ length: 12 }, (_, i) => ({
  path: `src/mod${i}.ts`,
  content: `import { helper${(i + 1) % 12} } from './mod${(i + 1) % 12}';\nexport function helper${i}(x: number): number {\n  return helper${(i + 1) % 12}(x) + ${i};\n}\n`,
}));

describe.skipIf(!!reason)(reason ? `scale (skipped: ${reason})` : 'scale: three instances behind HAProxy, round-robin, no stickiness', () => {
  const cluster = new Cluster({ database: freshDatabase, instances: 3, env: { RATE_LIMIT_FREE: String(FREE_LIMIT), AUTH_CACHE_MS: String(AUTH_CACHE_MS) } });

  beforeAll(async () => {
    await cluster.start();
  }, 120_000);
  afterAll(async () => {
    await cluster.close();
  }, 60_000);

  async function newKey(plan: Plan): Promise<{ key: string; keyId: string; userId: string }> {
    const user = await createUser(cluster.db, { plan });
    const { key, row } = await createApiKey(cluster.db, { userId: user.id, plan });
    return { key, keyId: row.key_id, userId: user.id };
  }

  /** MCP requests each instance has answered, from its own /metrics. */
  async function mcpRequestsPerInstance(): Promise<number[]> {
    return Promise.all(
      cluster.instances.map(async (i) => {
        const text = await (await fetch(`${i.url}/metrics`)).text();
        return text
          .split('\n')
          .filter((l) => l.startsWith('gc_http_requests_total') && l.includes('route="/mcp"'))
          .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
      }),
    );
  }

  async function successEvents(keyId: string): Promise<number> {
    const [row] = await cluster.db.query<{ n: number }>(`select count(*)::int as n from usage_events where key_id = $1 and status = 'success'`, [keyId]);
    return row!.n;
  }

  it('1. the official MCP SDK client: initialize, 200 tool calls, a call with progress notifications: 0 errors, the session served by every instance', async () => {
    const before = await mcpRequestsPerInstance();
    const { key } = await newKey('pro');
    const client = await connectMcp(cluster.url, key, 'scale-test');
    const errors: string[] = [];
    // Session state set on one instance is what every other instance serves next.
    const set = await client.callTool({ name: 'set_compression_profile', arguments: { profile: 'detailed', chunk_size: 640 } });
    if (set.isError) errors.push(JSON.stringify(set.structuredContent));
    for (let i = 0; i < 199; i++) {
      const r = await client.callTool(i % 2 ? { name: 'get_compression_profile', arguments: {} } : { name: 'estimate_tokens', arguments: { text: `call ${i}: the quick brown fox` } });
      const data = r.structuredContent as Record<string, unknown>;
      if (r.isError) errors.push(`${i}: ${JSON.stringify(data).slice(0, 200)}`);
      else if (i % 2 && (data.profile !== 'detailed' || data.chunk_size !== 640)) errors.push(`${i}: profile ${JSON.stringify(data).slice(0, 200)}`);
    }
    const updates: { progress: number; total?: number }[] = [];
    const progressed = await client.callTool({ name: 'compress_codebase', arguments: { files: FILES, query: 'helper' } }, CallToolResultSchema, { onprogress: (p) => updates.push(p) });
    if (progressed.isError) errors.push(JSON.stringify(progressed.structuredContent).slice(0, 300));
    expect(errors, cluster.logs()).toEqual([]);
    expect(updates.length).toBeGreaterThanOrEqual(3);
    expect(updates.at(-1)!.progress).toBe(updates.at(-1)!.total);
    // gc_session_summary's history holds every call, wherever it ran.
    const summary = await client.callTool({ name: 'gc_session_summary', arguments: {} });
    expect(summary.isError, JSON.stringify(summary.structuredContent)).toBeFalsy();
    const served = (await mcpRequestsPerInstance()).map((n, i) => n - before[i]!);
    for (const n of served) expect(n, `MCP requests per instance: ${served}`).toBeGreaterThan(50);

    // DELETE on one instance ends the session on all of them.
    const transport = client.transport as unknown as { sessionId: string; terminateSession(): Promise<void> };
    const sessionId = transport.sessionId;
    await transport.terminateSession();
    for (const instance of cluster.instances) {
      const res = await fetch(`${instance.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
      });
      expect(res.status, `${instance.name} after DELETE`).toBe(404);
    }
    await client.close();
  }, 120_000);

  it("5. a Free key's rate limit holds across instances; a revoked key is refused by every instance before its cached entry lapses", async () => {
    const free = await newKey('free');
    // Fixed one-minute windows: a burst that straddles a window boundary is sent again.
    let statuses: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const window = Math.floor(Date.now() / 60_000);
      statuses = [];
      for (let i = 0; i < FREE_LIMIT + 10; i++) statuses.push((await fetch(`${cluster.url}/v1/keys`, { headers: { authorization: `Bearer ${free.key}` } })).status);
      if (Math.floor(Date.now() / 60_000) === window) break;
      await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000)));
    }
    expect(statuses.filter((s) => s === 200).length, String(statuses)).toBe(FREE_LIMIT);
    expect(statuses.slice(FREE_LIMIT).every((s) => s === 429), String(statuses)).toBe(true);

    const holder = await newKey('pro');
    const revoker = await createApiKey(cluster.db, { userId: holder.userId, plan: 'pro' });
    // Every instance has the key's authentication cached before the revocation; each entry would let the
    // key in until its lifetime (AUTH_CACHE_MS) passed, so a refusal before then is the fan-out's doing.
    const cachedAt: number[] = [];
    for (const i of cluster.instances) {
      expect((await fetch(`${i.url}/v1/keys`, { headers: { authorization: `Bearer ${holder.key}` } })).status).toBe(200);
      cachedAt.push(Date.now());
    }
    const revoked = await fetch(`${cluster.url}/v1/keys/${holder.keyId}`, { method: 'DELETE', headers: { authorization: `Bearer ${revoker.key}` } });
    expect(revoked.status).toBe(200);
    const refusedAt = await Promise.all(
      cluster.instances.map((i) =>
        waitFor(`${i.url} refuses the revoked key`, async () => (await fetch(`${i.url}/v1/keys`, { headers: { authorization: `Bearer ${holder.key}` } })).status === 401 && Date.now()),
      ),
    );
    const lapses = cachedAt.map((t) => t + AUTH_CACHE_MS);
    refusedAt.forEach((t, n) => expect(t, `instance ${n} refused at ${t}, its entry lapsing at ${lapses[n]}`).toBeLessThan(lapses[n]!));
  }, 180_000);

  async function underLoad(what: (clients: LoadClient[]) => Promise<void>): Promise<{ clients: LoadClient[]; keyIds: string[] }> {
    const keys = await Promise.all([0, 1, 2, 3].map(() => newKey('enterprise')));
    const clients = await Promise.all(keys.map((k, i) => startClient(cluster.url, k.key, `load-${i}`)));
    let stopped = false;
    const running = clients.map((c) => runClient(cluster.url, c, () => stopped));
    try {
      await what(clients);
    } finally {
      stopped = true;
      await Promise.all(running);
    }
    return { clients, keyIds: keys.map((k) => k.keyId) };
  }

  /** Waits until every client has had `n` more calls acknowledged (load is flowing). */
  const acknowledged = (clients: LoadClient[], n: number) => Promise.all(clients.map((c) => moreAcknowledged(c, n)));

  it('2. a rolling restart of all three instances under four clients (compressions and MCP calls): 0 failed requests, every acknowledged call has its usage event', async () => {
    const codes: (number | string | null)[] = [];
    const { clients, keyIds } = await underLoad(async (clients) => {
      await acknowledged(clients, 2);
      for (let i = 0; i < cluster.instances.length; i++) {
        codes.push(await cluster.restart(i));
        await acknowledged(clients, 2);
      }
    });
    expect(codes, cluster.logs()).toEqual([0, 0, 0]);
    // Each left the rotation on its readiness 503 (draining), not on a refused connection after it was gone.
    for (const i of cluster.instances) expect(cluster.balancerLog(), cluster.logs()).toMatch(new RegExp(`Server service/${i.name} is DOWN, reason: Layer7 wrong status, code: 503`));
    const failures = clients.flatMap((c) => [...c.failures, ...c.retriable.map((r) => `${r.what} ${r.status}`)]);
    expect(failures, cluster.logs()).toEqual([]);
    for (const [i, c] of clients.entries()) {
      expect(c.acknowledged).toBeGreaterThan(4);
      expect(await successEvents(keyIds[i]!)).toBe(c.acknowledged);
      // Same session from the first call to the last: no client had to initialize again.
      expect((c.mcp.transport as { sessionId?: string }).sessionId).toBe(c.sessionId);
      await c.mcp.close();
    }
  }, 180_000);

  it('3. kill -9 of one instance under the same load: at most retriable errors, nothing acknowledged lost, MCP sessions continue on the other two', async () => {
    let afterKill: number[] = [];
    const { clients, keyIds } = await underLoad(async (clients) => {
      await acknowledged(clients, 2);
      await cluster.kill(1);
      afterKill = clients.map((c) => c.acknowledged);
      // Every session goes on: each client gets calls answered after the kill.
      await acknowledged(clients, 4);
    });
    const failures = clients.flatMap((c) => c.failures);
    expect(failures, cluster.logs()).toEqual([]);
    for (const r of clients.flatMap((c) => c.retriable)) expect(RETRIABLE.has(r.status)).toBe(true);
    for (const [i, c] of clients.entries()) {
      expect(c.acknowledged).toBeGreaterThanOrEqual(afterKill[i]! + 4);
      const events = await successEvents(keyIds[i]!);
      // Acknowledged ⊆ recorded; a call cut off with its answer may have been recorded too (then retried).
      expect(events).toBeGreaterThanOrEqual(c.acknowledged);
      expect(events).toBeLessThanOrEqual(c.acknowledged + c.retriable.length);
      expect((c.mcp.transport as { sessionId?: string }).sessionId).toBe(c.sessionId);
      await c.mcp.close();
    }
    await cluster.revive(1);
  }, 180_000);
});

// Issue 26's findings, each over a real socket: NUL and unpaired surrogates, deep JSON, huge integers,
// and a usage batch that must never fail as a whole.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/domain/identity/apiKeys.js';
import { insertUsageEvents } from '../../src/domain/metering/usage.js';
import { createUser } from '../../src/domain/identity/users.js';
import type { Principal } from '../../src/auth/principal.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { appMetric } from '../helpers/metrics.js';
import { waitFor } from '../helpers/waitFor.js';

let server: TestServer;
let proKey: string;
let proKeyId: string;
let proUserId: string;

const PROSE = Array.from({ length: 30 }, (_, i) => `Paragraph ${i} says the pool limits backend processes and idle connections cost memory.`).join('\n\n');

beforeAll(async () => {
  server = await startTestServer({ rateLimits: { free: 10_000, pro: 10_000, team: 10_000, enterprise: 10_000 } });
  const user = await createUser(server.app.services.db, { plan: 'pro', name: 'hostile' });
  const created = await createApiKey(server.app.services.db, { userId: user.id, plan: 'pro', name: 'hostile' });
  proKey = created.key;
  proKeyId = created.row.key_id;
  proUserId = user.id;
});
afterAll(async () => {
  await server?.close();
});

async function eventCount(keyId: string): Promise<number> {
  await server.app.services.background.drain();
  const [row] = await server.app.services.db.query<{ n: number }>('select count(*)::int as n from usage_events where key_id = $1', [keyId]);
  return row!.n;
}

/** Nested arrays `depth` levels deep, as raw JSON. */
const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe(`hostile input (${DB_KIND})`, () => {
  it('a NUL in one MCP call does not erase the usage of the REST calls written in the same batch', async () => {
    const mcp = await connectMcp(server.url, proKey);
    try {
      const before = await eventCount(proKeyId);
      const output = `first\u0000line of the build\n${'npm WARN deprecated inflight@1.0.6\n'.repeat(40)}error TS2345 at src/a.ts:1:1\n`;
      const [tool, ...rest] = await Promise.all([
        call(mcp, 'compress_tool_output', { output }),
        ...Array.from({ length: 11 }, (_, i) => server.request('POST', '/v1/compress', { key: proKey, body: { text: `${PROSE}\n\nCall ${i}.`, fidelity: 'outline' } })),
      ]);
      expect(tool.isError).toBe(false);
      expect(rest.map((r) => r.status)).toEqual(Array(11).fill(200));
      expect(await eventCount(proKeyId)).toBe(before + 12);
    } finally {
      await mcp.close();
    }
  });

  it('a NUL or an unpaired surrogate inside a compression text is removed at the boundary, not a 500', async () => {
    const text = `${PROSE}\n\nA line with a NUL \u0000 and a lone \ud800 surrogate.\n\n${PROSE}`;
    const res = await server.request('POST', '/v1/compress', { key: proKey, body: { text, fidelity: 'abstract' } });
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('\\u0000');
    // More than 80% removed: the original was preserved, without the NUL.
    const [row] = await server.app.services.db.query<{ content: string }>('select content from preserved_originals where id = $1', [res.json.original_id]);
    expect(row!.content).toContain('A line with a NUL  and a lone \ufffd surrogate.');
  });

  it('a key whose environment is an unpaired surrogate is created and audited', async () => {
    const res = await server.request('POST', '/v1/keys', { key: proKey, body: { name: 'odd\u0000name', environment: '\ud800' } });
    expect(res.status).toBe(201);
    expect(res.json.environment).toBe('\ufffd');
    const audit = await server.request('GET', '/v1/governance/audit?action=key.create&page_size=100', { key: proKey });
    expect(audit.json.items.some((r: any) => r.request_id === res.headers.get('x-request-id'))).toBe(true);
  });

  it('JSON nested 10,000 deep is a 422 naming the body, on REST and MCP', async () => {
    const rest = await server.request('POST', '/v1/compress', { key: proKey, rawBody: `{"text": ${deep(10_000)}}`, headers: { 'content-type': 'application/json' } });
    expect(rest.status).toBe(422);
    expect(JSON.stringify(rest.json.detail)).toContain('deeper than 64');
    const mcp = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${proKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"toon_encode","arguments":{"data":${deep(10_000)}}}}`,
    });
    expect(mcp.status).toBe(422);
  });

  it('integers past what their columns hold are 422, not 500', async () => {
    const created = await server.request('POST', '/v1/keys', { key: proKey, body: { name: 'q' } });
    const patched = await server.request('PATCH', `/v1/keys/${created.json.key_id}`, { key: proKey, body: { monthly_quota: 9007199254740993 } });
    expect(patched.status).toBe(422);
    const page = await server.request('GET', '/v1/usage/events?page=1e20', { key: proKey });
    expect(page.status).toBe(422);
  });

  it('one row the database refuses is dropped alone; the rest of its batch is written', async () => {
    const good: Principal = { userId: proUserId, keyId: proKeyId, projectId: null, environment: 'production', plan: 'pro' } as Principal;
    // A user id that does not exist violates the foreign key: the batch INSERT fails as a whole.
    const bad: Principal = { ...good, userId: '00000000-0000-4000-8000-000000000000', keyId: null };
    await expect(insertUsageEvents(server.app.services.db, [{ principal: bad, method: 'REST', status: 'success', inputTokens: 1, outputTokens: 1, latencyMs: 1 }])).rejects.toThrow();
    const before = await eventCount(proKeyId);
    // Recorded in the same turn, so they travel in one batch.
    await Promise.all(
      [good, bad, good].map((principal) => server.app.services.usage.record({ principal, method: 'REST', status: 'success', inputTokens: 5, outputTokens: 1, latencyMs: 1 })),
    );
    expect(await eventCount(proKeyId)).toBe(before + 2);
  });
});

/** Sends headers and only the first part of a large declared body over a raw socket; resolves with the status line, or null if none came. */
function partialPost(url: string, path: string, headers: Record<string, string>, declared: number, sent: number, waitMs: number): Promise<string | null> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      const head = Object.entries({ host: `${hostname}:${port}`, 'content-type': 'application/json', 'content-length': String(declared), ...headers })
        .map(([k, v]) => `${k}: ${v}`)
        .join('\r\n');
      socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n\r\n{"text":"${'x'.repeat(sent)}`);
    });
    let data = '';
    const timer = setTimeout(() => done(null), waitMs);
    const done = (line: string | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(line);
    };
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
      if (data.includes('\r\n')) done(data.split('\r\n')[0]!);
    });
    socket.on('error', () => done(data ? data.split('\r\n')[0]! : null));
  });
}

describe(`auth before the body (${DB_KIND})`, () => {
  it('a 7 MB body without a key, or with an unknown key, is answered 401 before it is sent', async () => {
    const declared = 7 * 1024 * 1024;
    // Only 64 KiB of the 7 MiB are ever sent: an answer can only come from the headers.
    expect(await partialPost(server.url, '/v1/compress', {}, declared, 64 * 1024, 5000)).toMatch(/^HTTP\/1\.1 401/);
    expect(await partialPost(server.url, '/v1/compress', { authorization: `Bearer gc_${'0'.repeat(32)}` }, declared, 64 * 1024, 5000)).toMatch(/^HTTP\/1\.1 401/);
    expect(await partialPost(server.url, '/mcp', { accept: 'application/json, text/event-stream' }, declared, 64 * 1024, 5000)).toMatch(/^HTTP\/1\.1 401/);
    // A valid key waits for the body as usual.
    expect(await partialPost(server.url, '/v1/compress', { authorization: `Bearer ${proKey}` }, declared, 64 * 1024, 500)).toBeNull();
  });

  it('a refused small body is drained, so the connection serves the next request', async () => {
    const agentless = await fetch(`${server.url}/v1/compress`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: PROSE }) });
    expect(agentless.status).toBe(401);
    const next = await server.request('POST', '/v1/compress', { key: proKey, body: { text: PROSE } });
    expect(next.status).toBe(200);
  });
});

describe(`project-bound keys stay in their project (${DB_KIND})`, () => {
  it('a project-bound key creates keys of its own project only, over REST and MCP', async () => {
    const db = server.app.services.db;
    const { createProject } = await import('../../src/domain/identity/projects.js');
    const user = await createUser(db, { plan: 'team', name: 'bound' });
    const mine = await createProject(db, user.id, { name: 'mine' });
    const other = await createProject(db, user.id, { name: 'other' });
    const bound = (await createApiKey(db, { userId: user.id, plan: 'team', name: 'bound', projectId: mine.id })).key;

    const made = await server.request('POST', '/v1/keys', { key: bound, body: { name: 'child' } });
    expect(made.status).toBe(201);
    expect(made.json.project_id).toBe(mine.id);
    expect((await server.request('POST', '/v1/keys', { key: bound, body: { name: 'x', project_id: other.id } })).status).toBe(403);
    expect((await server.request('PATCH', `/v1/keys/${made.json.key_id}`, { key: bound, body: { project_id: null } })).status).toBe(403);

    const mcp = await connectMcp(server.url, bound);
    try {
      const minted = await call(mcp, 'gc_mint_api_key', { name: 'minted' });
      expect(minted.isError).toBe(false);
      expect(minted.data.project_id).toBe(mine.id);
      expect((await call(mcp, 'gc_rebind_api_key', { key_id: made.json.key_id, project_id: other.id })).data.error).toBe('forbidden');
    } finally {
      await mcp.close();
    }
  });
});

describe(`in-flight body budget (${DB_KIND})`, () => {
  it('past the process-wide budget of body bytes, a new body is refused 503 with Retry-After, and served again once room frees', async () => {
    const small = await startTestServer({ maxInflightBodyBytes: 256 * 1024 });
    try {
      // A slow upload holds 200 KiB of the 256 KiB budget (declared 300 KiB, the rest never sent).
      const bodyBytes = () => appMetric(small.app.services, 'gc_http_request_body_bytes');
      const held = partialPost(small.url, '/v1/compress', { authorization: `Bearer ${small.ownerKey}` }, 300 * 1024, 200 * 1024, 3000);
      await waitFor("the slow upload's 200 KiB held", async () => (await bodyBytes()) >= 200 * 1024);
      const refused = await small.request('POST', '/v1/compress', { body: { text: 'y'.repeat(120 * 1024) } });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(refused.json.detail).toMatch(/bodies in flight/);
      await held; // the slow client gives up: its bytes go back to the budget
      await waitFor('the budget free again', async () => (await bodyBytes()) === 0);
      const served = await small.request('POST', '/v1/compress', { body: { text: 'y'.repeat(120 * 1024) } });
      expect(served.status).toBe(200);
    } finally {
      await small.close();
    }
  });
});

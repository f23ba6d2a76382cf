// Every feature that calls an outside server, against four broken servers on 127.0.0.1 (each allowed
// through the feature's allow-list): a closed port, a server that answers 302, one that never
// answers, and one that speaks plain bytes where TLS is expected. Each failure must come back as a
// 4xx or a 502 (MCP: a tool error other than internal_error) naming the reason, never a 500.
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { DomainError } from '../../src/domain/errors.js';
import { deliverWebhook } from '../../src/domain/federation/webhooks.js';
import { makePeer } from '../federation/helpers.js';
import { makeTenant } from '../kb/helpers.js';
import { call, connectMcp } from '../helpers/mcp.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { closedPort } from '../web/site.js';

type Mode = 'refused' | 'redirect' | 'timeout' | 'tls';
const MODES: Mode[] = ['refused', 'redirect', 'timeout', 'tls'];
/** The reason each broken server must be reported with (502 bodies and tool errors carry it). */
const REASON: Record<Mode, RegExp> = {
  refused: /network|could not be reached|unreachable|ECONNREFUSED/i,
  redirect: /redirect/i,
  timeout: /timeout|in time|timed out/i,
  tls: /tls|ssl|wrong version number|handshake/i,
};

let server: TestServer;
let mcp: Client;
/** A client whose key is bound to a project (connector feeds belong to one). */
let bound: Client;
const hosts: Record<Mode, string> = { refused: '', redirect: '', timeout: '', tls: '' };
const base: Record<Mode, string> = { refused: '', redirect: '', timeout: '', tls: '' };
const closers: (() => Promise<void>)[] = [];

async function listen(s: Server | TcpServer): Promise<number> {
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return (s.address() as AddressInfo).port;
}

/** The four broken servers (kept for the whole file; every socket is destroyed at the end). */
async function startBrokenServers(): Promise<void> {
  const sockets = new Set<Socket>();
  const track = (s: Server | TcpServer) => s.on('connection', (c: Socket) => (sockets.add(c), c.on('close', () => sockets.delete(c))));
  // 302 to itself: features that do not follow redirects say so; those that follow them run out of hops.
  const redirect = createHttpServer((req, res) => res.writeHead(302, { location: `http://${req.headers.host}${req.url}` }).end());
  const hang = createHttpServer(() => {}); // accepts, reads the request, never answers
  const garbage = createTcpServer((c) => c.once('data', () => c.end('HTTP/1.1 200 OK\r\n\r\nthis is not TLS\r\n')));
  for (const s of [redirect, hang, garbage]) track(s);
  const ports = { refused: await closedPort(), redirect: await listen(redirect), timeout: await listen(hang), tls: await listen(garbage) };
  for (const m of MODES) {
    hosts[m] = `127.0.0.1:${ports[m]}`;
    base[m] = `${m === 'tls' ? 'https' : 'http'}://${hosts[m]}`;
  }
  closers.push(async () => {
    for (const c of sockets) c.destroy();
    await Promise.all([redirect, hang, garbage].map((s) => new Promise((r) => s.close(r))));
  });
}

/** A REST answer for an outside failure: 502 with the reason and the host, or a 4xx with a detail. */
function expectOutsideFailure(mode: Mode, res: { status: number; json: any; text: string }) {
  const shown = `${mode}: ${res.status} ${res.text.slice(0, 300)}`;
  expect(res.status, shown).not.toBe(500);
  expect(res.status === 502 || (res.status >= 400 && res.status < 500), shown).toBe(true);
  expect(typeof res.json?.detail, shown).toBe('string');
  expect(`${res.json.reason ?? ''} ${res.json.detail}`, shown).toMatch(REASON[mode]);
}

/** A tool error for an outside failure: never internal_error, with the reason in it. */
function expectToolFailure(mode: Mode, r: { isError: boolean; data: any }) {
  const shown = `${mode}: ${JSON.stringify(r.data).slice(0, 400)}`;
  expect(r.isError, shown).toBe(true);
  expect(r.data.error, shown).not.toBe('internal_error');
  expect(typeof r.data.detail, shown).toBe('string');
  expect(`${r.data.reason ?? ''} ${r.data.detail}`, shown).toMatch(REASON[mode]);
}

beforeAll(async () => {
  await startBrokenServers();
  const allowed = MODES.map((m) => hosts[m]);
  const defaults = loadConfig({});
  server = await startTestServer({
    federation: { ...defaults.federation, allowedHosts: allowed, timeoutMs: 300 },
    web: { ...defaults.web, allowedHosts: allowed, timeoutMs: 300, searchBaseUrl: '' },
    mcpProxy: { ...defaults.mcpProxy, allowedHosts: allowed, timeoutMs: 300 },
  });
  mcp = await connectMcp(server.url, server.ownerKey);
  bound = await connectMcp(server.url, (await makeTenant(server, 'pro')).keyA);
});

afterAll(async () => {
  await Promise.allSettled([mcp?.close(), bound?.close()]);
  await server?.close();
  for (const c of closers) await c();
});

describe(`outside fetch failures are 4xx or 502 with a reason (${DB_KIND})`, () => {
  it.each(MODES)('A2A peer registration fetching the key set: %s', async (mode) => {
    const res = await server.request('POST', '/v1/agents/a2a-peers', { body: { name: `peer-${mode}`, base_url: base[mode] } });
    expectOutsideFailure(mode, res);
    // The peer's failure, not the caller's: a 502 that names the host.
    expect(res.status).toBe(502);
    expect(res.json.host).toBe(hosts[mode]);
    expect(res.json.detail).toContain(hosts[mode]);
  });

  it.each(MODES)('A2A share request sent to a peer: %s', async (mode) => {
    const peer = await makePeer();
    const created = await server.request('POST', '/v1/agents/a2a-peers', { body: { name: `send-${mode}`, base_url: base[mode], public_keys: [peer.publicJwk] } });
    expect(created.status, created.text).toBe(201);
    const res = await server.request('POST', `/v1/agents/a2a-peers/${created.json.peer_id}/share-requests`, {
      body: { project_id: '00000000-0000-4000-8000-000000000000', requested_resource: 'knowledge' },
    });
    expectOutsideFailure(mode, res);
    expect(res.status).toBe(502);
  });

  it.each(MODES)('webhook delivery: %s', async (mode) => {
    const hook = await server.request('POST', '/v1/webhooks', { body: { url: `${base[mode]}/hook` } });
    expect(hook.status, hook.text).toBe(201);
    const delivery = deliverWebhook(server.app.services.db, {
      webhook_id: hook.json.webhook_id,
      event: { id: `evt-${mode}`, type: 'a2a.task.status', created_at: new Date().toISOString(), data: {} } as never,
    });
    // The outbox retries a thrown delivery; what it records must be the reason, as a domain error.
    const err = await delivery.then(() => null, (e: unknown) => e);
    expect(err, String(err)).toBeInstanceOf(DomainError);
    expect((err as DomainError).kind).toBe('bad_gateway');
    expect((err as DomainError).detail).toMatch(REASON[mode]);
  });

  it.each(MODES)('gc_web_lookup: %s', async (mode) => {
    expectToolFailure(mode, await call(mcp, 'gc_web_lookup', { url: `${base[mode]}/page` }));
  });

  it.each(MODES)('gc_web_search against the search provider: %s', async (mode) => {
    server.app.services.config.web.searchBaseUrl = base[mode];
    expectToolFailure(mode, await call(mcp, 'gc_web_search', { query: 'tomato pruning', api_key: 'test-search-key' }));
  });

  it.each(MODES)('connector feed sync: %s', async (mode) => {
    const feed = await call(bound, 'create_connector_feed', { type: 'rss', source: `${base[mode]}/feed.xml` });
    expect(feed.isError, JSON.stringify(feed.data)).toBe(false);
    expectToolFailure(mode, await call(bound, 'sync_connector_feed', { feed_id: feed.data.feed_id }));
  });

  it.each(MODES)('proxy_mcp_server over Streamable HTTP: %s', async (mode) => {
    expectToolFailure(mode, await call(mcp, 'proxy_mcp_server', { server: { url: `${base[mode]}/mcp` }, tool: 'echo', arguments: {} }));
  });
});

describe(`an identity provider whose JWKS_URL fails (${DB_KIND})`, () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });

  it.each(MODES)('a JWT bearer is answered 502 naming the key set, not 500 or 401: %s', async (mode) => {
    const s = await startTestServer({ jwksUrl: `${base[mode]}/.well-known/jwks.json`, jwksTimeoutMs: 300 });
    servers.push(s);
    const { privateKey } = await generateKeyPair('ES256');
    const token = await new SignJWT({ sub: 'user-1' }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setIssuedAt().setExpirationTime('5m').sign(privateKey);
    const res = await s.request('GET', '/v1/keys', { key: token });
    expectOutsideFailure(mode, res);
    expect(res.status).toBe(502);
    expect(res.json.detail).toMatch(/JWKS_URL/);
  });
});

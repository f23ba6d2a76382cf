import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { AgentCard } from '@a2a-js/sdk';
import { importJWK, jwtVerify, SignJWT } from 'jose';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signingKeys } from '../../src/domain/identity/signingKeys.js';
import { packageRoot } from '../../src/lib/root.js';
import { EXTENSION_TOOLS, SPEC_CATALOGUE } from '../../src/mcp/catalogue.js';
import { allTools } from '../../src/mcp/registry.js';
import { renderToolsDoc } from '../../scripts/docs/tools.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';
import { makeTenant } from '../kb/helpers.js';
import { call } from '../helpers/mcp.js';
import { connectAs } from '../helpers/users.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe(`discovery documents (${DB_KIND})`, () => {
  it('serves an agent card the official A2A client accepts, with every tool as a skill', async () => {
    const card = await new DefaultAgentCardResolver().resolve(server.url);
    expect(card.name).toBeTruthy();
    expect(card.version).toBe('1.66.4');
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: false, extendedAgentCard: false });
    expect(card.defaultInputModes).toEqual(['text/plain', 'application/json']);
    expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.url, i.protocolVersion])).toEqual([
      ['MCP', `${server.url}/mcp`, '1.0'],
      ['HTTP+JSON', server.url, '1.0'],
      ['JSONRPC', `${server.url}/a2a/v1/jsonrpc`, '1.0'],
    ]);
    expect(card.securitySchemes.bearer?.scheme).toMatchObject({ $case: 'httpAuthSecurityScheme', value: { scheme: 'Bearer' } });
    expect(card.capabilities!.extensions).toHaveLength(5);
    const jws = card.capabilities!.extensions.find((e) => e.uri.includes('share-jws'))!;
    expect(jws.params).toEqual({ jwks_url: `${server.url}/.well-known/a2a-jwks.json` });
    const ids = card.skills.map((s) => s.id).sort();
    expect(ids).toEqual(allTools().map((t) => t.name).sort());
    for (const skill of card.skills) {
      const tool = allTools().find((t) => t.name === skill.id)!;
      expect(skill.tags).toEqual([`plan:${tool.plan}`, `category:${tool.category}`, 'mcp']);
      expect(skill.inputModes).toEqual(['application/json', 'text/plain']);
    }
    // The card survives the SDK's own proto-JSON round trip unchanged in what matters.
    const roundTrip = AgentCard.fromJSON(AgentCard.toJSON(AgentCard.fromJSON(card)));
    expect(roundTrip.skills.length).toBe(card.skills.length);
    expect(roundTrip.supportedInterfaces[0]!.url).toBe(`${server.url}/mcp`);
  });

  it("lists every tool of the spec's catalogue for an Enterprise key, as an agent-card skill, each with its tool_help", async () => {
    const client = await connectAs(server, 'enterprise');
    try {
      // The default list is the core toolset; 'all' lists the whole catalogue (src/mcp/toolsets.ts).
      expect((await call(client, 'tool_help', { enable_toolsets: ['all'] })).isError).toBe(false);
      const listed = new Map<string, { description?: string }>();
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : undefined);
        for (const t of page.tools) listed.set(t.name, t);
        cursor = page.nextCursor;
      } while (cursor);
      const spec = SPEC_CATALOGUE.map((t) => t.name);
      expect(spec).toHaveLength(189);
      expect(spec.filter((name) => !listed.has(name)), 'spec tools missing from tools/list').toEqual([]);
      const card = await new DefaultAgentCardResolver().resolve(server.url);
      const skills = new Set(card.skills.map((s) => s.id));
      expect(spec.filter((name) => !skills.has(name)), 'spec tools missing from the agent card').toEqual([]);
      for (const name of spec) {
        const help = await call(client, 'tool_help', { tool_name: name });
        expect(help.isError, `tool_help ${name}: ${JSON.stringify(help.data).slice(0, 200)}`).toBe(false);
      }
      expect(renderToolsDoc()).not.toMatch(/\| planned \|/);
    } finally {
      await client.close();
    }
  });

  it('serves the legacy path with 0.x fields', async () => {
    const res = await fetch(`${server.url}/.well-known/agent.json`);
    expect(res.status).toBe(200);
    const card = await res.json();
    expect(card.protocolVersion).toBe('0.3.0');
    expect(card.url).toBe(`${server.url}/mcp`);
    expect(card.skills.length).toBe(allTools().length);
  });

  it('publishes Ed25519 keys that verify what the service signs, stable across calls', async () => {
    const first = await fetch(`${server.url}/.well-known/a2a-jwks.json`).then((r) => r.json());
    const second = await fetch(`${server.url}/.well-known/a2a-jwks.json`).then((r) => r.json());
    expect(first).toEqual(second);
    expect(first.keys).toHaveLength(1);
    const jwk = first.keys[0];
    expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    expect(jwk.d).toBeUndefined();
    const [key] = await signingKeys(server.app.services.db);
    const token = await new SignJWT({ hello: 'world' }).setProtectedHeader({ alg: 'EdDSA', kid: key!.kid }).sign(key!.privateKey);
    const { payload, protectedHeader } = await jwtVerify(token, await importJWK(jwk, 'EdDSA'));
    expect(payload.hello).toBe('world');
    expect(protectedHeader.kid).toBe(jwk.kid);
    // Stored as JSON objects (not JSON strings), so keys load again after a restart on both drivers.
    const [row] = await server.app.services.db.query<{ t: string }>('select jsonb_typeof(private_jwk) as t from signing_keys');
    expect(row!.t).toBe('object');
  });

  it('registers only catalogue tools, with the catalogue category and plan tag', () => {
    for (const tool of allTools()) {
      const entry = [...SPEC_CATALOGUE, ...EXTENSION_TOOLS].find((c) => c.name === tool.name);
      expect(entry, tool.name).toBeDefined();
      expect(tool.category, tool.name).toBe(entry!.category);
      expect(tool.plan === 'free' ? 'free' : 'pro', tool.name).toBe(entry!.plan);
    }
  });

  it('keeps docs/tools.md generated from the registry', () => {
    const onDisk = readFileSync(join(packageRoot(), 'docs', 'tools.md'), 'utf8');
    expect(onDisk).toBe(renderToolsDoc());
  });
});

/** A request over a real socket with the Host header we choose (fetch does not let us set it). */
function raw(srv: TestServer, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; json: any }> {
  const { port } = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: body ? { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode!, headers: res.headers, json });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const mcpUrlOf = async (srv: TestServer, headers: Record<string, string>) => {
  const res = await raw(srv, 'GET', '/.well-known/agent-card.json', headers);
  expect(res.status).toBe(200);
  return res.json.supportedInterfaces.find((i: { protocolBinding: string }) => i.protocolBinding === 'MCP').url as string;
};

describe(`public base URL from request headers (${DB_KIND})`, () => {
  let allowed: TestServer;
  beforeAll(async () => {
    allowed = await startTestServer({ publicHosts: ['gc.example.com', 'alt.example.com:8443'] });
  });
  afterAll(async () => {
    await allowed?.close();
  });

  it('does not echo a foreign Host or X-Forwarded-Host (agent cards, OAuth metadata, MCP challenge, upload URLs)', async () => {
    const fallback = `http://localhost:${server.app.services.config.port}`;
    expect(await mcpUrlOf(server, { host: 'evil.example' })).toBe(`${fallback}/mcp`);
    expect(await mcpUrlOf(server, { host: 'evil.example', 'x-forwarded-proto': 'https' })).toBe(`${fallback}/mcp`);
    expect(await mcpUrlOf(server, { host: '127.0.0.1', 'x-forwarded-host': 'evil.example' })).toBe(`${fallback}/mcp`);
    expect(await mcpUrlOf(server, { host: 'localhost.evil.example' })).toBe(`${fallback}/mcp`);
    expect(await mcpUrlOf(server, { host: 'localhost@evil.example' })).toBe(`${fallback}/mcp`);
    const legacy = await raw(server, 'GET', '/.well-known/agent.json', { host: 'evil.example' });
    expect(legacy.json.url).toBe(`${fallback}/mcp`);
    const prm = await raw(server, 'GET', '/.well-known/oauth-protected-resource', { host: 'evil.example' });
    expect(JSON.stringify(prm.json)).not.toContain('evil');
    expect(prm.json.resource).toBe(`${fallback}/mcp`);
    // A server listening on loopback refuses a foreign Host on /mcp outright (DNS rebinding), before any challenge.
    const rebound = await raw(server, 'POST', '/mcp', { host: 'evil.example', accept: 'application/json, text/event-stream' }, '{}');
    expect(rebound.status).toBe(403);
    expect(JSON.stringify(rebound.headers)).not.toContain('oauth-protected-resource');
    const challenge = await raw(server, 'POST', '/mcp', { host: '127.0.0.1', 'x-forwarded-host': 'evil.example', accept: 'application/json, text/event-stream' }, '{}');
    expect(challenge.status).toBe(401);
    expect(challenge.headers['www-authenticate']).toContain(`resource_metadata="${fallback}/.well-known/oauth-protected-resource"`);

    const t = await makeTenant(server);
    const upload = await raw(server, 'POST', `/v1/projects/${t.projectId}/knowledge/uploads`, { host: 'evil.example', 'x-forwarded-host': 'evil.example', authorization: `Bearer ${t.keyA}` }, JSON.stringify({ idempotency_key: 'host-check', name: 'n', size_bytes: 10 }));
    expect(upload.status).toBe(201);
    expect(upload.json.upload_url.startsWith(`${fallback}/v1/projects/`)).toBe(true);
  });

  it('accepts loopback hosts on any port, with X-Forwarded-Proto', async () => {
    expect(await mcpUrlOf(server, { host: 'localhost:1234' })).toBe('http://localhost:1234/mcp');
    expect(await mcpUrlOf(server, { host: '127.0.0.1:9' })).toBe('http://127.0.0.1:9/mcp');
    expect(await mcpUrlOf(server, { host: '[::1]:8080' })).toBe('http://[::1]:8080/mcp');
    expect(await mcpUrlOf(server, { host: 'LOCALHOST' })).toBe('http://localhost/mcp');
    expect(await mcpUrlOf(server, { host: 'evil.example', 'x-forwarded-host': 'localhost:3000', 'x-forwarded-proto': 'https' })).toBe('https://localhost:3000/mcp');
  });

  it('accepts hosts on PUBLIC_HOSTS (an entry without a port: any port), X-Forwarded-Host first', async () => {
    expect(allowed.app.services.config.publicHosts).toEqual(['gc.example.com', 'alt.example.com:8443']);
    expect(await mcpUrlOf(allowed, { host: 'gc.example.com' })).toBe('http://gc.example.com/mcp');
    expect(await mcpUrlOf(allowed, { host: 'GC.example.com:444', 'x-forwarded-proto': 'https' })).toBe('https://gc.example.com:444/mcp');
    expect(await mcpUrlOf(allowed, { host: '127.0.0.1', 'x-forwarded-host': 'gc.example.com, proxy.internal', 'x-forwarded-proto': 'https' })).toBe('https://gc.example.com/mcp');
    expect(await mcpUrlOf(allowed, { host: 'alt.example.com:8443' })).toBe('http://alt.example.com:8443/mcp');
    const fallback = `http://localhost:${allowed.app.services.config.port}`;
    expect(await mcpUrlOf(allowed, { host: 'alt.example.com' })).toBe(`${fallback}/mcp`);
    expect(await mcpUrlOf(allowed, { host: 'evil.example', 'x-forwarded-proto': 'https' })).toBe(`${fallback}/mcp`);
    const prm = await raw(allowed, 'GET', '/.well-known/oauth-protected-resource', { host: 'gc.example.com', 'x-forwarded-proto': 'https' });
    expect(prm.json.resource).toBe('https://gc.example.com/mcp');
  });

  it('PUBLIC_URL wins over any header', { timeout: 60_000 }, async () => {
    const fixed = await startTestServer({ publicUrl: 'https://api.example.org/', publicHosts: ['gc.example.com'] });
    try {
      expect(await mcpUrlOf(fixed, { host: 'gc.example.com' })).toBe('https://api.example.org/mcp');
      expect(await mcpUrlOf(fixed, { host: 'localhost:1' })).toBe('https://api.example.org/mcp');
    } finally {
      await fixed.close();
    }
  });
});

import { DefaultAgentCardResolver } from '@a2a-js/sdk/client';
import { AgentCard } from '@a2a-js/sdk';
import { importJWK, jwtVerify, SignJWT } from 'jose';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signingKeys } from '../../src/domain/accounts/signingKeys.js';
import { packageRoot } from '../../src/lib/root.js';
import { SPEC_CATALOGUE } from '../../src/mcp/catalogue.js';
import { allTools } from '../../src/mcp/registry.js';
import { renderToolsDoc } from '../../scripts/docs/tools.js';
import { DB_KIND, startTestServer, type TestServer } from '../helpers/server.js';

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
    ]);
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
      const entry = SPEC_CATALOGUE.find((c) => c.name === tool.name);
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

// Spec: "Endpoints > Health and monitoring" (health, metrics, well-known documents, internal aggregate)
// and "Versioning" (the agent card's fields).
import { allTools } from '../../../src/mcp/registry.js';
import { t, type ContractFile, type Fields } from '../contract.js';

/** "Versioning": what the spec says the agent card carries (field names from the A2A v1.0 AgentCard the spec refers to). */
const AGENT_CARD: Fields = {
  // "Agent card version: 1.66.4."
  version: t.const('1.66.4'),
  // "Agent card supported interfaces: MCP at {base_url}/mcp and HTTP+JSON at {base_url}, each with protocol version 1.0."
  'supportedInterfaces[].url': t.string,
  'supportedInterfaces[].protocolBinding': t.string,
  'supportedInterfaces[].protocolVersion': t.string,
  // "Agent card capabilities: streaming true, pushNotifications false, extendedAgentCard false."
  'capabilities.streaming': t.const(true),
  'capabilities.pushNotifications': t.const(false),
  'capabilities.extendedAgentCard': t.const(false),
  // "Extension identifiers in the card: …"
  'capabilities.extensions[].uri': t.string,
  // "Default input and output modes: text/plain and application/json."
  defaultInputModes: t.array,
  defaultOutputModes: t.array,
  // "The agent card lists each MCP tool as a skill whose id is the tool name", "tagged plan:<tier>, category:<name> and mcp".
  'skills[].id': t.string,
  'skills[].tags': t.array,
  // "Input and output modes: application/json and text/plain" (per skill; A2A AgentSkill field names).
  'skills[].inputModes': t.array,
  'skills[].outputModes': t.array,
};

const cardChecks = (json: any) => {
  // MCP at {base_url}/mcp and HTTP+JSON at {base_url}, each 1.0 (another standard's binding may be listed too).
  const interfaces = json.supportedInterfaces as { protocolBinding: string; url: string; protocolVersion: string }[];
  const mcp = interfaces.find((i) => i.protocolBinding === 'MCP');
  const rest = interfaces.find((i) => i.protocolBinding === 'HTTP+JSON');
  if (!mcp || !mcp.url.endsWith('/mcp') || mcp.protocolVersion !== '1.0') throw new Error(`supportedInterfaces should list MCP at {base_url}/mcp, version 1.0: ${JSON.stringify(mcp)}`);
  if (!rest || rest.url !== mcp.url.slice(0, -'/mcp'.length) || rest.protocolVersion !== '1.0') throw new Error(`supportedInterfaces should list HTTP+JSON at {base_url}, version 1.0: ${JSON.stringify(rest)}`);
  for (const mode of ['text/plain', 'application/json']) {
    if (!json.defaultInputModes.includes(mode) || !json.defaultOutputModes.includes(mode)) throw new Error(`default modes should include ${mode}`);
  }
  const skills = json.skills as { id: string; tags: string[]; inputModes: string[]; outputModes: string[] }[];
  for (const skill of skills) {
    if (!skill.tags.includes('mcp') || !skill.tags.some((x) => x.startsWith('plan:')) || !skill.tags.some((x) => x.startsWith('category:'))) {
      throw new Error(`skill ${skill.id} should be tagged plan:<tier>, category:<name> and mcp; has ${skill.tags.join(', ')}`);
    }
    for (const mode of ['application/json', 'text/plain']) {
      if (!skill.inputModes.includes(mode) || !skill.outputModes.includes(mode)) throw new Error(`skill ${skill.id} modes should include ${mode}`);
    }
  }
  // "Every tool id is also a skill id in the agent card."
  const ids = new Set(skills.map((s) => s.id));
  const missing = allTools().map((x) => x.name).filter((name) => !ids.has(name));
  if (missing.length) throw new Error(`tools without a skill in the card: ${missing.join(', ')}`);
  // "Extension identifiers in the card: an MCP mapping extension, a plan-tier tagging extension, an A2A share JWS
  // extension (params jwks_url), an A2A task push extension (params event a2a.task.status) and a payment extension
  // covering scope /v1/compress and /v1/compress-code."
  const extensions = json.capabilities.extensions as { uri: string; params?: Record<string, unknown> }[];
  if (extensions.length < 5) throw new Error(`the card should carry five extensions, has ${extensions.length}`);
  if (!extensions.some((e) => typeof e.params?.jwks_url === 'string')) throw new Error('no extension with params jwks_url (A2A share JWS)');
  if (!extensions.some((e) => e.params?.event === 'a2a.task.status')) throw new Error('no extension with params event a2a.task.status (A2A task push)');
  if (!extensions.some((e) => JSON.stringify(e.params ?? {}).includes('/v1/compress-code') && JSON.stringify(e.params ?? {}).includes('/v1/compress"'))) {
    throw new Error('no payment extension covering /v1/compress and /v1/compress-code');
  }
  // "API description version: 1.52.14" is published with the card.
  if (!JSON.stringify(json).includes('"1.52.14"')) throw new Error('the API description version 1.52.14 is not in the card');
};

export default {
  area: 'Health and monitoring; discovery documents',
  routes: [
    { method: 'GET', path: '/health', spec: 'GET /health | none | alias of liveness', request: { key: null }, status: 200 },
    { method: 'GET', path: '/health/liveness', spec: 'GET /health/liveness | none | 200 whenever the process runs', request: { key: null }, status: 200 },
    { method: 'GET', path: '/health/readiness', spec: 'GET /health/readiness | none | readiness of core dependencies', request: { key: null }, status: 200 },
    {
      method: 'GET',
      path: '/health/diagnostics',
      spec: 'status, version, uptime_seconds, circuit_breakers always present; latency_p50_ms, latency_p95_ms, latency_p99_ms are null; cache_hit_rate when available; mcp_sessions_active is null; operational metadata only',
      request: { key: null },
      status: 200,
      fields: {
        status: t.string,
        version: t.string,
        uptime_seconds: t.number,
        // Not typed by the spec; several breakers: an object or a list.
        circuit_breakers: t.oneOf(t.object, t.array),
        latency_p50_ms: t.null,
        latency_p95_ms: t.null,
        latency_p99_ms: t.null,
        cache_hit_rate: t.optional(t.nullable(t.number)),
        mcp_sessions_active: t.null,
      },
    },
    { method: 'GET', path: '/v1/infra/health', spec: 'GET /v1/infra/health | - | health object', request: { key: null }, status: 200 },
    {
      method: 'GET',
      path: '/metrics',
      spec: 'text/plain Prometheus exposition, including histogram gc_compress_duration_seconds',
      request: { key: null },
      status: 200,
      body: 'text',
      contentType: 'text/plain',
      text: [/^# TYPE gc_compress_duration_seconds histogram$/m, /^gc_compress_duration_seconds_bucket\{/m],
    },
    {
      method: 'GET',
      path: '/.well-known/oauth-protected-resource',
      spec: 'RFC 9728 protected resource metadata (JSON object); MCP OAuth: scopes mcp:tools, mcp:read, mcp:write',
      request: { key: null },
      status: 200,
      // RFC 9728 section 2: resource is REQUIRED; scopes_supported is where the spec's scopes are published.
      fields: { resource: t.string, scopes_supported: t.optional(t.array) },
      check: (res) => {
        const scopes = res.json.scopes_supported as string[] | undefined;
        if (scopes) for (const s of ['mcp:tools', 'mcp:read', 'mcp:write']) if (!scopes.includes(s)) throw new Error(`scopes_supported lacks ${s}`);
      },
    },
    {
      method: 'GET',
      path: '/.well-known/agent-card.json',
      spec: 'agent card (canonical path); Versioning: card version 1.66.4, supported interfaces MCP and HTTP+JSON (1.0), capabilities streaming true, pushNotifications false, extendedAgentCard false',
      request: { key: null },
      status: 200,
      fields: AGENT_CARD,
      check: (res) => cardChecks(res.json),
    },
    {
      method: 'GET',
      path: '/.well-known/agent.json',
      spec: 'agent card (legacy path); served at /.well-known/agent.json (legacy 0.x path)',
      request: { key: null },
      status: 200,
      fields: AGENT_CARD,
      check: (res) => cardChecks(res.json),
    },
    {
      method: 'GET',
      path: '/.well-known/a2a-jwks.json',
      spec: 'JWKS used to verify signed share manifests; Ed25519 JWS (alg EdDSA, with a kid header); public keys are published at /.well-known/a2a-jwks.json',
      request: { key: null },
      status: 200,
      // RFC 7517 (JWK Set) with RFC 8037 Ed25519 keys; kid is what a JWS header names.
      fields: { 'keys[].kty': t.const('OKP'), 'keys[].crv': t.const('Ed25519'), 'keys[].x': t.string, 'keys[].kid': t.string },
    },
    {
      method: 'GET',
      path: '/openapi.json',
      spec: 'discovery documents (/.well-known/*); "The public docs address is {docs_url}"',
      outsideSpec: 'The OpenAPI 3.1 description of the REST routes, generated from the route registry and the zod schemas (issue 24); the spec lists discovery documents but not this one.',
      request: { key: null },
      status: 200,
      // OpenAPI 3.1.0 (another standard): openapi, info.title, info.version and paths are its required fields.
      fields: { openapi: t.const('3.1.0'), 'info.title': t.string, 'info.version': t.string, paths: t.object, 'components.securitySchemes.bearerAuth.scheme': t.const('bearer') },
      check: (res) => {
        const compress = res.json.paths['/v1/compress']?.post;
        if (!compress?.requestBody || !compress.responses['422']) throw new Error('POST /v1/compress should carry its request body and the 422 HTTPValidationError');
        if (res.json.paths['/health']?.get?.security?.length !== 0) throw new Error('a public route should be marked security: []');
      },
    },
    {
      method: 'GET',
      path: '/internal/benchmark-aggregate',
      spec: 'GET /internal/benchmark-aggregate | header X-Internal-Token | aggregated benchmark rows; 401 when the header is missing or wrong',
      request: (c) => ({ key: null, headers: { 'x-internal-token': c.internalToken } }),
      status: 200,
      note: 'Row fields are not shown by the spec.',
      check: async (_res, c) => {
        for (const headers of [{}, { 'x-internal-token': 'wrong' }] as Record<string, string>[]) {
          const denied = await c.server.request('GET', '/internal/benchmark-aggregate', { key: null, headers });
          if (denied.status !== 401) throw new Error(`without the right X-Internal-Token: ${denied.status}, spec says 401`);
        }
      },
    },
  ],
} satisfies ContractFile;

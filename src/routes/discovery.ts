import { MCP_SCOPES } from '../auth/scopes.js';
import { signingKeys } from '../domain/identity/signingKeys.js';
import { publicBaseUrl } from '../http/publicUrl.js';
import { defineRoute } from '../http/route.js';
import { buildAgentCard, legacyAgentCard } from '../mcp/agentCard.js';
import { mcpResource } from '../mcp/oauth.js';
import { z } from 'zod';

const resourceMetadata = z.object({
  resource: z.string(),
  authorization_servers: z.array(z.string()),
  scopes_supported: z.array(z.enum(MCP_SCOPES)),
  bearer_methods_supported: z.array(z.literal('header')),
  resource_name: z.string(),
  resource_documentation: z.string(),
});
/** The A2A v1.0 card (mcp/agentCard.ts): the fields a client reads; the card may carry more. */
const agentCard = z.looseObject({
  name: z.string(),
  description: z.string(),
  version: z.string(),
  supportedInterfaces: z.array(z.looseObject({ url: z.string(), protocolBinding: z.enum(['MCP', 'HTTP+JSON', 'JSONRPC']), protocolVersion: z.string() })),
  capabilities: z.looseObject({ streaming: z.boolean(), pushNotifications: z.boolean() }),
  defaultInputModes: z.array(z.string()),
  defaultOutputModes: z.array(z.string()),
  skills: z.array(z.looseObject({ id: z.string(), name: z.string(), description: z.string(), tags: z.array(z.string()) })),
});
/** The 0.x card adds the fields 0.3 clients look for. */
const legacyCard = agentCard.extend({ protocolVersion: z.string(), url: z.string(), preferredTransport: z.string(), additionalInterfaces: z.array(z.looseObject({ url: z.string(), transport: z.string() })) });
const jwks = z.object({ keys: z.array(z.looseObject({ kty: z.string() })) });

export const discoveryRoutes = [
  defineRoute({
    method: 'GET',
    path: '/.well-known/oauth-protected-resource',
    auth: 'public',
    response: resourceMetadata,
    handler({ services, headers }) {
      const base = publicBaseUrl(services.config, headers);
      const issuer = services.config.jwtIssuer;
      // RFC 9728 protected resource metadata for the MCP endpoint (RFC 8707 resource = this URL).
      return {
        body: {
          resource: mcpResource(base),
          authorization_servers: issuer ? [issuer] : [],
          scopes_supported: MCP_SCOPES,
          bearer_methods_supported: ['header'],
          resource_name: 'Semantic Compression Service MCP endpoint',
          resource_documentation: `${base}/.well-known/agent-card.json`,
        },
      };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/.well-known/agent-card.json',
    auth: 'public',
    response: agentCard,
    handler: ({ services, headers }) => ({ body: buildAgentCard(publicBaseUrl(services.config, headers), services.config.version) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/.well-known/agent.json',
    auth: 'public',
    response: legacyCard,
    handler: ({ services, headers }) => ({ body: legacyAgentCard(publicBaseUrl(services.config, headers), services.config.version) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/.well-known/a2a-jwks.json',
    auth: 'public',
    response: jwks,
    async handler({ services }) {
      const keys = await signingKeys(services.db);
      return { body: { keys: keys.map((k) => k.publicJwk) }, headers: { 'cache-control': 'public, max-age=300' } };
    },
  }),
];

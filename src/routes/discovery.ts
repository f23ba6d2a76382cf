import { MCP_SCOPES } from '../auth/scopes.js';
import { signingKeys } from '../domain/accounts/signingKeys.js';
import { publicBaseUrl } from '../http/publicUrl.js';
import { defineRoute } from '../http/route.js';
import { buildAgentCard, legacyAgentCard } from '../mcp/agentCard.js';
import { mcpResource } from '../mcp/oauth.js';

export const discoveryRoutes = [
  defineRoute({
    method: 'GET',
    path: '/.well-known/oauth-protected-resource',
    auth: 'public',
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
    handler: ({ services, headers }) => ({ body: buildAgentCard(publicBaseUrl(services.config, headers), services.config.version) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/.well-known/agent.json',
    auth: 'public',
    handler: ({ services, headers }) => ({ body: legacyAgentCard(publicBaseUrl(services.config, headers), services.config.version) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/.well-known/a2a-jwks.json',
    auth: 'public',
    async handler({ services }) {
      const keys = await signingKeys(services.db);
      return { body: { keys: keys.map((k) => k.publicJwk) }, headers: { 'cache-control': 'public, max-age=300' } };
    },
  }),
];

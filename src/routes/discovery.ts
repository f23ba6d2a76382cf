import { MCP_SCOPES } from '../auth/scopes.js';
import { signingKeys } from '../domain/accounts/signingKeys.js';
import { defineRoute } from '../http/route.js';
import { buildAgentCard, legacyAgentCard } from '../mcp/agentCard.js';
import { mcpResource } from '../mcp/oauth.js';
import type { Services } from '../services.js';

/** The base URL clients should use: PUBLIC_URL when configured, else what the request's Host says. */
export function baseUrl(services: Services, headers: Record<string, string>): string {
  if (services.config.publicUrl) return services.config.publicUrl.replace(/\/$/, '');
  const proto = headers['x-forwarded-proto'] === 'https' ? 'https' : 'http';
  return `${proto}://${headers['x-forwarded-host'] ?? headers.host ?? `localhost:${services.config.port}`}`;
}

export const discoveryRoutes = [
  defineRoute({
    method: 'GET',
    path: '/.well-known/oauth-protected-resource',
    auth: 'public',
    handler({ services, headers }) {
      const base = baseUrl(services, headers);
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
    handler: ({ services, headers }) => ({ body: buildAgentCard(baseUrl(services, headers), services.config.version) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/.well-known/agent.json',
    auth: 'public',
    handler: ({ services, headers }) => ({ body: legacyAgentCard(baseUrl(services, headers), services.config.version) }),
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

import { defineRoute } from '../http/route.js';
import type { Services } from '../services.js';

/** The base URL clients should use: PUBLIC_URL when configured, else what the request's Host says. */
export function baseUrl(services: Services, headers: Record<string, string>): string {
  if (services.config.publicUrl) return services.config.publicUrl.replace(/\/$/, '');
  const proto = headers['x-forwarded-proto'] === 'https' ? 'https' : 'http';
  return `${proto}://${headers['x-forwarded-host'] ?? headers.host ?? `localhost:${services.config.port}`}`;
}

export const MCP_SCOPES = ['mcp:tools', 'mcp:read', 'mcp:write'];

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
          resource: `${base}/mcp`,
          authorization_servers: issuer ? [issuer] : [],
          scopes_supported: MCP_SCOPES,
          bearer_methods_supported: ['header'],
          resource_name: 'Semantic Compression Service MCP endpoint',
          resource_documentation: `${base}/.well-known/agent-card.json`,
        },
      };
    },
  }),
];

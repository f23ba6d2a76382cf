import type { JWTPayload } from 'jose';

/**
 * OAuth scopes of the MCP endpoint (docs/mcp-tools.md, "OAuth"):
 * mcp:tools — compute tools that work only on what the call sends;
 * mcp:read — tools that read the caller's stored data (documents, originals, Knowledge Hub, usage);
 * mcp:write — tools that create, change or delete stored data (or keys).
 */
export const MCP_SCOPES = ['mcp:tools', 'mcp:read', 'mcp:write'] as const;
export type McpScope = (typeof MCP_SCOPES)[number];

export function isMcpScope(value: string): value is McpScope {
  return (MCP_SCOPES as readonly string[]).includes(value);
}

/** Granted scopes from `scope` (RFC 9068: space-separated) or `scp` (array or string, as some providers send). */
export function tokenScopes(payload: JWTPayload): string[] {
  const raw = payload.scope ?? payload.scp;
  if (typeof raw === 'string') return raw.split(/\s+/).filter(Boolean);
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === 'string');
  return [];
}

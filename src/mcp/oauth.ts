import type { Principal } from '../auth/principal.js';
import { isMcpScope, MCP_SCOPES, type McpScope } from '../auth/scopes.js';
import { getTool } from './registry.js';
import { toolScope } from './tool.js';

/** The RFC 8707 resource identifier of the MCP endpoint: access tokens must carry it in `aud`. */
export function mcpResource(base: string): string {
  return `${base}/mcp`;
}

interface Shortfall {
  /** Scopes that would satisfy the request (any one of them). */
  needed: McpScope[];
  what: string;
}

/**
 * The first JSON-RPC message an access token is not scoped for, or null. API keys are not
 * scope-limited. tools/call needs the tool's scope; anything else (initialize, tools/list, ping,
 * notifications) needs at least one MCP scope.
 */
export function scopeShortfall(principal: Principal, body: unknown): Shortfall | null {
  if (!principal.scopes) return null;
  const granted = new Set(principal.scopes.filter(isMcpScope));
  const messages = Array.isArray(body) ? body : [body];
  for (const m of messages) {
    const message = (m ?? {}) as { method?: unknown; params?: { name?: unknown } };
    if (message.method === 'tools/call') {
      const name = typeof message.params?.name === 'string' ? message.params.name : '';
      const tool = getTool(name);
      const scope = tool ? toolScope(tool) : 'mcp:tools';
      if (!granted.has(scope)) return { needed: [scope], what: `tools/call ${name || '(no name)'}` };
    } else if (granted.size === 0) {
      return { needed: [...MCP_SCOPES], what: typeof message.method === 'string' ? message.method : 'this request' };
    }
  }
  return null;
}

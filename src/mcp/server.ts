import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Principal } from '../auth/principal.js';
import type { Services } from '../services.js';
import { callTool } from './call.js';
import { toolList } from './registry.js';
import type { SessionState } from './session.js';

export const SERVER_INFO = { name: 'semantic-compression-service', title: 'Semantic Compression Service' };

/** Who calls a session, refreshed on every request (the session store updates it). */
export interface Caller {
  principal: Principal;
  /** Public base URL as the client reached us. */
  baseUrl: string;
}

/** One low-level MCP server per session (or per stateless request); each call reads its caller afresh. */
export function createMcpServer(services: Services, caller: Caller, session: SessionState): Server {
  const server = new Server(
    { ...SERVER_INFO, version: services.config.version },
    {
      capabilities: { tools: { listChanged: false } },
      instructions: 'Call gc_pre_flight first; tool_help lists every tool by category.',
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList() }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
    callTool(request.params.name, request.params.arguments, {
      services,
      principal: caller.principal,
      session,
      client: server.getClientVersion()?.name ?? null,
      baseUrl: caller.baseUrl,
      signal: extra.signal,
    }),
  );
  return server;
}

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, ListToolsRequestSchema, SetLevelRequestSchema, type ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { Services } from '../services.js';
import { callTool, onTheWire } from './call.js';
import { toolList } from './registry.js';
import { registerPrompts } from './prompts.js';
import { registerResources } from './resources.js';
import type { Caller } from './caller.js';
import { logs, type SessionState } from './session.js';

export const SERVER_INFO = { name: 'semantic-compression-service', title: 'Semantic Compression Service' };

export type { Caller } from './caller.js';

/**
 * One validator for every server: each Server otherwise builds its own Ajv with formats (about 1 ms),
 * which a one-shot call pays on every request. Only elicitation would use it, and no tool elicits.
 */
let validator: AjvJsonSchemaValidator | undefined;

/** One low-level MCP server per session (or per stateless request); each call reads its caller afresh. */
export function createMcpServer(services: Services, caller: Caller, session: SessionState): Server {
  const server = new Server(
    { ...SERVER_INFO, version: services.config.version },
    {
      capabilities: { tools: { listChanged: true }, logging: {}, resources: {}, prompts: {}, completions: {} },
      jsonSchemaValidator: (validator ??= new AjvJsonSchemaValidator()),
      instructions: 'Call gc_pre_flight first. tools/list shows the core tools; tool_help describes every tool, and its enable_toolsets lists more.',
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList(session.toolsets) }));
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    session.logLevel = request.params.level;
    return {};
  });
  // On the protocol itself, not through Server's tools/call override: that one parses the request a
  // second time and the result once more, and callTool only ever returns well-formed results
  // (test/mcp/direct.test.ts). The protocol still parses the request against CallToolRequestSchema.
  const onProtocol = Protocol.prototype.setRequestHandler as Server['setRequestHandler'];
  onProtocol.call(server, CallToolRequestSchema, async (request, extra) => {
    const name = request.params.name;
    // Notifications about this call go on its own response stream; a client gone away just misses them.
    const send = (notification: ServerNotification) => void extra.sendNotification(notification).catch(() => undefined);
    const token = request.params._meta?.progressToken;
    const toolsets = session.toolsets;
    const result = await callTool(name, request.params.arguments, {
      services,
      principal: caller.principal,
      session,
      client: server.getClientVersion()?.name ?? null,
      baseUrl: caller.baseUrl,
      signal: extra.signal,
      onProgress: token === undefined ? undefined : (u) => send({ method: 'notifications/progress', params: { progressToken: token, ...u } }),
      log: (level, data) => logs(session, level) && send({ method: 'notifications/message', params: { level, logger: name, data } }),
    });
    // tool_help's enable_toolsets widened what this session lists (it replaces session.toolsets).
    if (session.toolsets !== toolsets && toolList(session.toolsets).length !== toolList(toolsets).length) void server.sendToolListChanged().catch(() => undefined);
    return onTheWire(name, result);
  });
  registerResources(server, services, caller);
  registerPrompts(server);
  return server;
}

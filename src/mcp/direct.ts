import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isJSONRPCRequest, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

type OnRequest = (request: JSONRPCMessage, extra: unknown) => void;

/**
 * Call after server.connect(transport). The protocol classifies each incoming message by trying it
 * first as a result and then as an error response (two zod parses that fail for every request, each
 * building a ZodError) before it tries a request. A message with neither `result` nor `error` fails
 * both by definition (each key is required), so a request is handed to the server's request path
 * directly; anything else takes the protocol's own path. Same order, same outcome, two parses fewer.
 * Without the SDK's request entry point (another SDK version) nothing changes.
 */
export function routeRequestsDirectly(server: Server, transport: Transport): void {
  const onRequest = (server as unknown as { _onrequest?: OnRequest })._onrequest;
  const generic = transport.onmessage;
  if (typeof onRequest !== 'function' || !generic) return;
  transport.onmessage = (message, extra) => {
    if (!('result' in message) && !('error' in message) && isJSONRPCRequest(message)) onRequest.call(server, message, extra);
    else generic(message, extra);
  };
}

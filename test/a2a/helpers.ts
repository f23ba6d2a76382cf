import { SendMessageRequest, type AgentCard, type StreamResponse, type Task } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory, type Client } from '@a2a-js/sdk/client';

/** The official A2A client for a base URL, reading the agent card, with a bearer key on every call. */
export async function a2aClient(baseUrl: string, key: string, preferred?: 'HTTP+JSON' | 'JSONRPC', polling = false, card?: (c: AgentCard) => AgentCard): Promise<Client> {
  const fetchImpl: typeof fetch = (input, init) =>
    fetch(input, { ...init, headers: { ...((init?.headers as Record<string, string> | undefined) ?? {}), authorization: `Bearer ${key}` } });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new RestTransportFactory({ fetchImpl }), new JsonRpcTransportFactory({ fetchImpl })],
      ...(preferred ? { preferredTransports: [preferred] } : {}),
      clientConfig: { polling },
    }),
  );
  if (card) return factory.createFromAgentCard(card(await new DefaultAgentCardResolver().resolve(baseUrl)));
  return factory.createFromUrl(baseUrl);
}

let n = 0;

/** A SendMessageRequest from its wire (proto-JSON) form: parts as {text} / {data} / {url}. */
export function messageOf(parts: Record<string, unknown>[], extra: Record<string, unknown> = {}): SendMessageRequest {
  return SendMessageRequest.fromJSON({ message: { messageId: `m-${Date.now()}-${++n}`, role: 'ROLE_USER', parts, ...extra } });
}

export const textMessage = (text: string) => messageOf([{ text, mediaType: 'text/plain' }]);
export const skillMessage = (skill: string, args: Record<string, unknown>) => messageOf([{ data: { skill, arguments: args }, mediaType: 'application/json' }]);

export function asTask(result: unknown): Task {
  if (!result || typeof result !== 'object' || !('status' in result)) throw new Error(`expected a Task, got ${JSON.stringify(result).slice(0, 300)}`);
  return result as Task;
}

/** The event's kind and value (the SDK's oneof). */
export function kindOf(e: StreamResponse): string {
  return e.payload?.$case ?? 'none';
}

/** Files for compress_codebase: a ring of modules, enough for several parse batches. */
export function codebase(count: number): { path: string; content: string }[] {
  return Array.from({ length: count }, (_, i) => ({
    path: `src/mod${i}.ts`,
    content:
      `import { helper${(i + 1) % count} } from './mod${(i + 1) % count}';\n` +
      `/** Adds ${i} to what the next module computes. */\n` +
      `export function helper${i}(x: number): number {\n  return helper${(i + 1) % count}(x) + ${i};\n}\n` +
      `export class Widget${i} {\n  constructor(private readonly size: number) {}\n  area(): number {\n    return this.size * this.size + helper${i}(${i});\n  }\n}\n`,
  }));
}

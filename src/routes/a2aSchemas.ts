import { z } from 'zod';
import { TASK_STATES } from '../a2a/protocol/wire.js';

/** The A2A v1.0 objects the HTTP+JSON and JSON-RPC bindings answer (src/a2a/protocol/wire.ts), as response schemas. */
const metadata = z.record(z.string(), z.unknown()).optional();

const part = z.looseObject({
  text: z.string().optional(),
  data: z.unknown().optional(),
  raw: z.string().optional(),
  url: z.string().optional(),
  filename: z.string().optional(),
  mediaType: z.string().optional(),
  metadata,
});

const message = z.looseObject({
  messageId: z.string(),
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  role: z.enum(['ROLE_USER', 'ROLE_AGENT']),
  parts: z.array(part),
  metadata,
  extensions: z.array(z.string()).optional(),
  referenceTaskIds: z.array(z.string()).optional(),
});

export const a2aTask = z.looseObject({
  id: z.string(),
  contextId: z.string(),
  status: z.looseObject({ state: z.enum(TASK_STATES), message: message.optional(), timestamp: z.string() }),
  artifacts: z.array(z.looseObject({ artifactId: z.string(), name: z.string().optional(), description: z.string().optional(), parts: z.array(part), metadata })).optional(),
  history: z.array(message).optional(),
  metadata,
});

export const a2aListTasks = z.looseObject({ tasks: z.array(a2aTask), nextPageToken: z.string(), pageSize: z.number().int(), totalSize: z.number().int() });

const rpcId = z.union([z.string(), z.number(), z.null()]);

/** A JSON-RPC 2.0 answer: its result (a task, a task list, or SendMessage's `{task}`) or its error; both are 200. */
export const rpcAnswer = z.union([
  z.object({ jsonrpc: z.literal('2.0'), id: rpcId, result: z.union([z.object({ task: a2aTask }), a2aListTasks, a2aTask]) }),
  z.object({ jsonrpc: z.literal('2.0'), id: rpcId, error: z.object({ code: z.number().int(), message: z.string(), data: z.unknown().optional() }) }),
]);

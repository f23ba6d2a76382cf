// The A2A protocol's own operations (v1.0) at the agent card's interfaces: the HTTP+JSON binding under
// {base_url} (the card's interface; the same operations also under /a2a/v1) and the JSON-RPC binding at
// /a2a/v1/jsonrpc (src/routes/a2a.ts, docs/a2a.md). The interface
// spec lists the interfaces, not the operations, so every entry is outsideSpec with its fields taken
// from the A2A specification (proto-JSON names: Task.id, contextId, status.state, artifacts[].parts, …).
// HTTP+JSON answers are application/a2a+json (the A2A media type), so their entries use body 'text'
// with that content type; their fields are checked on the parsed JSON all the same.
import { runTask } from '../../../src/domain/compute.js';
import { t, type ContractContext, type ContractFile, type RouteContract } from '../contract.js';

const SPEC = 'Agent card supported interfaces: MCP at {base_url}/mcp and HTTP+JSON at {base_url}, each with protocol version 1.0; A2A paths are prefixed /a2a/v1; capabilities: streaming true';
const A2A = 'An operation of the A2A protocol v1.0 (a2a-protocol.org specification, HTTP+JSON / JSON-RPC binding) at the interface the agent card lists; fields are the A2A specification’s (docs/a2a.md).';
const A2A_JSON = 'application/a2a+json';
const STATES = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'] as const;

let n = 0;
const message = (parts: unknown[], configuration?: Record<string, unknown>) => ({
  message: { messageId: `contract-a2a-${++n}`, role: 'ROLE_USER', parts },
  ...(configuration ? { configuration } : {}),
});
const FILES = Array.from({ length: 6 }, (_, i) => ({ path: `src/m${i}.ts`, content: `export function f${i}(x: number): number {\n  return x + ${i};\n}\n` }));

/** A task left working: the pool's threads are held, so the skill waits in the queue. */
async function workingTask(c: ContractContext): Promise<string> {
  const services = c.server.app.services;
  for (let i = 0; i < services.pool.stats().threads; i++) void runTask(services, 'ping', { holdMs: 1500 }, { owner: 'contract-a2a-hold' }).catch(() => undefined);
  const sent = await c.ok('POST', '/a2a/v1/message:send', message([{ data: { skill: 'compress_codebase', arguments: { files: FILES } } }], { returnImmediately: true }));
  return sent.task.id;
}

const TASK = {
  id: t.uuid,
  contextId: t.string,
  'status.state': t.enum(...STATES),
  'status.timestamp': t.timestamp,
};

/** The HTTP+JSON binding's operations: at {base_url} (where the card lists the binding) and the same under /a2a/v1. */
const httpJson = (prefix: string): RouteContract[] => [
    {
      method: 'POST',
      path: `${prefix}/message:send`,
      spec: SPEC,
      outsideSpec: `${A2A} SendMessage: a text part is compressed at the default fidelity; the answer is the completed Task.`,
      request: { body: message([{ text: 'The A2A binding compresses the text parts of a message at the default fidelity, balanced.' }]) },
      status: 200,
      body: 'text',
      contentType: A2A_JSON,
      fields: {
        'task.id': t.uuid,
        'task.contextId': t.string,
        'task.status.state': t.const('TASK_STATE_COMPLETED'),
        'task.status.timestamp': t.timestamp,
        'task.artifacts[].artifactId': t.string,
        'task.artifacts[].parts': t.array,
        'task.artifacts[0].parts[0].text': t.string,
        'task.history[].messageId': t.string,
        'task.history[].role': t.const('ROLE_USER'),
      },
    },
    {
      method: 'POST',
      path: `${prefix}/message:stream`,
      spec: SPEC,
      outsideSpec: `${A2A} SendStreamingMessage: Server-Sent Events of StreamResponse objects (task, statusUpdate, artifactUpdate) until the task ends.`,
      request: { body: message([{ data: { skill: 'compress_codebase', arguments: { files: FILES } } }]) },
      status: 200,
      body: 'text',
      contentType: 'text/event-stream',
      text: [/^data: \{"task":\{"id":"[0-9a-f-]{36}"/m, /^data: \{"statusUpdate":.*"TASK_STATE_WORKING"/m, /^data: \{"artifactUpdate":/m, /^data: \{"statusUpdate":.*"TASK_STATE_COMPLETED"/m],
    },
    {
      method: 'GET',
      path: `${prefix}/tasks`,
      spec: SPEC,
      outsideSpec: `${A2A} ListTasks: the caller’s tasks, most recently updated first, with a page token.`,
      request: { query: { pageSize: 10 } },
      status: 200,
      body: 'text',
      contentType: A2A_JSON,
      fields: { 'tasks[].id': t.uuid, 'tasks[].contextId': t.string, 'tasks[].status.state': t.enum(...STATES), nextPageToken: t.string, pageSize: t.integer, totalSize: t.integer },
    },
    {
      method: 'GET',
      path: `${prefix}/tasks/:task_id`,
      spec: SPEC,
      outsideSpec: `${A2A} GetTask (and GET {id}:subscribe, which the binding also allows).`,
      request: (c) => ({ params: { task_id: c.fx.a2a_task_id }, query: { historyLength: 1 } }),
      status: 200,
      body: 'text',
      contentType: A2A_JSON,
      fields: { ...TASK, 'artifacts[].artifactId': t.string, 'history[].messageId': t.string },
    },
    {
      method: 'POST',
      path: `${prefix}/tasks/:task_operation`,
      spec: SPEC,
      outsideSpec: `${A2A} CancelTask as POST /tasks/{id}:cancel (and SubscribeToTask as POST /tasks/{id}:subscribe): the custom-method segment is one path parameter here.`,
      request: async (c) => ({ params: { task_operation: `${await workingTask(c)}:cancel` } }),
      status: 200,
      body: 'text',
      contentType: A2A_JSON,
      fields: { ...TASK, 'status.state': t.const('TASK_STATE_CANCELED') },
    },
];

export default {
  area: 'A2A protocol operations (v1.0) at the agent card’s interfaces',
  setup: async (c) => {
    const sent = await c.ok('POST', '/a2a/v1/message:send', message([{ text: 'Contract fixture: a short note for the A2A protocol entries.' }]));
    c.fx.a2a_task_id = sent.task.id;
  },
  routes: [
    ...httpJson(''),
    ...httpJson('/a2a/v1'),
    {
      method: 'POST',
      path: '/a2a/v1/jsonrpc',
      spec: SPEC,
      outsideSpec: `${A2A} The JSON-RPC 2.0 binding the agent card lists beside HTTP+JSON (methods SendMessage, SendStreamingMessage, GetTask, ListTasks, CancelTask, SubscribeToTask).`,
      request: (c) => ({ body: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: c.fx.a2a_task_id } } }),
      status: 200,
      fields: { jsonrpc: t.const('2.0'), id: t.const(1), 'result.id': t.uuid, 'result.status.state': t.const('TASK_STATE_COMPLETED') },
    },
  ],
} satisfies ContractFile;

/**
 * The A2A v1.0 data model as it travels (proto-JSON: camelCase fields, enum names, a Part's content as
 * one of text / data / raw / url), and the protocol's error vocabulary in both bindings' shapes:
 * HTTP+JSON (`google.rpc.Status` with an `ErrorInfo` detail) and JSON-RPC (`{code, message, data}`).
 * Hand-written to the specification; the official client (@a2a-js/sdk) is what the tests drive it with.
 */

export const TASK_STATES = [
  'TASK_STATE_SUBMITTED',
  'TASK_STATE_WORKING',
  'TASK_STATE_COMPLETED',
  'TASK_STATE_FAILED',
  'TASK_STATE_CANCELED',
  'TASK_STATE_INPUT_REQUIRED',
  'TASK_STATE_REJECTED',
  'TASK_STATE_AUTH_REQUIRED',
] as const;
export type TaskState = (typeof TASK_STATES)[number];

/** States a task never leaves. */
export const TERMINAL_STATES: ReadonlySet<TaskState> = new Set(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED']);
/** States of a task still running (held by a process under a lease). */
export const OPEN_STATES = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'] as const;

export type Role = 'ROLE_USER' | 'ROLE_AGENT';

export interface Part {
  text?: string;
  data?: unknown;
  raw?: string;
  url?: string;
  filename?: string;
  mediaType?: string;
  metadata?: Record<string, unknown>;
}

export interface Message {
  messageId: string;
  contextId?: string;
  taskId?: string;
  role: Role;
  parts: Part[];
  metadata?: Record<string, unknown>;
  extensions?: string[];
  referenceTaskIds?: string[];
}

export interface TaskStatus {
  state: TaskState;
  message?: Message;
  timestamp: string;
}

export interface Artifact {
  artifactId: string;
  name?: string;
  description?: string;
  parts: Part[];
  metadata?: Record<string, unknown>;
}

export interface Task {
  id: string;
  contextId: string;
  status: TaskStatus;
  artifacts?: Artifact[];
  history?: Message[];
  metadata?: Record<string, unknown>;
}

export interface TaskStatusUpdateEvent {
  taskId: string;
  contextId: string;
  status: TaskStatus;
  metadata?: Record<string, unknown>;
}

export interface TaskArtifactUpdateEvent {
  taskId: string;
  contextId: string;
  artifact: Artifact;
  append?: boolean;
  lastChunk?: boolean;
  metadata?: Record<string, unknown>;
}

/** One event of a stream (message:stream, tasks/{id}:subscribe): exactly one of these fields. */
export type StreamResponse =
  | { task: Task }
  | { message: Message }
  | { statusUpdate: TaskStatusUpdateEvent }
  | { artifactUpdate: TaskArtifactUpdateEvent };

export interface ListTasksResponse {
  tasks: Task[];
  nextPageToken: string;
  pageSize: number;
  totalSize: number;
}

/** The protocol's named errors (A2A v1.0 §10.6 / §11.6): reason, HTTP status and name, JSON-RPC code. */
const ERRORS = {
  TaskNotFoundError: { reason: 'TASK_NOT_FOUND', http: 404, status: 'NOT_FOUND', rpc: -32001 },
  TaskNotCancelableError: { reason: 'TASK_NOT_CANCELABLE', http: 400, status: 'FAILED_PRECONDITION', rpc: -32002 },
  PushNotificationNotSupportedError: { reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED', http: 400, status: 'FAILED_PRECONDITION', rpc: -32003 },
  UnsupportedOperationError: { reason: 'UNSUPPORTED_OPERATION', http: 400, status: 'FAILED_PRECONDITION', rpc: -32004 },
  ContentTypeNotSupportedError: { reason: 'CONTENT_TYPE_NOT_SUPPORTED', http: 400, status: 'INVALID_ARGUMENT', rpc: -32005 },
  ExtendedAgentCardNotConfiguredError: { reason: 'EXTENDED_AGENT_CARD_NOT_CONFIGURED', http: 400, status: 'FAILED_PRECONDITION', rpc: -32007 },
  VersionNotSupportedError: { reason: 'VERSION_NOT_SUPPORTED', http: 400, status: 'FAILED_PRECONDITION', rpc: -32009 },
  /** JSON-RPC's InvalidParams: a request that is well-formed JSON but not a valid call. */
  InvalidParamsError: { reason: 'INVALID_PARAMS', http: 400, status: 'INVALID_ARGUMENT', rpc: -32602 },
} as const;
export type A2AErrorName = keyof typeof ERRORS;

export const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
export const ERROR_DOMAIN = 'a2a-protocol.org';

/** A protocol-level refusal; the bindings render it (restErrorOf, rpcErrorOf). */
export class A2AProtocolError extends Error {
  override name = 'A2AProtocolError';
  constructor(
    readonly kind: A2AErrorName,
    message: string,
    /** google.rpc.ErrorInfo metadata: string values only. */
    readonly metadata: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const taskNotFound = (id: string) => new A2AProtocolError('TaskNotFoundError', `Task not found: ${id}`);
export const invalidParams = (message: string, metadata?: Record<string, string>) => new A2AProtocolError('InvalidParamsError', message, metadata);

function errorInfo(e: A2AProtocolError) {
  return { '@type': ERROR_INFO_TYPE, reason: ERRORS[e.kind].reason, domain: ERROR_DOMAIN, ...(Object.keys(e.metadata).length ? { metadata: e.metadata } : {}) };
}

/**
 * HTTP+JSON error body: `{error: google.rpc.Status}`. `detail` repeats the message, as every error body
 * of this service carries one.
 */
export function restErrorOf(e: A2AProtocolError): { status: number; body: Record<string, unknown> } {
  const spec = ERRORS[e.kind];
  return { status: spec.http, body: { error: { code: spec.http, status: spec.status, message: e.message, details: [errorInfo(e)] }, detail: e.message } };
}

/** JSON-RPC error object. */
export function rpcErrorOf(e: A2AProtocolError): { code: number; message: string; data: unknown[] } {
  return { code: ERRORS[e.kind].rpc, message: e.message, data: [errorInfo(e)] };
}

/** HTTP+JSON error body for a failure that is not one of the protocol's named errors (503, 429, 500). */
export function restStatusBody(http: number, status: string, message: string): Record<string, unknown> {
  return { error: { code: http, status, message, details: [] }, detail: message };
}

import { z } from 'zod';
import { FIDELITIES, type Fidelity } from '../../../workers/shared/fidelity.js';
import { asDomainError } from '../../domain/errors.js';
import { validate } from '../../http/validate.js';
import { getTool } from '../../mcp/registry.js';
import { A2AProtocolError, invalidParams, TASK_STATES, type Message, type Part, type TaskState } from './wire.js';
import { iso } from '../../lib/time.js';

/** The protocol's requests, as both bindings hand them over (proto-JSON field names). */

const metadata = z.record(z.string(), z.unknown());
const id = z.string().min(1).max(200);

const PartSchema = z.object({
  text: z.string().optional(),
  data: z.unknown().optional(),
  raw: z.string().optional(),
  url: z.string().optional(),
  filename: z.string().max(1024).optional(),
  mediaType: z.string().max(255).optional(),
  metadata: metadata.optional(),
});

const MessageSchema = z.object({
  messageId: id,
  contextId: z.string().max(200).optional(),
  taskId: z.string().max(200).optional(),
  role: z.enum(['ROLE_USER', 'ROLE_UNSPECIFIED', 'ROLE_AGENT']).optional(),
  parts: z.array(PartSchema).min(1).max(100),
  metadata: metadata.optional(),
  extensions: z.array(z.string().max(500)).max(50).optional(),
  referenceTaskIds: z.array(z.string().max(200)).max(50).optional(),
});

const SendMessageSchema = z.object({
  tenant: z.string().max(200).optional(),
  message: MessageSchema,
  configuration: z
    .object({
      acceptedOutputModes: z.array(z.string().max(255)).max(50).optional(),
      taskPushNotificationConfig: z.unknown().optional(),
      historyLength: z.number().int().min(0).optional(),
      returnImmediately: z.boolean().optional(),
    })
    .optional(),
  metadata: metadata.optional(),
});

export interface SendMessage {
  message: Message;
  historyLength?: number;
  returnImmediately: boolean;
}

/** A Zod failure as one readable InvalidParams message: "message.parts.0.text: Expected string, received number". */
function malformed(what: string, err: unknown): A2AProtocolError {
  const domain = asDomainError(err);
  const issues = domain?.issues ?? [];
  const text = issues.length ? issues.slice(0, 5).map((i) => `${i.loc.join('.') || what}: ${i.msg}`).join('; ') : domain?.detail ?? `Invalid ${what}`;
  return invalidParams(`Invalid ${what}: ${text}`);
}

function parse<S extends z.ZodTypeAny>(schema: S, value: unknown, what: string): z.infer<S> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidParams(`Invalid ${what}: expected a JSON object`);
  try {
    return validate(schema, value, null, what);
  } catch (err) {
    throw malformed(what, err);
  }
}

export function parseSendMessage(value: unknown): SendMessage {
  const req = parse(SendMessageSchema, value, 'SendMessageRequest');
  if (req.configuration?.taskPushNotificationConfig !== undefined) {
    throw new A2AProtocolError('PushNotificationNotSupportedError', 'Push notifications are not supported (the agent card says pushNotifications: false)');
  }
  if (req.message.role === 'ROLE_AGENT') throw invalidParams('Invalid SendMessageRequest: message.role must be ROLE_USER');
  const m = req.message;
  const message: Message = {
    messageId: m.messageId,
    role: 'ROLE_USER',
    parts: m.parts.map((p) => Object.fromEntries(Object.entries(p).filter(([, v]) => v !== undefined)) as Part),
    ...(m.contextId ? { contextId: m.contextId } : {}),
    ...(m.taskId ? { taskId: m.taskId } : {}),
    ...(m.metadata ? { metadata: m.metadata } : {}),
    ...(m.extensions?.length ? { extensions: m.extensions } : {}),
    ...(m.referenceTaskIds?.length ? { referenceTaskIds: m.referenceTaskIds } : {}),
  };
  return { message, historyLength: req.configuration?.historyLength, returnImmediately: req.configuration?.returnImmediately ?? false };
}

/** What a message asks for: its text compressed, or one skill run with its arguments. */
export type Work =
  | { kind: 'text'; text: string; fidelity: Fidelity; query: string | null }
  | { kind: 'skill'; skill: string; arguments: Record<string, unknown> };

export const DEFAULT_FIDELITY: Fidelity = 'balanced';

const TEXT_MEDIA = /^text\/[\w.+-]+$/i;
const JSON_MEDIA = /^application\/([\w.-]+\+)?json$/i;

/**
 * The message's parts as one piece of work. Text parts (text/*) are joined and compressed; one data part
 * `{skill, arguments}` runs that skill (an MCP tool of the agent card). Anything else is a clear error.
 */
export function workOf(message: Message): Work {
  const texts: string[] = [];
  const data: { value: unknown; index: number }[] = [];
  message.parts.forEach((part, index) => {
    const where = `message.parts[${index}]`;
    const kinds = (['text', 'data', 'raw', 'url'] as const).filter((k) => part[k] !== undefined);
    if (kinds.length === 0) throw invalidParams(`${where} has no content: a part carries one of text, data, raw or url`);
    if (kinds.length > 1) throw invalidParams(`${where} carries ${kinds.join(' and ')}: a part carries exactly one kind of content`);
    const kind = kinds[0]!;
    if (kind === 'raw' || kind === 'url') {
      throw new A2AProtocolError(
        'ContentTypeNotSupportedError',
        `${where} is a file (${kind}${part.mediaType ? `, ${part.mediaType}` : ''}); this agent takes text parts (text/plain, compressed) or one data part {"skill", "arguments"}`,
        { part: String(index) },
      );
    }
    if (kind === 'text') {
      if (part.mediaType && !TEXT_MEDIA.test(part.mediaType)) {
        throw new A2AProtocolError('ContentTypeNotSupportedError', `${where} is text with media type ${part.mediaType}; text parts must be text/*`, { part: String(index) });
      }
      texts.push(part.text!);
    } else {
      if (part.mediaType && !JSON_MEDIA.test(part.mediaType)) {
        throw new A2AProtocolError('ContentTypeNotSupportedError', `${where} is data with media type ${part.mediaType}; data parts must be application/json`, { part: String(index) });
      }
      data.push({ value: part.data, index });
    }
  });
  if (data.length > 0) {
    if (data.length > 1 || texts.length > 0) {
      throw invalidParams('Send either text parts (compressed at the default fidelity) or exactly one data part naming a skill, not both');
    }
    return skillWork(data[0]!.value, `message.parts[${data[0]!.index}].data`);
  }
  const text = texts.join('\n\n');
  if (text.trim().length === 0) throw invalidParams('The message has no text to compress: its text parts are empty');
  const meta = message.metadata ?? {};
  const fidelity = meta.fidelity ?? DEFAULT_FIDELITY;
  if (typeof fidelity !== 'string' || !(FIDELITIES as readonly string[]).includes(fidelity)) {
    throw invalidParams(`Invalid fidelity '${String(fidelity)}' in message.metadata. Valid values: ${FIDELITIES.join(', ')}`);
  }
  const query = meta.query;
  if (query !== undefined && (typeof query !== 'string' || query.length > 10_000)) throw invalidParams('message.metadata.query must be a string of at most 10,000 characters');
  return { kind: 'text', text, fidelity: fidelity as Fidelity, query: (query as string | undefined) ?? null };
}

function skillWork(value: unknown, where: string): Work {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidParams(`${where} must be an object {"skill": "<skill id>", "arguments": {...}}`);
  }
  const { skill, arguments: args, ...rest } = value as Record<string, unknown>;
  if (typeof skill !== 'string' || skill.length === 0) throw invalidParams(`${where}.skill is missing: name one of the agent card's skills (an MCP tool name)`);
  const extra = Object.keys(rest);
  if (extra.length) throw invalidParams(`${where} has unknown field(s) ${extra.join(', ')}: only "skill" and "arguments"`);
  if (args !== undefined && (args === null || typeof args !== 'object' || Array.isArray(args))) throw invalidParams(`${where}.arguments must be an object`);
  const tool = getTool(skill);
  if (!tool) throw invalidParams(`Unknown skill '${skill.slice(0, 100)}': skill ids are the agent card's skills (MCP tool names)`, { skill: skill.slice(0, 100) });
  // Checked before a task exists, so a wrong argument is an error of the request; the tool pipeline validates again.
  try {
    validate(tool.input, args ?? {}, null, `arguments for ${skill}`);
  } catch (err) {
    throw malformed(`arguments for skill ${skill}`, err);
  }
  return { kind: 'skill', skill, arguments: (args as Record<string, unknown> | undefined) ?? {} };
}

export interface GetTaskParams {
  id: string;
  historyLength?: number;
}

function nonNegativeInt(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 1_000_000) throw invalidParams(`${name} must be a non-negative integer`);
  return n;
}

function taskId(value: unknown): string {
  if (typeof value !== 'string' || value.trim().length === 0) throw invalidParams('id is required: the task id');
  return value;
}

export function parseGetTask(params: Record<string, unknown>): GetTaskParams {
  return { id: taskId(params.id), historyLength: nonNegativeInt(params.historyLength, 'historyLength') };
}

export function parseTaskId(params: Record<string, unknown>): string {
  return taskId(params.id);
}

export interface ListTasksParams {
  contextId?: string;
  state?: TaskState;
  pageSize: number;
  pageToken?: string;
  historyLength?: number;
  statusAfter?: string;
  includeArtifacts: boolean;
}

export const DEFAULT_PAGE_SIZE = 50;

/** ListTasks parameters from a JSON-RPC params object or the HTTP+JSON query string (all strings). */
export function parseListTasks(params: Record<string, unknown>): ListTasksParams {
  const out: ListTasksParams = { pageSize: DEFAULT_PAGE_SIZE, includeArtifacts: false };
  if (params.contextId !== undefined && params.contextId !== '') {
    if (typeof params.contextId !== 'string' || params.contextId.length > 200) throw invalidParams('contextId must be a string');
    out.contextId = params.contextId;
  }
  if (params.status !== undefined && params.status !== '' && params.status !== 'TASK_STATE_UNSPECIFIED') {
    if (!(TASK_STATES as readonly unknown[]).includes(params.status)) throw invalidParams(`status must be one of ${TASK_STATES.join(', ')}`);
    out.state = params.status as TaskState;
  }
  const size = nonNegativeInt(params.pageSize, 'pageSize');
  if (size !== undefined) {
    if (size < 1 || size > 100) throw invalidParams('pageSize must be between 1 and 100');
    out.pageSize = size;
  }
  if (params.pageToken !== undefined && params.pageToken !== '') {
    if (typeof params.pageToken !== 'string' || params.pageToken.length > 500) throw invalidParams('pageToken is not one this server issued');
    out.pageToken = params.pageToken;
  }
  out.historyLength = nonNegativeInt(params.historyLength, 'historyLength');
  if (params.statusTimestampAfter !== undefined && params.statusTimestampAfter !== '') {
    if (typeof params.statusTimestampAfter !== 'string' || Number.isNaN(Date.parse(params.statusTimestampAfter))) {
      throw invalidParams('statusTimestampAfter must be an ISO 8601 timestamp');
    }
    out.statusAfter = iso(params.statusTimestampAfter);
  }
  const include = params.includeArtifacts;
  if (include !== undefined && include !== '') {
    if (include !== true && include !== false && include !== 'true' && include !== 'false') throw invalidParams('includeArtifacts must be true or false');
    out.includeArtifacts = include === true || include === 'true';
  }
  return out;
}

// The contract suite's vocabulary: what a file under test/contract/spec/ exports, and the field types
// it may name. A spec file describes one area of the spec (docs/contract.md):
//
//   import { t, type ContractFile } from '../contract.js';
//   export default { area: 'Profiles', routes: [...], tools: [...] } satisfies ContractFile;
//
// Every field named here must come from the spec's text (quote it in `spec`), never from what the
// implementation happens to return: a mismatch is then a defect of the implementation.
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { TestResponse, TestServer } from '../helpers/server.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type BaseType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object' | 'null' | 'uuid' | 'timestamp' | 'any';

/** One field's rule: the types it may have, and optionally the values or shape the spec names. */
export interface FieldRule {
  readonly types: readonly BaseType[];
  readonly enum?: readonly unknown[];
  readonly pattern?: RegExp;
  /** The spec says "when available" (or equivalent): absent is fine, present must match. */
  readonly optional?: boolean;
}

/**
 * Field paths: `a.b` (nested), `items[].name` (every element; the array must not be empty, so the
 * sample request must produce at least one), `results[1].error` (one element). Keys containing dots
 * or brackets are written in quotes: `buckets.free["<1h"]`.
 */
export type Fields = Readonly<Record<string, FieldRule>>;

const rule = (...types: BaseType[]): FieldRule => ({ types });

/** Field types. Compose: t.nullable(t.integer), t.optional(t.number), t.enum('a', 'b'). */
export const t = {
  string: rule('string'),
  number: rule('number'),
  integer: rule('integer'),
  boolean: rule('boolean'),
  array: rule('array'),
  object: rule('object'),
  null: rule('null'),
  /** A UUID in dashed form. */
  uuid: rule('uuid'),
  /** An ISO-8601 date-time string. */
  timestamp: rule('timestamp'),
  any: rule('any'),
  nullable: (r: FieldRule): FieldRule => ({ ...r, types: [...r.types, 'null'], ...(r.enum ? { enum: [...r.enum, null] } : {}) }),
  optional: (r: FieldRule): FieldRule => ({ ...r, optional: true }),
  /** One of the listed values (strings, numbers, booleans or null). */
  enum: (...values: readonly (string | number | boolean | null)[]): FieldRule => ({
    types: [...new Set(values.map((v) => (v === null ? 'null' : typeof v === 'number' ? 'number' : (typeof v as BaseType))))],
    enum: values,
  }),
  /** Exactly this value. */
  const: (value: string | number | boolean | null): FieldRule => t.enum(value),
  /** A string matching the pattern. */
  pattern: (re: RegExp): FieldRule => ({ types: ['string'], pattern: re }),
  oneOf: (...rules: FieldRule[]): FieldRule => ({ types: [...new Set(rules.flatMap((r) => r.types))] }),
};

/**
 * The `error` of a tool's error result. A tool with an outputSchema sends its errors as JSON text only
 * (src/mcp/call.ts onTheWire: the SDK client would check structuredContent against the schema), others in
 * structuredContent too.
 */
export function toolErrorOf(callResult: object): string | undefined {
  // The SDK's callTool result is a union (a task result has neither field), hence `object`.
  const result = callResult as { structuredContent?: unknown; content?: unknown };
  const text = (result.content as { type: string; text?: string }[] | undefined)?.find((p) => p.type === 'text')?.text;
  const data = (result.structuredContent ?? (text ? JSON.parse(text) : undefined)) as { error?: string } | undefined;
  return data?.error;
}

/** What one REST call of the suite sends. `key: null` sends no Authorization header; default: the owner's key. */
export interface RouteRequest {
  params?: Record<string, string>;
  query?: Record<string, string | number | boolean>;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  key?: string | null;
}

export interface RouteContract {
  method: Method;
  /** As registered (src/routes/), with `:param` segments. */
  path: string;
  /** The spec's line for this route, quoted (what the fields below are taken from). */
  spec: string;
  /** Set when the spec does not describe this route: the reason it exists. Its response is then only checked for status and shape. */
  outsideSpec?: string;
  /** Something the suite cannot check against the spec, and why (shown in the test name's notes and docs/contract.md). */
  note?: string;
  /** The sample valid request; a function may create what it needs first (fixtures). */
  request?: RouteRequest | ((c: ContractContext) => RouteRequest | Promise<RouteRequest>);
  status: number;
  /** Response body kind: a JSON object (default), a JSON array, text (`text` patterns), or none (204). */
  body?: 'object' | 'array' | 'text' | 'none';
  /** Content-Type the spec states (prefix match, e.g. 'text/plain'); JSON bodies are always checked for application/json. */
  contentType?: string;
  /** Patterns the text body must contain (body 'text'). */
  text?: readonly RegExp[];
  /** Response headers the spec names: exact value or pattern. */
  headers?: Readonly<Record<string, string | RegExp>>;
  fields?: Fields;
  /** A spec-stated property of the answer that is not a field type (e.g. "exactly one element per day"). */
  check?: (res: TestResponse, c: ContractContext, req: RouteRequest) => void | Promise<void>;
}

export interface ToolContract {
  tool: string;
  /** The spec catalogue's line for this tool, quoted. */
  spec: string;
  outsideSpec?: string;
  note?: string;
  args?: Record<string, unknown> | ((c: ContractContext) => Record<string, unknown> | Promise<Record<string, unknown>>);
  /** 'project' calls with the owner's key bound to the shared project (knowledge, plan, task and workflow tools need one). */
  key?: 'owner' | 'project';
  /** The tool-level error the spec names for this sample (e.g. not_implemented); unset means the call must succeed. */
  error?: string;
  fields?: Fields;
  check?: (data: any, c: ContractContext) => void | Promise<void>;
}

export interface ContractFile {
  /** The spec's area (section or catalogue row) this file writes down. */
  area: string;
  /** Fixtures this area needs, created once before any call (store what you create in c.fx). */
  setup?: (c: ContractContext) => Promise<void>;
  routes?: readonly RouteContract[];
  tools?: readonly ToolContract[];
}

/** Shared state of one suite run: one server, the owner (Enterprise, admin), shared fixtures. */
export interface ContractContext {
  server: TestServer;
  ownerKey: string;
  ownerId: string;
  /** The owner's key bound to fx.project_id. */
  projectKey: string;
  /** Shared fixtures by name: project_id, item_id, version_id, file_id, … (test/contract/fixtures.ts). */
  fx: Record<string, any>;
  /** X-Internal-Token the server was started with. */
  internalToken: string;
  /** Secret of the identity provider's webhook (Svix-style signing). */
  identityWebhookSecret: string;
  /** A JWT from the suite's identity provider (an identity-provider session of user `sub`). */
  jwt(sub: string, claims?: Record<string, unknown>): Promise<string>;
  /** REST call that must answer 2xx; returns the JSON body. */
  ok(method: Method, path: string, body?: unknown, key?: string | null): Promise<any>;
  /** MCP tool call that must succeed; returns the structured result. */
  tool(name: string, args: Record<string, unknown>, key?: 'owner' | 'project'): Promise<any>;
  mcp(key: 'owner' | 'project'): Client;
  /** A fresh user with one API key. */
  user(plan: 'free' | 'pro' | 'team' | 'enterprise', name: string): Promise<{ userId: string; key: string; keyId: string }>;
}

import type { z } from 'zod';
import { HttpError } from './errors.js';
import type { Principal } from '../auth/principal.js';
import type { Call } from '../domain/call.js';
import type { PlanRule } from '../auth/plans.js';
import type { Services } from '../services.js';
import { responseCheckEnabled } from '../config.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestContext<B = unknown, Q = unknown> {
  method: Method;
  path: string;
  params: Record<string, string>;
  query: Q;
  body: B;
  /** The body bytes as received (webhook signatures are computed over them). */
  rawBody: Buffer | null;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  requestId: string;
  /** Present on every route whose auth is not 'public'. */
  principal: Principal;
  /** The use-case call of an authenticated request (the domain's one door to the compute). */
  call: Call;
  /** Aborted when the client goes away, so queued pool work can be dropped. */
  signal: AbortSignal;
  services: Services;
}

export interface Reply {
  status?: number;
  body?: unknown;
  /** Pre-serialised body (sent as is, e.g. a cached response or Prometheus text). */
  raw?: string | Uint8Array;
  contentType?: string;
  headers?: Record<string, string>;
  /**
   * A streamed body (Server-Sent Events): each chunk is written as it comes, with back-pressure; the
   * iterator is closed when the client goes away. Headers (and `status`) go out before the first chunk.
   */
  stream?: AsyncIterable<string>;
}

export interface RouteDoc {
  summary?: string;
  description?: string;
  /** Success status when it is not 200. */
  status?: number;
  /** Success content type when it is not JSON. */
  contentType?: string;
  response?: string;
  requestExample?: unknown;
  responseExample?: unknown;
}

export interface RouteSpec<B = unknown, Q = unknown> {
  method: Method;
  path: string;
  auth: 'public' | 'key';
  /** Lowest plan allowed, or the exact plans; checked in one place (auth/plans.ts). */
  plan?: PlanRule;
  body?: z.ZodType<B, unknown>;
  /** A compression route: every authenticated call writes one usage event with its status. */
  usage?: true;
  /** Takes a whole repository (many files): MAX_REPOSITORY_BODY_BYTES instead of MAX_BODY_BYTES. */
  repositoryBody?: true;
  query?: z.ZodType<Q, unknown>;
  /** The success body's schema: /openapi.json's success response and the contract suite read it. */
  response?: z.ZodTypeAny;
  /** What /openapi.json says beyond the schemas (src/routes/openapi.ts); all optional. */
  doc?: RouteDoc;
  handler(ctx: RequestContext<B, Q>): Promise<Reply> | Reply;
}

/** Identity function that lets TypeScript infer B and Q from the schemas. */
export function defineRoute<B = undefined, Q = Record<string, string>>(spec: RouteSpec<B, Q>): RouteSpec<B, Q> {
  return spec;
}

/** application/json and its +json kin (application/a2a+json): bodies with a JSON schema. */
export const JSON_TYPE = /^application\/([\w.-]+\+)?json\b/;

/**
 * Under test (RESPONSE_CHECK=1) every JSON success body is checked against the route's `response`
 * schema, as the client will read it (after JSON serialisation: dates become strings). A body off its
 * schema is a defect of the route (what /openapi.json promises is wrong), so it is logged and answered
 * as a 500 naming the route and the issues, like an MCP tool's output check (src/mcp/call.ts).
 * Production does not wrap anything: the check costs nothing there.
 */
export function withResponseCheck(routes: RouteSpec<any, any>[], enabled = responseCheckEnabled()): RouteSpec<any, any>[] {
  if (!enabled) return routes;
  return routes.map((route) => {
    const schema = route.response;
    if (!schema) return route;
    return {
      ...route,
      async handler(ctx: RequestContext<any, any>) {
        const reply = await route.handler(ctx);
        const issues = responseIssues(schema, reply);
        if (issues) {
          const detail = `internal_error: ${route.method} ${route.path} answered a body off its response schema: ${issues}`;
          ctx.services.log.error('response off its schema', { route: `${route.method} ${route.path}`, requestId: ctx.requestId, issues });
          throw new HttpError(500, detail);
        }
        return reply;
      },
    };
  });
}

/** The issues of a JSON success reply against its schema, or null when it conforms (or is not JSON). */
export function responseIssues(schema: z.ZodTypeAny, reply: Reply): string | null {
  const status = reply.status ?? 200;
  if (status >= 300 || status === 204 || reply.stream) return null;
  if (reply.contentType && !JSON_TYPE.test(reply.contentType)) return null;
  const text = reply.raw !== undefined ? (typeof reply.raw === 'string' ? reply.raw : Buffer.from(reply.raw).toString('utf8')) : reply.body === undefined ? undefined : JSON.stringify(reply.body);
  if (text === undefined) return null;
  const checked = schema.safeParse(JSON.parse(text));
  return checked.success ? null : checked.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
}

import type { z } from 'zod';
import type { Principal } from '../auth/principal.js';
import type { Call } from '../domain/call.js';
import type { PlanRule } from '../auth/plans.js';
import type { Services } from '../services.js';

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

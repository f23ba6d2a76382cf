import { PoolBusyError, TaskTimeoutError } from '../pool/pool.js';
import { DatabaseUnavailableError } from '../store/db.js';

/**
 * The one error vocabulary of the domain. Use cases throw these; each surface translates them once
 * (HTTP: src/http/errors.ts httpReplyOf, MCP: src/mcp/call.ts) and nowhere else.
 */
export type ErrorKind =
  | 'invalid' //          a value is wrong (400)
  | 'validation' //       input fails its schema, with locations (422)
  | 'not_found' //        unknown, or not the caller's (404)
  | 'forbidden' //        the caller may not do this (403)
  | 'plan_required' //    the caller's plan is too low (403)
  | 'conflict' //         the resource moved on (409)
  | 'gone' //             expired (410)
  | 'too_large' //        over a size limit (413)
  | 'quota_exceeded' //   monthly quota used up (429, retry after the period)
  | 'rate_limited' //     too many requests (429)
  | 'unavailable' //      a dependency or the pool is saturated or down (503)
  | 'bad_gateway' //      an outside server failed: unreachable, TLS, timeout, redirect (502)
  | 'timeout' //          the work ran past its deadline (504)
  | 'not_implemented'; // the spec's not_implemented (501)

export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export interface DomainErrorOptions {
  /** The MCP tool-level error code when it is not the kind's default (stale_base, cannot_share_private, ...). */
  code?: string;
  /** Seconds the caller should wait before retrying (quota, rate limit, unavailable). */
  retryAfter?: number;
  /** Field-level problems of a 'validation' error. */
  issues?: ValidationIssue[];
  /** Extra fields both surfaces add to the error body (current_version_id, required_plan, ...). */
  extra?: Record<string, unknown>;
}

const DEFAULT_CODE: Record<ErrorKind, string> = {
  invalid: 'invalid_request',
  validation: 'validation_error',
  not_found: 'not_found',
  forbidden: 'forbidden',
  plan_required: 'plan_required',
  conflict: 'conflict',
  gone: 'gone',
  too_large: 'too_large',
  quota_exceeded: 'quota_exceeded',
  rate_limited: 'rate_limited',
  unavailable: 'unavailable',
  bad_gateway: 'bad_gateway',
  timeout: 'timeout',
  not_implemented: 'not_implemented',
};

export class DomainError extends Error {
  override name = 'DomainError';
  readonly code: string;
  readonly retryAfter: number | undefined;
  readonly issues: ValidationIssue[] | undefined;
  readonly extra: Record<string, unknown>;

  constructor(
    readonly kind: ErrorKind,
    readonly detail: string,
    options: DomainErrorOptions = {},
  ) {
    super(detail);
    this.code = options.code ?? DEFAULT_CODE[kind];
    this.retryAfter = options.retryAfter;
    this.issues = options.issues;
    this.extra = options.extra ?? {};
  }
}

export const invalid = (detail: string, options?: DomainErrorOptions) => new DomainError('invalid', detail, options);
export const invalidInput = (detail: string, issues: ValidationIssue[], options?: DomainErrorOptions) =>
  new DomainError('validation', detail, { ...options, issues });
export const notFound = (detail = 'Not found', extra?: Record<string, unknown>) => new DomainError('not_found', detail, { extra });
export const forbidden = (detail: string) => new DomainError('forbidden', detail);
export const conflict = (detail: string, options?: DomainErrorOptions) => new DomainError('conflict', detail, options);
export const gone = (detail: string) => new DomainError('gone', detail);
export const tooLarge = (detail: string) => new DomainError('too_large', detail);
export const unavailable = (detail: string, retryAfterSeconds = 1) => new DomainError('unavailable', detail, { retryAfter: retryAfterSeconds });
export const timedOut = (detail: string) => new DomainError('timeout', detail);
export const notImplemented = (detail: string) => new DomainError('not_implemented', detail);

/**
 * Infrastructure failures in domain terms: a full pool or a database that is down is 'unavailable',
 * a task past its deadline a 'timeout'. Anything else is not a domain error (a bug: 500 / internal_error).
 */
export function asDomainError(err: unknown): DomainError | null {
  if (err instanceof DomainError) return err;
  if (err instanceof PoolBusyError) return unavailable('Compute pool is saturated; retry shortly', 1);
  if (err instanceof TaskTimeoutError) return timedOut(err.message);
  if (err instanceof DatabaseUnavailableError) return unavailable('Database unavailable', 2);
  return null;
}

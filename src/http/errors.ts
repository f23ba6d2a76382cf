import { asDomainError, type ErrorKind } from '../domain/errors.js';

/**
 * A transport-level answer (401 with its challenge, 413, 405, a body that is not JSON or fails its
 * schema). Domain failures are DomainErrors, translated to HTTP by httpErrorOf below.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : `HTTP ${status}`);
    this.name = 'HttpError';
  }
}

export const unauthorized = (detail = 'Invalid or missing API key') =>
  new HttpError(401, detail, { 'www-authenticate': 'Bearer' });

/** The one translation of the domain's error vocabulary to HTTP statuses. */
const STATUS_OF: Record<ErrorKind, number> = {
  invalid: 400,
  validation: 422,
  not_found: 404,
  forbidden: 403,
  plan_required: 403,
  conflict: 409,
  gone: 410,
  too_large: 413,
  quota_exceeded: 429,
  rate_limited: 429,
  unavailable: 503,
  bad_gateway: 502,
  timeout: 504,
  not_implemented: 501,
};

const SOURCES = new Set(['body', 'query', 'path', 'header']);

/** Extra fields REST clients also get as a header (a stale_base 409 names the current version). */
const EXTRA_HEADERS: Record<string, string> = { current_version_id: 'x-current-version-id' };

export interface ErrorReply {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/**
 * Any error as an HTTP answer, or null for an unexpected one (a bug: the caller logs it and answers 500).
 * Validation details are the HTTPValidationError list, each location starting with where it was;
 * a domain error's extra fields (current_version_id, required_plan, ...) sit beside `detail`.
 */
export function httpReplyOf(err: unknown): ErrorReply | null {
  if (err instanceof HttpError) return { status: err.status, body: { detail: err.detail }, headers: err.headers };
  const e = asDomainError(err);
  if (!e) return null;
  const headers: Record<string, string> = e.retryAfter !== undefined ? { 'retry-after': String(e.retryAfter) } : {};
  for (const [field, header] of Object.entries(EXTRA_HEADERS)) if (e.extra[field] != null) headers[header] = String(e.extra[field]);
  const detail = e.issues ? e.issues.map((i) => ({ ...i, loc: SOURCES.has(String(i.loc[0])) ? i.loc : ['body', ...i.loc] })) : e.detail;
  return { status: STATUS_OF[e.kind], body: { detail, ...e.extra }, headers };
}

export const STATUS_TEXT: Record<number, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content',
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found',
  405: 'Method Not Allowed', 409: 'Conflict', 410: 'Gone', 413: 'Payload Too Large',
  415: 'Unsupported Media Type', 422: 'Unprocessable Entity', 429: 'Too Many Requests',
  500: 'Internal Server Error', 501: 'Not Implemented', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};

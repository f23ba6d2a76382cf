import type { z } from 'zod';
import { invalid, invalidInput, type ValidationIssue } from '../domain/errors.js';
import { isMissing, issuePath, REPORT_INPUT } from '../lib/zodIssues.js';

/**
 * Parses `value` with a schema (a route's body or query, or an MCP tool's arguments when `where` is
 * null). Issues flagged with params.status 400 (e.g. invalid fidelity, which the spec makes a 400 with
 * a message) win; everything else is the spec's 422 HTTPValidationError.
 */
export function validate<S extends z.ZodTypeAny>(schema: S, value: unknown, where: 'body' | 'query' | null, what = 'input'): z.infer<S> {
  const result = schema.safeParse(value, REPORT_INPUT);
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    if (issue.code === 'custom' && issue.params?.status === 400) throw invalid(issue.message);
  }
  const issues: ValidationIssue[] = result.error.issues.map((issue) => ({
    loc: where ? [where, ...issuePath(issue)] : issuePath(issue),
    msg: issue.message,
    type: issueType(issue),
  }));
  throw invalidInput(`Invalid ${what}`, issues);
}

function issueType(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') return isMissing(issue) ? 'missing' : `type_error.${issue.expected}`;
  if (issue.code === 'too_small') return 'value_error.too_small';
  if (issue.code === 'too_big') return 'value_error.too_big';
  if (issue.code === 'unrecognized_keys') return 'extra_forbidden';
  return `value_error.${issue.code}`;
}

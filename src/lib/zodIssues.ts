import type { z } from 'zod';

/** zod 4 issues carry their input only when parsed with this; it tells a missing field from a wrong type. */
export const REPORT_INPUT = { reportInput: true } as const;

/** zod 4 dropped `received`: a field is missing when its invalid_type issue saw undefined (parse with REPORT_INPUT). */
export function isMissing(issue: z.core.$ZodIssue): boolean {
  return issue.code === 'invalid_type' && issue.input === undefined;
}

/** zod 4 paths may hold symbols; the error vocabulary's `loc` is strings and indexes. */
export function issuePath(issue: z.core.$ZodIssue): (string | number)[] {
  return issue.path.map((k) => (typeof k === 'symbol' ? String(k) : k));
}

/** Anything a timestamp arrives as: a Date (postgres.js, PGlite), an ISO or SQL string, epoch milliseconds. */
export type Instant = Date | string | number;

/** An instant as ISO-8601 in UTC, the one way a timestamp leaves this service. */
export function iso(v: Instant): string {
  return (v instanceof Date ? v : new Date(v)).toISOString();
}

/** iso(), with an absent instant kept as null (a nullable column). */
export function isoOrNull(v: Instant | null | undefined): string | null {
  return v === null || v === undefined ? null : iso(v);
}

/** The current instant, ISO-8601 in UTC. */
export function nowIso(): string {
  return new Date().toISOString();
}

/** A Unix time in seconds (what payment providers send) as ISO-8601; anything else is null. */
export function isoFromSeconds(seconds: number | null | undefined): string | null {
  return typeof seconds === 'number' ? iso(seconds * 1000) : null;
}

import { timingSafeEqual, createHash } from 'node:crypto';
import type { Queryable } from '../../store/db.js';
import { iso } from '../../lib/time.js';

/** gc_submit_benchmark: at most this many runs per key (or per user for keyless callers) per rolling hour. */
export const BENCHMARKS_PER_HOUR = 20;

export interface BenchmarkInput {
  userId: string;
  keyId: string | null;
  model: string;
  quantization: string;
  hardware: string;
  tokensPerSecond: number;
  notes: string | null;
}

export interface BenchmarkRow {
  id: string;
  model: string;
  quantization: string;
  hardware: string;
  tokens_per_second: number;
  notes: string | null;
  created_at: Date;
}

/** The public view of a stored run: what the benchmark page and the submitting tool show. */
export function publicBenchmark(row: BenchmarkRow) {
  return {
    model: row.model,
    quantization: row.quantization,
    hardware: row.hardware,
    tokens_per_second: Number(row.tokens_per_second),
    notes: row.notes,
    submitted_at: iso(row.created_at),
  };
}

export type SubmitOutcome = { kind: 'stored'; row: BenchmarkRow } | { kind: 'rate_limited'; retryAfterSeconds: number };

/**
 * Stores a run unless the caller already submitted BENCHMARKS_PER_HOUR in the last hour. The count
 * and the insert run in one transaction under an advisory lock on the key, so concurrent submissions
 * cannot overshoot the limit.
 */
export async function submitBenchmark(db: { transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> }, b: BenchmarkInput): Promise<SubmitOutcome> {
  const scope = b.keyId ? `key:${b.keyId}` : `user:${b.userId}`;
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock(hashtext($1))', [`benchmarks:${scope}`]);
    const [window] = await tx.query<{ n: number; oldest: Date | null }>(
      `select count(*)::int as n, min(created_at) as oldest from benchmarks
        where ${b.keyId ? 'key_id = $1' : 'user_id = $1::uuid and key_id is null'} and created_at > now() - interval '1 hour'`,
      [b.keyId ?? b.userId],
    );
    if (window!.n >= BENCHMARKS_PER_HOUR) {
      const oldest = window!.oldest ? new Date(window!.oldest).getTime() : Date.now();
      return { kind: 'rate_limited', retryAfterSeconds: Math.max(1, Math.ceil((oldest + 3_600_000 - Date.now()) / 1000)) };
    }
    const [row] = await tx.query<BenchmarkRow>(
      `insert into benchmarks (user_id, key_id, model, quantization, hardware, tokens_per_second, notes)
       values ($1, $2, $3, $4, $5, $6, $7) returning id, model, quantization, hardware, tokens_per_second, notes, created_at`,
      [b.userId, b.keyId, b.model, b.quantization, b.hardware, b.tokensPerSecond, b.notes],
    );
    return { kind: 'stored', row: row! };
  });
}

/** Benchmarks are public once submitted: anyone with the id may read one (no owner data exposed). */
export async function getBenchmark(db: Queryable, id: string): Promise<BenchmarkRow | null> {
  const [row] = await db.query<BenchmarkRow>(
    'select id, model, quantization, hardware, tokens_per_second, notes, created_at from benchmarks where id = $1',
    [id],
  );
  return row ?? null;
}

export interface AggregateRow {
  model: string;
  quantization: string;
  hardware: string;
  runs: number;
  avg_tokens_per_second: number;
  median_tokens_per_second: number;
  max_tokens_per_second: number;
  min_tokens_per_second: number;
  last_submitted_at: string;
}

export async function aggregateBenchmarks(db: Queryable): Promise<AggregateRow[]> {
  const rows = await db.query<{ model: string; quantization: string; hardware: string; runs: number; avg: number; median: number; max: number; min: number; last: Date }>(
    `select model, quantization, hardware, count(*)::int as runs, avg(tokens_per_second)::float8 as avg,
            percentile_cont(0.5) within group (order by tokens_per_second)::float8 as median,
            max(tokens_per_second)::float8 as max, min(tokens_per_second)::float8 as min, max(created_at) as last
       from benchmarks group by model, quantization, hardware
      order by count(*) desc, model, quantization, hardware`,
  );
  const round = (x: number) => Math.round(Number(x) * 1000) / 1000;
  return rows.map((r) => ({
    model: r.model,
    quantization: r.quantization,
    hardware: r.hardware,
    runs: r.runs,
    avg_tokens_per_second: round(r.avg),
    median_tokens_per_second: round(r.median),
    max_tokens_per_second: round(r.max),
    min_tokens_per_second: round(r.min),
    last_submitted_at: iso(r.last),
  }));
}

/** Constant-time comparison of the X-Internal-Token header with the configured INTERNAL_TOKEN (config.internalToken); unset token = always false. */
export function internalTokenMatches(given: string | undefined, expected: string | null | undefined): boolean {
  if (!expected || !given) return false;
  // Hash both sides so lengths are equal and the comparison time does not depend on the input.
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

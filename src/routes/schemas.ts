import { z } from 'zod';
import { FIDELITIES, isFidelity, type Fidelity } from '../../workers/shared/fidelity.js';
import type { TokenizerName } from '../../workers/shared/tokenizerName.js';

/**
 * A string fidelity. A wrong type stays a 422; an unknown value is the spec's 400 naming the
 * bad value and the valid ones (validate.ts honours params.status).
 */
export const fidelity = z.string().superRefine((value, ctx) => {
  if (!isFidelity(value)) {
    ctx.addIssue({
      code: z.ZodIssueCode.custom,
      message: `Invalid fidelity '${value}'. Valid values: ${FIDELITIES.join(', ')}`,
      params: { status: 400 },
    });
  }
})
  // The closed set in JSON Schema too (/openapi.json, tools/list): a generated client gets the union, while the check above keeps the 400.
  .meta({ description: `One of ${FIDELITIES.join(', ')} (any other value is a 400 naming the valid ones)`, enum: [...FIDELITIES] }) as unknown as z.ZodType<Fidelity, unknown>;

/**
 * A closed set named in JSON Schema (/openapi.json) while the value check stays where it is, with the
 * spec's status for a bad value (a 400 naming the valid ones, a per-document error, an empty filter).
 */
export function namedValues<S extends z.ZodType>(schema: S, values: readonly string[], note: string): S {
  return schema.meta({ enum: [...values], description: `One of ${values.join(', ')}; ${note}` });
}

export const modelName = z.string().min(1).max(100);

/** Largest value of an `integer` column: counts stored in one (quotas) are bounded by it. */
export const INT_COLUMN_MAX = 2_147_483_647;

/** A page number whose OFFSET (page × page size ≤ 100) still fits an integer column. */
export const pageNumber = z.coerce.number().int().min(1).max(Math.floor(INT_COLUMN_MAX / 100));

// Response building blocks (each route's `response`: /openapi.json and the RESPONSE_CHECK of tests).
export const int = z.number().int();
/** A timestamp as the client reads it: a Date serialises to its ISO string. */
export const isoTime = z.string();
/** workers/shared/stats.ts TokenStats. */
export const tokenStats = { original_tokens: int, compressed_tokens: int, tokens_saved: int, savings_percent: z.number(), ratio: z.number() };
export const tokenizer = z.enum(['o200k_base', 'cl100k_base'] as const satisfies readonly TokenizerName[]);
/** The compute pool's counters (pool.stats()), shown by the health routes. */
export const poolStats = z.looseObject({ threads: int, running: int, queue_size: int, admitted: int, max_queue: int, completed: z.number(), utilization: z.number() });

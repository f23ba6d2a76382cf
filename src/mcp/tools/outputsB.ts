import { z } from 'zod';
import { FIDELITIES } from '../../../workers/shared/fidelity.js';

/** Output-schema pieces several tools share (their outputSchema; see ToolDefinition.output). */

/** A timestamp: a Date in a handler's result (database rows), an ISO string on the wire and in the listed schema. */
export const when = z.preprocess((v) => (v instanceof Date ? v.toISOString() : v), z.string());

export const int = z.number().int();
export const fidelity = z.enum(FIDELITIES);

/** The token figures of a compression that reports them. */
export const tokenFigures = {
  original_tokens: int,
  compressed_tokens: int,
  savings_percent: z.number(),
};

/** An open-ended JSON object (settings, metadata, a node's free-form data). */
export const anyObject = z.record(z.string(), z.unknown());


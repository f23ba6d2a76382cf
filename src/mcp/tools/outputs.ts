// Output-schema pieces several tools share (listed in tools/list as outputSchema, so they stay lean).
import { z } from 'zod';
import { FIDELITIES } from '../../../workers/shared/fidelity.js';

export const int = z.number().int();
export const fidelity = z.enum(FIDELITIES);
/** A timestamp: a Date in a handler's result (database rows), an ISO string on the wire and in the listed schema. */
export const when = z.preprocess((v) => (v instanceof Date ? v.toISOString() : v), z.string());
/** An open-ended JSON object (settings, metadata, a node's free-form data, a blob). */
export const anyObject = z.record(z.string(), z.unknown());
export const blob = anyObject;
/** Rows of an open-ended table (per model, per day, per file…): objects whose fields the tool's description names. */
export const rows = z.array(anyObject);
/** The token figures of a compression that reports them. */
export const tokenFigures = { original_tokens: int, compressed_tokens: int, savings_percent: z.number() };
/** Token accounting of a compressing call. */
export const tokenCounts = { ...tokenFigures, tokens_saved: int };
/** compress_mcp_registry / gc_compress_manifest: what shortening the tool definitions saved. */
export const manifestStats = { tool_count: int, descriptions_shortened: int, ...tokenCounts };

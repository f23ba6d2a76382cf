// Output schema pieces several tool files share (tools/list lists them as outputSchema, so they stay lean).
import { z } from 'zod';

export const int = z.number().int();
/** Rows of an open-ended table (per model, per day, per file…): objects whose fields the tool's description names. */
export const rows = z.array(z.record(z.string(), z.unknown()));
/** An open-ended map or blob. */
export const blob = z.record(z.string(), z.unknown());
/** Token accounting of a compressing call. */
export const tokenCounts = { original_tokens: int, compressed_tokens: int, tokens_saved: int, savings_percent: z.number() };
/** compress_mcp_registry / gc_compress_manifest: what shortening the tool definitions saved. */
export const manifestStats = { tool_count: int, descriptions_shortened: int, ...tokenCounts };

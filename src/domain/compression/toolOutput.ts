import { savingsPercent } from '../../../workers/shared/stats.js';
import type { ToolOutputOptions } from '../../../workers/tools/toolOutput.js';
import type { CliFilterOptions } from '../../../workers/tools/cliOutput.js';
import type { Call } from '../call.js';
import { invalidInput } from '../errors.js';
import { compressToolDefs, type ToolDef } from './manifest.js';
import { countTokensMany } from './tokens.js';

/** Tool output (logs, builds, traces) with repeated lines collapsed and identifiers kept (compress_tool_output). */
export async function compressToolOutput(call: Call, output: string, options: ToolOutputOptions) {
  await call.requireQuota();
  const r = await call.compute('compressToolOutput', { text: output, options }, { field: 'output' });
  const [original, compressed] = r.unchanged
    ? await countTokensMany(call, [output]).then((c) => [c[0]!, c[0]!])
    : await countTokensMany(call, [output, r.text]);
  call.report({ inputTokens: original!, outputTokens: compressed!, inputText: output });
  return { ...r, original_tokens: original!, compressed_tokens: compressed! };
}

/** A test runner's, compiler's or package manager's output down to its failures, errors and summary (filter_cli_output). */
export async function filterCliOutput(call: Call, output: string, options: CliFilterOptions) {
  await call.requireQuota();
  const r = await call.compute('filterCliOutput', { text: output, options }, { field: 'output' });
  call.report({ inputTokens: r.original_tokens, outputTokens: r.filtered_tokens, inputText: output });
  return r;
}

/** Lossless dictionary encoding (compress_meta_tokens). */
export async function encodeMetaTokens(call: Call, text: string, maxEntries: number) {
  await call.requireQuota();
  const r = await call.compute('encodeMetaTokens', { text, maxEntries }, { field: 'text' });
  call.report({ inputTokens: r.original_tokens, outputTokens: r.encoded_tokens + r.dictionary_tokens, inputText: text });
  return r;
}

/** Restores an encoded text exactly; a malformed encoding is a validation error on `encoded`. */
export async function decodeMetaTokens(call: Call, encoded: string, dictionary: Record<string, string>): Promise<string> {
  const decoded = await call.compute('decodeMetaTokens', { encoded, dictionary }, { field: 'encoded' });
  if (!decoded.ok) throw invalidInput(decoded.error, [{ loc: ['encoded'], msg: decoded.error, type: 'value_error' }]);
  return decoded.text;
}

/**
 * Shorter MCP tool definitions, input schemas byte for byte (compress_mcp_registry, gc_compress_manifest).
 * `wrap` puts the shortened tools back into the caller's envelope, so both are counted as sent.
 */
export async function compressManifest<T>(call: Call, tools: ToolDef[], maxDescriptionChars: number, original: unknown, wrap: (tools: ToolDef[]) => T) {
  await call.requireQuota();
  const { tools: shortened, descriptions_shortened } = compressToolDefs(tools, maxDescriptionChars);
  const compressed = wrap(shortened);
  const [before, after] = await countTokensMany(call, [JSON.stringify(original), JSON.stringify(compressed)]);
  call.report({ inputTokens: before!, outputTokens: after!, inputText: tools[0]?.name ?? null });
  return {
    compressed,
    tool_count: shortened.length,
    descriptions_shortened,
    original_tokens: before!,
    compressed_tokens: after!,
    tokens_saved: before! - after!,
    savings_percent: savingsPercent(before!, after!),
  };
}

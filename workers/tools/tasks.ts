import { countTokens, tokenizerFor } from '../shared/tokens.js';
import type { CompressTextInput } from '../text/index.js';
import { textTasks } from '../text/tasks.js';
import { decodeMetaTokens, encodeMetaTokens, identityEncoding, MetaDecodeError } from './metaTokens.js';
import { compressToolOutput, type ToolOutputOptions } from './toolOutput.js';
import { filterCliOutput, type CliFilterOptions } from './cliOutput.js';
import { classifyContent } from './classify.js';

/** Pool tasks behind the MCP compression tools: all CPU work stays off the event loop. */
export const toolTasks = {
  compressToolOutput: (i: { text: string; options?: ToolOutputOptions }) => compressToolOutput(i.text, i.options),
  classifyContent: (i: { text: string; filename?: string | null; command?: string | null }) => classifyContent(i.text, i),
  /** Filters and counts in one task: both counts are of the text as sent and as answered. */
  filterCliOutput: (i: { text: string; options?: CliFilterOptions }) => {
    const r = filterCliOutput(i.text, i.options);
    const original = countTokens(i.text);
    const filtered = Math.min(original, countTokens(r.filtered_output));
    return { ...r, ...(filtered === original ? { filtered_output: i.text, unchanged: true } : { unchanged: false }), original_tokens: original, filtered_tokens: filtered };
  },
  /** Encodes, and falls back to the escaped identity when the dictionary does not pay for itself. */
  encodeMetaTokens: (i: { text: string; maxEntries?: number; model?: string | null }) => {
    const tokenizer = tokenizerFor(i.model);
    const original = countTokens(i.text, tokenizer);
    let enc = encodeMetaTokens(i.text, { maxEntries: i.maxEntries });
    let encoded = countTokens(enc.encoded, tokenizer);
    let dictionary = countTokens(JSON.stringify(enc.dictionary), tokenizer);
    if (encoded + dictionary >= original) {
      enc = identityEncoding(i.text);
      encoded = countTokens(enc.encoded, tokenizer);
      dictionary = 0;
    }
    return { encoding: enc, original_tokens: original, encoded_tokens: encoded, dictionary_tokens: dictionary };
  },
  /** Decoding errors come back as data so the tool can name the bad input. */
  decodeMetaTokens: (i: { encoded: string; dictionary: Record<string, string> }) => {
    try {
      return { ok: true as const, text: decodeMetaTokens(i.encoded, i.dictionary) };
    } catch (err) {
      if (err instanceof MetaDecodeError) return { ok: false as const, error: err.message };
      throw err;
    }
  },
  countTokensMany: ({ texts, model }: { texts: string[]; model?: string | null }) => {
    const tokenizer = tokenizerFor(model);
    return { tokens: texts.map((t) => countTokens(t, tokenizer)), tokenizer };
  },
  compressMany: ({ items }: { items: CompressTextInput[] }) => Promise.all(items.map((item) => textTasks.compress(item))),
};

import { createHash } from 'node:crypto';
import { tokenizerFor } from '../shared/tokens.js';
import { auditPrompt } from './audit.js';
import { diffPrompts } from './diff.js';
import { charsOfTokens } from './tokens.js';

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

// Merged by the worker entry into the Piscina task registry; inputs/outputs are plain data.
export const cacheTasks = {
  cacheDiff: ({ a, b, model, context }: { a: string; b: string; model: string | null; context: number }) => {
    const tokenizer = tokenizerFor(model);
    return { ...diffPrompts({ a, b, tokenizer, context }), tokenizer };
  },
  cacheAudit: ({ text, model, max }: { text: string; model: string | null; max: number }) => {
    const tokenizer = tokenizerFor(model);
    return { ...auditPrompt({ text, tokenizer, max }), tokenizer };
  },
  /** Hashes of a prompt's first `prefixTokens` tokens and of the rest: the telemetry key, never the text. */
  cacheHash: ({ text, model, prefixTokens }: { text: string; model: string | null; prefixTokens: number }) => {
    const tokenizer = tokenizerFor(model);
    const cut = charsOfTokens(text, prefixTokens, tokenizer);
    return {
      prefix_hash: sha256(text.slice(0, cut.chars)),
      continuation_hash: sha256(text.slice(cut.chars)),
      prefix_tokens: cut.tokens,
      total_tokens: cut.total,
      tokenizer,
    };
  },
};

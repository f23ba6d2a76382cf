import * as o200k from 'gpt-tokenizer/encoding/o200k_base';
import * as cl100k from 'gpt-tokenizer/encoding/cl100k_base';

export type TokenizerName = 'o200k_base' | 'cl100k_base';

const ENCODERS: Record<TokenizerName, { countTokens(text: string, options?: { disallowedSpecial?: Set<string> }): number }> = {
  o200k_base: o200k,
  cl100k_base: cl100k,
};

// Models that predate o200k_base; anything else (or no model) counts with o200k_base.
const CL100K_MODEL = /^(gpt-4(?!o|\.1|\.5)|gpt-3\.5|text-embedding-(ada|3))/i;

export function tokenizerFor(model?: string | null): TokenizerName {
  return model && CL100K_MODEL.test(model) ? 'cl100k_base' : 'o200k_base';
}

// User text may contain special-token strings such as "<|endoftext|>": count them as the plain text they are.
const AS_TEXT = { disallowedSpecial: new Set<string>() };

export function countTokens(text: string, tokenizer: TokenizerName = 'o200k_base'): number {
  return text.length === 0 ? 0 : ENCODERS[tokenizer].countTokens(text, AS_TEXT);
}

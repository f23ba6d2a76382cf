/** Which encoding counts a model's tokens: a module of its own, so naming one loads no encoding. */
export type TokenizerName = 'o200k_base' | 'cl100k_base';

// Models that predate o200k_base; anything else (or no model) counts with o200k_base.
const CL100K_MODEL = /^(gpt-4(?!o|\.1|\.5)|gpt-3\.5|text-embedding-(ada|3))/i;

export function tokenizerFor(model?: string | null): TokenizerName {
  return model && CL100K_MODEL.test(model) ? 'cl100k_base' : 'o200k_base';
}

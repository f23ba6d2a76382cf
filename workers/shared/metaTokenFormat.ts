// The compress_meta_tokens wire format's name and escape (workers/tools/metaTokens.ts codes it).
export const META_FORMAT = 'gc-meta-tokens/1';
/** Precedes any Private Use Area code point of the input, which is then taken literally. */
export const ESCAPE = '\uE000';

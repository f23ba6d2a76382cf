import o200k from 'gpt-tokenizer/encoding/o200k_base';
import cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { mergeCount } from './bpe.js';

export type TokenizerName = 'o200k_base' | 'cl100k_base';

// Models that predate o200k_base; anything else (or no model) counts with o200k_base.
const CL100K_MODEL = /^(gpt-4(?!o|\.1|\.5)|gpt-3\.5|text-embedding-(ada|3))/i;

export function tokenizerFor(model?: string | null): TokenizerName {
  return model && CL100K_MODEL.test(model) ? 'cl100k_base' : 'o200k_base';
}

/** The parts of the library's byte-pair core we count with (its own rank tables and merge cache). */
interface BpeCore {
  getBpeRankFromString(piece: string): number | undefined;
  getBpeRankFromBytes(bytes: Uint8Array): number | undefined;
  bytePairEncode(piece: string): number[];
}

function coreOf(api: object): BpeCore {
  const core = (api as { bytePairEncodingCoreProcessor?: BpeCore }).bytePairEncodingCoreProcessor;
  if (!core || typeof core.getBpeRankFromBytes !== 'function' || typeof core.bytePairEncode !== 'function') {
    throw new Error('gpt-tokenizer changed shape: its byte-pair core is not reachable');
  }
  return core;
}

interface Encoding {
  split: RegExp;
  core: BpeCore;
}

const ENCODINGS: Record<TokenizerName, Encoding> = {
  o200k_base: { split: O200K_TOKEN_SPLIT_REGEX, core: coreOf(o200k) },
  cl100k_base: { split: CL100K_TOKEN_SPLIT_REGEX, core: coreOf(cl100k) },
};

/** Pieces up to this many characters go through the library's (quadratic but cached) merge. */
const LIBRARY_PIECE_CHARS = 256;
const utf8 = new TextEncoder();

/** Exact token count of one pre-tokenizer piece, in O(n log n) whatever its length. */
function pieceTokens(piece: string, e: Encoding): number {
  if (e.core.getBpeRankFromString(piece) !== undefined) return 1;
  if (piece.length <= LIBRARY_PIECE_CHARS) return e.core.bytePairEncode(piece).length;
  // ASCII: byte offsets are string offsets, and the string lookup skips UTF-8 decoding.
  if (/^[\x00-\x7f]*$/.test(piece)) return mergeCount(piece.length, (a, b) => e.core.getBpeRankFromString(piece.slice(a, b)));
  const bytes = utf8.encode(piece);
  return mergeCount(bytes.length, (a, b) => e.core.getBpeRankFromBytes(bytes.subarray(a, b)));
}

/**
 * Exact token count (the same figure as the library's countTokens), in O(n log n) on any input.
 * Special-token strings such as "<|endoftext|>" in user text count as the plain text they are: the
 * pre-tokenizer splits them into ordinary pieces.
 */
export function countTokens(text: string, tokenizer: TokenizerName = 'o200k_base'): number {
  if (text.length === 0) return 0;
  const e = ENCODINGS[tokenizer];
  let total = 0;
  for (const [piece] of text.matchAll(e.split)) total += pieceTokens(piece, e);
  return total;
}

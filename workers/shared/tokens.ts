import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { mergeCount } from './bpe.js';
import type { BpeTable } from './bpeTable.js';
import { tokenTable } from './tokenTables.js';
import { type TokenizerName } from './tokenizerName.js';

export { tokenizerFor, type TokenizerName } from './tokenizerName.js';

const SPLIT: Record<TokenizerName, RegExp> = { o200k_base: O200K_TOKEN_SPLIT_REGEX, cl100k_base: CL100K_TOKEN_SPLIT_REGEX };

/** Counts of pieces that are more than one token, per encoding; cleared when full (the library kept 100,000 too). */
const MERGED_CACHE_SIZE = 100_000;
/** Longer pieces (base64 blobs, long runs) are rare repeats and would hold large strings: not cached. */
const CACHED_PIECE_CHARS = 256;
const merged: Record<TokenizerName, Map<string, number>> = { o200k_base: new Map(), cl100k_base: new Map() };
const utf8 = new TextEncoder();

function isAscii(piece: string): boolean {
  for (let i = 0; i < piece.length; i++) if (piece.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Exact token count of one pre-tokenizer piece: one lookup when it is a token, else the O(n log n) merge. */
function pieceTokens(piece: string, table: BpeTable, cache: Map<string, number>): number {
  const ascii = isAscii(piece);
  // ASCII: byte offsets are string offsets, and the lookup reads the string without encoding it.
  if (ascii && table.rankOfAscii(piece, 0, piece.length) !== undefined) return 1;
  const known = cache.get(piece);
  if (known !== undefined) return known;
  let count: number;
  if (ascii) {
    count = mergeCount(piece.length, (a, b) => table.rankOfAscii(piece, a, b));
  } else {
    const bytes = utf8.encode(piece);
    if (table.rankOfBytes(bytes, 0, bytes.length) !== undefined) return 1;
    count = mergeCount(bytes.length, (a, b) => table.rankOfBytes(bytes, a, b));
  }
  if (piece.length > CACHED_PIECE_CHARS) return count;
  if (cache.size >= MERGED_CACHE_SIZE) cache.clear();
  cache.set(piece, count);
  return count;
}

/**
 * Exact token count (the same figure as the library's countTokens), in O(n log n) on any input.
 * Special-token strings such as "<|endoftext|>" in user text count as the plain text they are: the
 * pre-tokenizer splits them into ordinary pieces.
 */
export function countTokens(text: string, tokenizer: TokenizerName = 'o200k_base'): number {
  if (text.length === 0) return 0;
  const table = tokenTable(tokenizer);
  const cache = merged[tokenizer];
  let total = 0;
  for (const [piece] of text.matchAll(SPLIT[tokenizer])) total += pieceTokens(piece, table, cache);
  return total;
}

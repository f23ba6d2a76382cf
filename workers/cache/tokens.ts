// Token positions for the prompt-cache tools: where a token starts in the text, which token holds a
// character, the first token where two prompts part. Counting reuses the shared exact counter;
// only the few pieces around a position are encoded to token ids.
import { createRequire } from 'node:module';
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { countTokens, type TokenizerName } from '../shared/tokens.js';

interface Api {
  decode(ids: Iterable<number>): string;
  bytePairEncodingCoreProcessor?: { bytePairEncode(piece: string): number[] };
}

const SPLIT: Record<TokenizerName, RegExp> = { o200k_base: O200K_TOKEN_SPLIT_REGEX, cl100k_base: CL100K_TOKEN_SPLIT_REGEX };

/** The library's encoder, loaded when a thread first needs token ids (about 60 MB; counting never does: docs/resident-memory.md). */
const apis = new Map<TokenizerName, Api>();
function apiOf(tokenizer: TokenizerName): Api {
  let api = apis.get(tokenizer);
  if (!api) {
    const mod = createRequire(import.meta.url)(`gpt-tokenizer/encoding/${tokenizer}`) as { default?: Api } & Api;
    api = mod.default ?? mod;
    apis.set(tokenizer, api);
  }
  return api;
}

/** Pieces longer than this are not encoded to ids (the library's merge is quadratic in piece length). */
const MAX_ENCODED_PIECE = 4_000;

export interface Piece {
  text: string;
  start: number;
}

export function* piecesOf(text: string, tokenizer: TokenizerName): Generator<Piece> {
  for (const m of text.matchAll(SPLIT[tokenizer])) yield { text: m[0], start: m.index! };
}

export function pieceCount(piece: string, tokenizer: TokenizerName): number {
  return countTokens(piece, tokenizer);
}

export interface Tok {
  id: number;
  text: string;
  /** Character offset of the token's start in the whole text. */
  char: number;
}

/** A piece's tokens with their character offsets; null when the piece is too long to encode. */
export function encodePiece(piece: Piece, tokenizer: TokenizerName): Tok[] | null {
  if (piece.text.length > MAX_ENCODED_PIECE) return null;
  const api = apiOf(tokenizer);
  const core = api.bytePairEncodingCoreProcessor;
  if (!core) throw new Error('gpt-tokenizer changed shape: its byte-pair core is not reachable');
  const ids = core.bytePairEncode(piece.text);
  const out: Tok[] = [];
  let consumed = 0;
  for (let i = 0; i < ids.length; i++) {
    out.push({ id: ids[i]!, text: api.decode([ids[i]!]), char: piece.start + consumed });
    // Decoding the running prefix keeps offsets right when a token ends mid-character.
    consumed = api.decode(ids.slice(0, i + 1)).replace(/\uFFFD$/, '').length;
  }
  return out;
}

/**
 * Token index of each character offset (sorted ascending): the index of the token that holds that
 * character. Offsets at or past the end map to the total count.
 */
export function tokenIndexAt(text: string, offsets: number[], tokenizer: TokenizerName): { indexes: number[]; total: number } {
  const indexes: number[] = [];
  let k = 0;
  let before = 0;
  for (const piece of piecesOf(text, tokenizer)) {
    const end = piece.start + piece.text.length;
    const n = pieceCount(piece.text, tokenizer);
    while (k < offsets.length && offsets[k]! < end) {
      const toks = encodePiece(piece, tokenizer);
      let within = 0;
      if (toks) while (within + 1 < toks.length && toks[within + 1]!.char <= offsets[k]!) within++;
      indexes.push(before + within);
      k++;
    }
    before += n;
  }
  while (k++ < offsets.length) indexes.push(before);
  return { indexes, total: before };
}

/** Character offset where the first `n` tokens end (the prefix of exactly n tokens, or the whole text). */
export function charsOfTokens(text: string, n: number, tokenizer: TokenizerName): { chars: number; tokens: number; total: number } {
  let before = 0;
  let cut: { chars: number; tokens: number } | null = null;
  for (const piece of piecesOf(text, tokenizer)) {
    const count = pieceCount(piece.text, tokenizer);
    if (!cut && before + count > n) {
      const toks = encodePiece(piece, tokenizer);
      // Too long to encode: cut before the piece (fewer tokens than asked, never more).
      cut = toks ? { chars: toks[n - before]!.char, tokens: n } : { chars: piece.start, tokens: before };
    }
    before += count;
  }
  return { ...(cut ?? { chars: text.length, tokens: before }), total: before };
}

// diagnose_cache_miss: the first token where two prompts part. Pre-tokenizer pieces are walked in
// lockstep; equal pieces at the same offset tokenize the same, so only the first unequal pair (and a
// few neighbours for context) are encoded to ids.
import { countTokens, type TokenizerName } from '../shared/tokens.js';
import { encodePiece, pieceCount, piecesOf, type Piece, type Tok } from './tokens.js';

export interface PromptDiffInput {
  a: string;
  b: string;
  tokenizer: TokenizerName;
  /** Tokens of context to return on each side of the first difference. */
  context: number;
}

export interface PromptDiff {
  identical: boolean;
  /** Index of the first token that differs (= tokens of the shared prefix). */
  first_diff_token: number;
  /** Character offset of that token's start (the same in both prompts). */
  first_diff_token_char: number;
  /** First character that differs (may lie inside the first differing token). */
  first_diff_char: number;
  tokens_a: number;
  tokens_b: number;
  before: Tok[];
  after_a: Tok[];
  after_b: Tok[];
  /** True when a piece was too long to encode: the index is that piece's start. */
  approximate: boolean;
}

function firstDiffChar(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Marks a piece too long to encode (id -1, at the piece's start): the stream stops there. */
const TOO_LONG = -1;

/** Tokens of `first` and the pieces after it, one at a time. */
function* stream(first: Piece | undefined, rest: Iterator<Piece>, t: TokenizerName): Generator<Tok> {
  for (let piece = first; piece; ) {
    const enc = encodePiece(piece, t);
    if (!enc) {
      yield { id: TOO_LONG, text: '', char: piece.start };
      return;
    }
    yield* enc;
    const r = rest.next();
    piece = r.done ? undefined : r.value;
  }
}

export function diffPrompts({ a, b, tokenizer: t, context }: PromptDiffInput): PromptDiff {
  const ia = piecesOf(a, t);
  const ib = piecesOf(b, t);
  const recent: Piece[] = [];
  let shared = 0;
  let pa = ia.next();
  let pb = ib.next();
  while (!pa.done && !pb.done && pa.value.text === pb.value.text && pa.value.start === pb.value.start) {
    shared += pieceCount(pa.value.text, t);
    recent.push(pa.value);
    if (recent.length > context) recent.shift();
    pa = ia.next();
    pb = ib.next();
  }
  const identical = pa.done === true && pb.done === true;
  // From the first unequal pieces on, the token streams are compared token by token: a piece may
  // split differently in the two prompts ("日本ABCthe" is one piece, "日本ABC" two) yet start with the
  // same tokens. The streams part within a token or two of the first differing character.
  const sa = stream(pa.done ? undefined : pa.value, ia, t);
  const sb = stream(pb.done ? undefined : pb.value, ib, t);
  const before: Tok[] = [];
  for (const p of recent) before.push(...(encodePiece(p, t) ?? []));
  let same = 0;
  let approximate = false;
  let x = sa.next();
  let y = sb.next();
  while (!x.done && !y.done && x.value.id !== TOO_LONG && x.value.id === y.value.id) {
    before.push(x.value);
    if (before.length > context) before.shift();
    same++;
    x = sa.next();
    y = sb.next();
  }
  // Where the streams part: the next token's start in either prompt (the same offset), or the end of
  // the prompt whose tokens ran out (the other one goes on from there).
  const diffChar = !x.done ? x.value.char : !y.done ? y.value.char : a.length;
  const tail = (first: IteratorResult<Tok>, rest: Iterator<Tok>): Tok[] => {
    const out: Tok[] = [];
    for (let r = first; !r.done && out.length < context; r = rest.next()) {
      if (r.value.id === TOO_LONG) {
        approximate = true;
        break;
      }
      out.push(r.value);
    }
    return out;
  };
  const tailA = tail(x, sa);
  const tailB = tail(y, sb);
  const firstDiff = shared + same;
  // Totals by counting alone (cheap); the iterators above were partly consumed for context.
  const tokensA = identical ? shared : countTokens(a, t);
  const tokensB = identical ? shared : countTokens(b, t);
  return {
    identical,
    first_diff_token: identical ? tokensA : firstDiff,
    first_diff_token_char: identical ? a.length : diffChar,
    first_diff_char: identical ? a.length : firstDiffChar(a, b),
    tokens_a: tokensA,
    tokens_b: tokensB,
    before: before.slice(-context),
    after_a: tailA,
    after_b: tailB,
    approximate,
  };
}

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

/** Tokens of the next pieces until `want` tokens are collected (null entries: pieces too long). */
function takeTokens(first: Piece | undefined, rest: Iterator<Piece>, want: number, t: TokenizerName): { toks: Tok[]; approximate: boolean } {
  const toks: Tok[] = [];
  let approximate = false;
  let piece = first;
  while (piece && toks.length < want) {
    const enc = encodePiece(piece, t);
    if (!enc) {
      approximate = true;
      break;
    }
    toks.push(...enc);
    const next = rest.next();
    piece = next.done ? undefined : next.value;
  }
  return { toks: toks.slice(0, want), approximate };
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
  // The unequal pieces themselves may start with equal tokens ("hello1" vs "hello2").
  const headA = pa.done ? { toks: [], approximate: false } : takeTokens(pa.value, { next: () => ({ done: true, value: undefined }) }, Number.MAX_SAFE_INTEGER, t);
  const headB = pb.done ? { toks: [], approximate: false } : takeTokens(pb.value, { next: () => ({ done: true, value: undefined }) }, Number.MAX_SAFE_INTEGER, t);
  let same = 0;
  while (same < headA.toks.length && same < headB.toks.length && headA.toks[same]!.id === headB.toks[same]!.id) same++;
  const before: Tok[] = [];
  for (const p of recent) before.push(...(encodePiece(p, t) ?? []));
  before.push(...headA.toks.slice(0, same));
  const tailA = [...headA.toks.slice(same), ...(headA.toks.length && !headA.approximate ? takeTokens(next(ia), ia, context, t).toks : [])].slice(0, context);
  const tailB = [...headB.toks.slice(same), ...(headB.toks.length && !headB.approximate ? takeTokens(next(ib), ib, context, t).toks : [])].slice(0, context);
  const firstDiff = shared + same;
  const diffChar = tailA[0]?.char ?? tailB[0]?.char ?? (pa.done ? (pb.done ? a.length : pb.value.start) : pa.value.start);
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
    approximate: headA.approximate || headB.approximate,
  };
}

function next(it: Iterator<Piece>): Piece | undefined {
  const r = it.next();
  return r.done ? undefined : r.value;
}


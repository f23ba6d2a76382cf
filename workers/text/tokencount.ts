// Exact BPE counts for a whole text and for its units in one pass.
// gpt-tokenizer counts a text as the sum over its pre-tokenizer pieces (split by the encoding's
// own regex), so splitting once and memoising per-piece counts gives the identical total plus a
// per-unit attribution. The split is a hand-written scanner for ASCII runs of the o200k pattern
// (the regex engine and its match objects were most of the cost); any piece that touches a
// non-ASCII character, and every cl100k piece, is split by the encoding's own regex instead.
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { countTokens } from '../shared/tokens.js';
import type { TokenizerName } from '../shared/tokens.js';

// Sticky copies: every position starts a match of either pattern, so matching at the scan position
// is the same as the global scan.
const STICKY: Record<TokenizerName, RegExp> = {
  o200k_base: new RegExp(O200K_TOKEN_SPLIT_REGEX.source, 'uy'),
  cl100k_base: new RegExp(CL100K_TOKEN_SPLIT_REGEX.source, 'uy'),
};

// ASCII character classes, taken from the same Unicode properties the pattern uses.
const UPPER = 1, LOWER = 2, DIGIT = 4, SPACE = 8, NEWLINE = 16, OTHER = 32;
const LETTER = UPPER | LOWER;
const CLS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  if (/\p{Lu}/u.test(ch)) CLS[c] = UPPER;
  else if (/\p{Ll}/u.test(ch)) CLS[c] = LOWER;
  else if (/\p{N}/u.test(ch)) CLS[c] = DIGIT;
  else if (/\s/u.test(ch)) CLS[c] = SPACE | (c === 10 || c === 13 ? NEWLINE : 0);
  else CLS[c] = OTHER;
}

/** End of the letter run at `p` (upper* lower*, then an optional contraction), or -1 on non-ASCII. */
function letters(s: string, p: number, n: number): number {
  let e = p;
  let c = 0;
  while (e < n && (c = s.charCodeAt(e)) < 128 && CLS[c]! & UPPER) e++;
  if (e < n && c >= 128) return -1;
  while (e < n && (c = s.charCodeAt(e)) < 128 && CLS[c]! & LOWER) e++;
  if (e < n && c >= 128) return -1;
  if (c === 39 && e + 1 < n) {
    // '(?:[sS]|[dD]|[mM]|[tT]|[lL][lL]|[vV][eE]|[rR][eE]); | 0x20 lower-cases exactly these letters.
    const a = s.charCodeAt(e + 1) | 0x20;
    if (a === 0x73 || a === 0x64 || a === 0x6d || a === 0x74) return e + 2;
    if (e + 2 < n) {
      const b = s.charCodeAt(e + 2) | 0x20;
      if ((a === 0x6c && b === 0x6c) || (a === 0x76 && b === 0x65) || (a === 0x72 && b === 0x65)) return e + 3;
    }
  }
  return e;
}

/**
 * End of the o200k pre-tokenizer piece starting at `p`, or -1 when deciding it needs a non-ASCII
 * character's Unicode class (the caller then asks the regex).
 */
function o200kPiece(s: string, p: number, n: number): number {
  const c = s.charCodeAt(p);
  if (c >= 128) return -1;
  const cls = CLS[c]!;
  if (cls & LETTER) return letters(s, p, n);
  if (cls & DIGIT) {
    let e = p + 1;
    for (let d = 0; e < n && e < p + 3; e++) {
      if ((d = s.charCodeAt(e)) >= 128) return -1;
      if (!(CLS[d]! & DIGIT)) break;
    }
    return e;
  }
  let d = p + 1 < n ? s.charCodeAt(p + 1) : 0;
  if (d >= 128) return -1;
  // [^\r\n\p{L}\p{N}]? prefix before letters.
  if (!(cls & NEWLINE) && CLS[d]! & LETTER && p + 1 < n) return letters(s, p + 1, n);
  if (c === 32 || cls & OTHER) {
    // ' ?[^\s\p{L}\p{N}]+[\r\n/]*'
    const q = c === 32 ? p + 1 : p;
    let e = q;
    while (e < n && (d = s.charCodeAt(e)) < 128 && CLS[d]! & OTHER) e++;
    if (e < n && d >= 128) return -1;
    if (e > q) {
      while (e < n && ((d = s.charCodeAt(e)) === 13 || d === 10 || d === 47)) e++;
      return e;
    }
  }
  // Whitespace: '\s*[\r\n]+' (through the last newline of the run), '\s+(?!\S)', '\s+'.
  let e = p;
  let lastNewline = -1;
  while (e < n && (d = s.charCodeAt(e)) < 128 && CLS[d]! & SPACE) {
    if (CLS[d]! & NEWLINE) lastNewline = e;
    e++;
  }
  if (e < n && d >= 128) return -1;
  if (lastNewline >= 0) return lastNewline + 1;
  if (e === n) return e;
  return e - 1 > p ? e - 1 : p + 1;
}

/** End of the pre-tokenizer piece of `tokenizer` starting at `p` (p < s.length). */
export function pieceEnd(s: string, p: number, tokenizer: TokenizerName): number {
  const e = tokenizer === 'o200k_base' ? o200kPiece(s, p, s.length) : -1;
  if (e > p) return e;
  const re = STICKY[tokenizer];
  re.lastIndex = p;
  re.exec(s);
  return re.lastIndex;
}

// Per-piece counts memoised in an open-addressing table keyed by the piece's characters, kept in a
// flat buffer: no substring is made (or retained) for a piece seen before. A slot holds the hash
// next to the entry so most probes touch one cache line.
const SLOTS = 1 << 18;
const MAX_ENTRIES = 150_000;
const CHAR_POOL = 4 << 20;
const LONGEST_MEMO = 4096;
class PieceMemo {
  private slot = new Int32Array(SLOTS * 2); // [hash, entry + 1]; entry 0 = empty
  private meta = new Int32Array(MAX_ENTRIES * 3); // [first char in pool, length, count]
  private chars = new Uint16Array(CHAR_POOL);
  private entries = 0;
  private used = 0;
  constructor(private tokenizer: TokenizerName) {}

  get(s: string, p: number, e: number): number {
    let h = 0x811c9dc5;
    for (let i = p; i < e; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
    const l = e - p;
    const { slot, meta, chars } = this;
    for (let k = (h & (SLOTS - 1)) << 1; ; k = (k + 2) & (2 * SLOTS - 1)) {
      const at = slot[k + 1]!;
      if (at === 0) break;
      if (slot[k] !== h) continue;
      const m = (at - 1) * 3;
      if (meta[m + 1] !== l) continue;
      const f = meta[m]!;
      let i = 0;
      while (i < l && chars[f + i] === s.charCodeAt(p + i)) i++;
      if (i === l) return meta[m + 2]!;
    }
    const c = countTokens(s.slice(p, e), this.tokenizer);
    if (l <= LONGEST_MEMO) this.add(s, p, e, h, c);
    return c;
  }

  private add(s: string, p: number, e: number, h: number, c: number): void {
    const l = e - p;
    if (this.entries === MAX_ENTRIES || this.used + l > CHAR_POOL) {
      this.slot.fill(0);
      this.entries = 0;
      this.used = 0;
    }
    const x = this.entries++;
    for (let i = 0; i < l; i++) this.chars[this.used + i] = s.charCodeAt(p + i);
    this.meta[x * 3] = this.used;
    this.meta[x * 3 + 1] = l;
    this.meta[x * 3 + 2] = c;
    this.used += l;
    let k = (h & (SLOTS - 1)) << 1;
    while (this.slot[k + 1] !== 0) k = (k + 2) & (2 * SLOTS - 1);
    this.slot[k] = h;
    this.slot[k + 1] = x + 1;
  }
}

const memos: Partial<Record<TokenizerName, PieceMemo>> = {};
const memoOf = (tokenizer: TokenizerName) => (memos[tokenizer] ??= new PieceMemo(tokenizer));

// Special-token strings ("<|endoftext|>") in user text are counted as the plain text they are:
// the pre-tokenizer splits them into "<|", "endoftext", "|>", so no piece is ever a special token
// (the library's countTokens would throw on the whole string).

/** Exact token count of `text` (same figure as countTokens, which throws on special-token text instead). */
export function fastCount(text: string, tokenizer: TokenizerName): number {
  const memo = memoOf(tokenizer);
  const n = text.length;
  let total = 0;
  for (let p = 0; p < n; ) {
    const e = pieceEnd(text, p, tokenizer);
    total += memo.get(text, p, e);
    p = e;
  }
  return total;
}

export interface SpanCounts {
  total: number;
  perSpan: Int32Array;
  /** Tokens of the pieces between span k-1 and span k that no span holds (list bullets, rules). */
  gaps: Int32Array;
}

/** Where each pre-tokenizer piece starts, and the tokens of the text up to its end (tokensBetween). */
export interface PieceOffsets {
  starts: number[];
  through: number[];
}

/** Tokens of the pieces that start in [start, end): a span's count, exact up to the pieces it cuts. */
export function tokensBetween(p: PieceOffsets, start: number, end: number): number {
  const before = (offset: number) => {
    // The last piece starting before `offset`, by binary search.
    let lo = 0;
    let hi = p.starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (p.starts[mid]! < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? 0 : p.through[lo - 1]!;
  };
  return before(end) - before(start);
}

/**
 * Exact total for `text` plus tokens attributed to each span (spans sorted and disjoint): a piece
 * belongs to the span holding its first non-space character; pieces in gaps belong to none. With
 * `pieces`, every piece's offset and running total are recorded (tokensBetween).
 */
export function countSpans(text: string, spans: readonly { start: number; end: number }[], tokenizer: TokenizerName, pieces?: PieceOffsets): SpanCounts {
  const memo = memoOf(tokenizer);
  const perSpan = new Int32Array(spans.length);
  const gaps = new Int32Array(spans.length);
  const n = text.length;
  let total = 0;
  let k = 0;
  for (let p = 0; p < n; ) {
    const e = pieceEnd(text, p, tokenizer);
    const c = memo.get(text, p, e);
    total += c;
    if (pieces) {
      pieces.starts.push(p);
      pieces.through.push(total);
    }
    let at = p;
    let ch: number;
    while (at < e - 1 && ((ch = text.charCodeAt(at)) === 32 || ch === 10)) at++;
    while (k < spans.length && spans[k]!.end <= at) k++;
    if (k < spans.length) {
      if (spans[k]!.start <= at) perSpan[k] = perSpan[k]! + c;
      else gaps[k] = gaps[k]! + c;
    }
    p = e;
  }
  return { total, perSpan, gaps };
}

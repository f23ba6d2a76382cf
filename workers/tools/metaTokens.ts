// compress_meta_tokens: lossless dictionary coding of frequent multi-token substrings.
//
// Format gc-meta-tokens/1: symbols are single Private Use Area code points U+E001..U+F8FF, each
// standing for one dictionary entry; U+E000 is the escape: it precedes any PUA code point of the
// input, which is then taken literally. Dictionary entries are plain text (never nested).
// decodeMetaTokens(encodeMetaTokens(x)) === x for every string x.

import { ESCAPE, META_FORMAT } from '../shared/metaTokenFormat.js';
export { ESCAPE, META_FORMAT } from '../shared/metaTokenFormat.js';
const FIRST_SYMBOL = 0xe001;
const LAST_SYMBOL = 0xf8ff;
const PUA_START = 0xe000;

/** Estimated token cost of one symbol in context (a PUA code point is two o200k tokens). */
const SYMBOL_COST = 2;
/** Estimated token overhead of one dictionary entry in JSON besides its text. */
const ENTRY_OVERHEAD = 4;
const MAX_GRAM = 32;
const MAX_CANDIDATES = 600;

export interface MetaEncoding {
  format: typeof META_FORMAT;
  escape: string;
  encoded: string;
  /** symbol -> expansion, in symbol order. */
  dictionary: Record<string, string>;
}

export interface EncodeOptions {
  maxEntries?: number;
  /** Shortest expansion considered, in characters. */
  minChars?: number;
}

/** Pre-token pieces like a BPE tokenizer's: a word, number or symbol with its leading whitespace. */
function pieces(text: string): string[] {
  return text.match(/\s*[\p{L}_$][\p{L}\p{N}_$]*|\s*\p{N}+|\s*\S|\s+/gu) ?? [];
}

function isPua(code: number): boolean {
  return code >= PUA_START && code <= LAST_SYMBOL;
}

function escapeLiteral(text: string): string {
  let needs = false;
  for (let i = 0; i < text.length; i++) if (isPua(text.charCodeAt(i))) { needs = true; break; }
  if (!needs) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    out += isPua(c) ? ESCAPE + text[i] : text[i];
  }
  return out;
}

/**
 * Frequent n-grams of pieces by partition refinement: the occurrences of a frequent n-gram are split
 * by their next piece, and every part with two or more occurrences is a frequent (n+1)-gram. Integer
 * work only; candidate strings are built just for the best MAX_CANDIDATES.
 */
function candidates(ps: string[], minChars: number): { text: string; gain: number }[] {
  const found: { start: number; n: number; gain: number; chars: number }[] = [];
  const pieceId = new Map<string, number>();
  const ids = new Int32Array(ps.length);
  ps.forEach((p, i) => {
    let id = pieceId.get(p);
    if (id === undefined) {
      id = pieceId.size;
      pieceId.set(p, id);
    }
    ids[i] = id;
  });
  const byPiece = new Map<number, number[]>();
  for (let i = 0; i < ps.length; i++) {
    const list = byPiece.get(ids[i]!);
    if (list) list.push(i);
    else byPiece.set(ids[i]!, [i]);
  }
  let groups: { starts: number[]; chars: number }[] = [];
  for (const starts of byPiece.values()) if (starts.length >= 2) groups.push({ starts, chars: ps[starts[0]!]!.length });
  for (let n = 1; n <= MAX_GRAM && groups.length; n++) {
    const next: { starts: number[]; chars: number }[] = [];
    for (const g of groups) {
      const split = new Map<number, number[]>();
      if (n < MAX_GRAM) {
        for (const s of g.starts) {
          if (s + n >= ps.length) continue;
          const id = ids[s + n]!;
          const list = split.get(id);
          if (list) list.push(s);
          else split.set(id, [s]);
        }
      }
      // A gram every occurrence of which extends the same way is dominated by that extension.
      let closed = true;
      for (const starts of split.values()) if (starts.length === g.starts.length) closed = false;
      if (closed && n >= 2 && g.chars >= minChars) {
        let count = 0;
        let lastEnd = -1;
        for (const s of g.starts) if (s >= lastEnd) { count++; lastEnd = s + n; }
        const tokens = Math.max(n, Math.ceil(g.chars / 4));
        const gain = count * (tokens - SYMBOL_COST) - (tokens + ENTRY_OVERHEAD);
        if (gain > 0 && count >= 2) found.push({ start: g.starts[0]!, n, gain, chars: g.chars });
      }
      for (const starts of split.values()) {
        if (starts.length < 2) continue;
        next.push({ starts, chars: g.chars + ps[starts[0]! + n]!.length });
      }
    }
    groups = next;
  }
  found.sort((a, b) => b.gain - a.gain || b.chars - a.chars);
  return found.slice(0, MAX_CANDIDATES).map((f) => ({ text: ps.slice(f.start, f.start + f.n).join(''), gain: f.gain }));
}

const HAS_PUA = /[\uE000-\uF8FF]/;

/**
 * Encodes text; greedy by estimated gain, each candidate re-counted on the current encoding. The
 * working string is the encoding itself (literal PUA code points escaped, symbols inline); candidates
 * containing PUA code points are skipped, so a match can only cover plain literal text.
 */
export function encodeMetaTokens(text: string, options: EncodeOptions = {}): MetaEncoding {
  const maxEntries = Math.min(options.maxEntries ?? 256, LAST_SYMBOL - FIRST_SYMBOL + 1);
  const entries: string[] = [];
  let work = escapeLiteral(text);
  for (const cand of candidates(pieces(text), options.minChars ?? 6)) {
    if (entries.length >= maxEntries) break;
    if (HAS_PUA.test(cand.text)) continue;
    let count = 0;
    for (let at = work.indexOf(cand.text); at !== -1; at = work.indexOf(cand.text, at + cand.text.length)) count++;
    const tokens = Math.max(1, Math.ceil(cand.text.length / 4));
    if (count < 2 || count * (tokens - SYMBOL_COST) - (tokens + ENTRY_OVERHEAD) <= 0) continue;
    const symbol = String.fromCharCode(FIRST_SYMBOL + entries.length);
    entries.push(cand.text);
    work = work.split(cand.text).join(symbol);
  }
  const dictionary: Record<string, string> = {};
  entries.forEach((e, k) => (dictionary[String.fromCharCode(FIRST_SYMBOL + k)] = e));
  return { format: META_FORMAT, escape: ESCAPE, encoded: work, dictionary };
}

/** The identity encoding (no dictionary): used when a dictionary would not pay for itself. */
export function identityEncoding(text: string): MetaEncoding {
  return { format: META_FORMAT, escape: ESCAPE, encoded: escapeLiteral(text), dictionary: {} };
}

export class MetaDecodeError extends Error {
  override name = 'MetaDecodeError';
}

export function decodeMetaTokens(encoded: string, dictionary: Record<string, string>): string {
  for (const key of Object.keys(dictionary)) {
    const c = key.charCodeAt(0);
    if (key.length !== 1 || c < FIRST_SYMBOL || c > LAST_SYMBOL) throw new MetaDecodeError(`invalid dictionary symbol ${JSON.stringify(key)}`);
  }
  let out = '';
  let literalFrom = 0;
  for (let i = 0; i < encoded.length; i++) {
    const c = encoded.charCodeAt(i);
    if (!isPua(c)) continue;
    out += encoded.slice(literalFrom, i);
    if (c === PUA_START) {
      if (i + 1 >= encoded.length) throw new MetaDecodeError('dangling escape at the end of the encoded text');
      out += encoded[i + 1];
      i++;
    } else {
      const expansion = dictionary[encoded[i]!];
      if (expansion === undefined) throw new MetaDecodeError(`symbol U+${c.toString(16).toUpperCase()} at ${i} is not in the dictionary`);
      out += expansion;
    }
    literalFrom = i + 1;
  }
  return out + encoded.slice(literalFrom);
}

// Word-level tokenizer for the shipped static model. Words in the vocabulary map to their row;
// unknown words fall back to hashed character n-gram buckets (fastText style) so typos,
// inflections and identifiers still land near related words instead of vanishing.
import type { Encoding, Tokenizer } from './tokenizer.js';

export interface StaticTokenizerConfig {
  kind: 'static-word';
  /** File with one word per line; line i is row i of the embedding table. */
  vocab: string;
  /** Character n-gram buckets appended after the vocabulary rows. */
  ngram: { min: number; max: number; buckets: number; minWordLength: number };
  /** Total weight an unknown word gets, split evenly over its n-grams. */
  oovWeight: number;
  /** Words kept per text; the rest is truncated. */
  maxTokens: number;
}

// Words (letters/digits with inner apostrophes, hyphens or dots). Underscores and other
// punctuation separate words, so snake_case splits for free.
const WORD = /[\p{L}\p{N}]+(?:['\u2019.\-][\p{L}\p{N}]+)*/gu;
// camelCase / PascalCase / digit boundaries, tried only when the whole word is unknown.
const CAMEL = /\p{Lu}?\p{Ll}+|\p{Lu}+(?!\p{Ll})|\p{N}+|\p{L}+/gu;
// GloVe (Stanford tokenizer) splits clitics off: don't -> do n't, it's -> it 's.
const NON_ASCII = /[^\x00-\x7f]/;
const isAlnum = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90);
const isJoiner = (c: number): boolean => c === 39 || c === 45 || c === 46; // ' - .
const LETTERS = /^\p{L}+$/u;
const CLITIC = /^(.+?)(n't|'s|'re|'ll|'ve|'m|'d)$/;

/** FNV-1a over UTF-16 code units: stable across Node versions and cheap. */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Character n-grams of `<word>` (boundary markers make prefixes and suffixes distinct). */
export function charNgrams(word: string, min: number, max: number): string[] {
  const w = `<${word}>`;
  const out: string[] = [];
  for (let n = min; n <= max; n++) for (let i = 0; i + n <= w.length; i++) out.push(w.slice(i, i + n));
  return out;
}

export class StaticWordTokenizer implements Tokenizer {
  readonly kind = 'static-word' as const;
  private readonly index = new Map<string, number>();
  readonly vocabSize: number;

  constructor(
    words: readonly string[],
    readonly cfg: StaticTokenizerConfig,
  ) {
    words.forEach((w, i) => {
      if (!this.index.has(w)) this.index.set(w, i);
    });
    this.vocabSize = words.length;
  }

  /** Row for a known word, or undefined. */
  lookup(word: string): number | undefined {
    return this.index.get(word);
  }

  // Unknown words repeat within a corpus (identifiers, names); cache their bucket rows.
  private readonly oovCache = new Map<string, number[]>();

  /** Bucket rows for an unknown word. */
  ngramIds(word: string): number[] {
    let ids = this.oovCache.get(word);
    if (ids) return ids;
    const { min, max, buckets } = this.cfg.ngram;
    ids = charNgrams(word, min, max).map((g) => this.vocabSize + (fnv1a(g) % buckets));
    if (this.oovCache.size >= 50_000) this.oovCache.clear();
    this.oovCache.set(word, ids);
    return ids;
  }

  /** Split text into the units the vocabulary knows; unknown units are returned as-is. */
  words(text: string): string[] {
    return this.scan(text, [], []);
  }

  /** Fills `out` with words and `ids` with their rows (-1 when unknown); returns `out`. */
  private scan(text: string, out: string[], ids: number[]): string[] {
    const max = this.cfg.maxTokens;
    if (NON_ASCII.test(text)) {
      for (const m of text.matchAll(WORD)) {
        this.splitWord(m[0], out, ids);
        if (out.length >= max) break;
      }
    } else {
      // ASCII fast path (same segmentation as WORD): a char scanner is several times faster
      // than a Unicode regex and tokenisation dominates the cost of the static model.
      const n = text.length;
      const lowerText = text.toLowerCase(); // ASCII: same length, so offsets carry over
      let i = 0;
      while (i < n && out.length < max) {
        if (!isAlnum(text.charCodeAt(i))) {
          i++;
          continue;
        }
        const start = i;
        for (;;) {
          while (i < n && isAlnum(text.charCodeAt(i))) i++;
          if (i + 1 < n && isJoiner(text.charCodeAt(i)) && isAlnum(text.charCodeAt(i + 1))) i++;
          else break;
        }
        const lower = lowerText.slice(start, i);
        const id = this.index.get(lower);
        if (id !== undefined) {
          out.push(lower);
          ids.push(id);
        } else this.splitWord(text.slice(start, i), out, ids);
      }
    }
    if (out.length > max) {
      out.length = max;
      ids.length = max;
    }
    return out;
  }

  private splitWord(raw: string, out: string[], ids: number[]): void {
    let lower = raw.toLowerCase();
    if (lower.includes('\u2019')) lower = lower.replace(/\u2019/g, "'");
    const id = this.index.get(lower);
    if (id !== undefined) {
      out.push(lower);
      ids.push(id);
      return;
    }
    const c = CLITIC.exec(lower);
    if (c) {
      this.splitWord(c[1]!, out, ids);
      out.push(c[2]!);
      ids.push(this.index.get(c[2]!) ?? -1);
      return;
    }
    // Compound forms: e.g. state-of-the-art, v1.2, node.js
    if (/['.\-]/.test(lower)) {
      for (const part of raw.split(/['\u2019.\-]+/)) if (part) this.splitWord(part, out, ids);
      return;
    }
    const pieces = raw.match(CAMEL);
    if (pieces && pieces.length > 1) {
      for (const p of pieces) this.splitWord(p, out, ids);
      return;
    }
    out.push(lower);
    ids.push(-1);
  }

  encode(text: string): Encoding {
    const ids: number[] = [];
    const weights: number[] = [];
    const found: number[] = [];
    const words = this.scan(text, [], found);
    for (let k = 0; k < words.length; k++) {
      const id = found[k]!;
      if (id >= 0) {
        ids.push(id);
        weights.push(1);
        continue;
      }
      const w = words[k]!;
      // Only word-like unknowns get n-grams; numbers, single letters and symbol soup carry
      // little meaning and added noise in the benchmark, so they are skipped.
      if (w.length < this.cfg.ngram.minWordLength || !LETTERS.test(w) || this.cfg.oovWeight <= 0) continue;
      const grams = this.ngramIds(w);
      const share = this.cfg.oovWeight / grams.length;
      for (const g of grams) {
        ids.push(g);
        weights.push(share);
      }
    }
    return { ids, weights };
  }
}

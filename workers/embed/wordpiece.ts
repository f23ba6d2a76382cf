// BERT WordPiece tokenizer (BasicTokenizer + greedy longest-match-first WordPiece), matching
// HuggingFace BertTokenizer for the uncased/cased English models sentence-transformers ship.
import type { Encoding, Tokenizer } from './tokenizer.js';

export interface WordPieceOptions {
  lowercase: boolean;
  /** Defaults to `lowercase`, as in BertTokenizer. */
  stripAccents?: boolean;
  /** Including [CLS] and [SEP]. */
  maxLength: number;
  unkToken?: string;
  clsToken?: string;
  sepToken?: string;
  prefix?: string;
  maxCharsPerWord?: number;
}

function isPunct(cp: number): boolean {
  // BERT treats all non-alphanumeric ASCII as punctuation, plus Unicode P* categories.
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126)) return true;
  return /\p{P}/u.test(String.fromCodePoint(cp));
}

function isCjk(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) ||
    (cp >= 0x2b820 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x2f800 && cp <= 0x2fa1f)
  );
}

const CONTROL = /[\p{Cc}\p{Cf}]/u;
const WHITESPACE = /\s/u;

export class WordPieceTokenizer implements Tokenizer {
  readonly kind = 'wordpiece' as const;
  private readonly unkId: number;
  private readonly clsId: number;
  private readonly sepId: number;
  private readonly prefix: string;
  private readonly stripAccents: boolean;

  constructor(
    private readonly vocab: Map<string, number>,
    private readonly opts: WordPieceOptions,
  ) {
    const need = (t: string): number => {
      const id = vocab.get(t);
      if (id === undefined) throw new Error(`WordPiece vocabulary lacks ${t}`);
      return id;
    };
    this.unkId = need(opts.unkToken ?? '[UNK]');
    this.clsId = need(opts.clsToken ?? '[CLS]');
    this.sepId = need(opts.sepToken ?? '[SEP]');
    this.prefix = opts.prefix ?? '##';
    this.stripAccents = opts.stripAccents ?? opts.lowercase;
  }

  /** vocab.txt: one token per line, id = line number. */
  static fromVocabTxt(text: string, opts: WordPieceOptions): WordPieceTokenizer {
    const vocab = new Map<string, number>();
    text.split(/\r?\n/).forEach((t, i) => {
      if (t.length > 0 && !vocab.has(t)) vocab.set(t, i);
    });
    return new WordPieceTokenizer(vocab, opts);
  }

  /** HuggingFace tokenizer.json with a WordPiece model. */
  static fromTokenizerJson(json: unknown, opts: WordPieceOptions): WordPieceTokenizer {
    const j = json as {
      model?: { type?: string; vocab?: Record<string, number>; unk_token?: string; continuing_subword_prefix?: string; max_input_chars_per_word?: number };
      post_processor?: { cls?: [string, number]; sep?: [string, number] } | null;
    };
    if (!j.model || j.model.type !== 'WordPiece' || !j.model.vocab) throw new Error('tokenizer.json is not a WordPiece tokenizer');
    const pp = j.post_processor;
    return new WordPieceTokenizer(new Map(Object.entries(j.model.vocab)), {
      ...opts,
      unkToken: opts.unkToken ?? j.model.unk_token ?? '[UNK]',
      prefix: opts.prefix ?? j.model.continuing_subword_prefix ?? '##',
      maxCharsPerWord: opts.maxCharsPerWord ?? j.model.max_input_chars_per_word ?? 100,
      clsToken: opts.clsToken ?? pp?.cls?.[0] ?? '[CLS]',
      sepToken: opts.sepToken ?? pp?.sep?.[0] ?? '[SEP]',
    });
  }

  /** BasicTokenizer: clean, lowercase/strip accents, split whitespace, punctuation and CJK. */
  basicTokens(text: string): string[] {
    let t = '';
    for (const ch of text) {
      const cp = ch.codePointAt(0)!;
      if (cp === 0 || cp === 0xfffd) continue;
      if (WHITESPACE.test(ch)) t += ' ';
      else if (CONTROL.test(ch)) continue;
      else if (isCjk(cp)) t += ` ${ch} `;
      else t += ch;
    }
    if (this.opts.lowercase) t = t.toLowerCase();
    if (this.stripAccents) t = t.normalize('NFD').replace(/\p{Mn}/gu, '');
    const out: string[] = [];
    for (const word of t.split(' ')) {
      if (!word) continue;
      let cur = '';
      for (const ch of word) {
        if (isPunct(ch.codePointAt(0)!)) {
          if (cur) out.push(cur);
          out.push(ch);
          cur = '';
        } else cur += ch;
      }
      if (cur) out.push(cur);
    }
    return out;
  }

  /** Greedy longest-match-first; a word that cannot be fully covered becomes [UNK]. */
  wordPieces(word: string): number[] {
    const chars = Array.from(word);
    if (chars.length > (this.opts.maxCharsPerWord ?? 100)) return [this.unkId];
    const ids: number[] = [];
    let start = 0;
    while (start < chars.length) {
      let end = chars.length;
      let found: number | undefined;
      while (start < end) {
        const sub = (start > 0 ? this.prefix : '') + chars.slice(start, end).join('');
        found = this.vocab.get(sub);
        if (found !== undefined) break;
        end--;
      }
      if (found === undefined) return [this.unkId];
      ids.push(found);
      start = end;
    }
    return ids;
  }

  /** Token strings (without [CLS]/[SEP]), for tests and debugging. */
  tokenize(text: string): string[] {
    const inv = new Map<number, string>();
    for (const [k, v] of this.vocab) inv.set(v, k);
    return this.basicTokens(text).flatMap((w) => this.wordPieces(w).map((id) => inv.get(id)!));
  }

  encode(text: string): Encoding {
    const ids = [this.clsId];
    const room = this.opts.maxLength - 1;
    outer: for (const w of this.basicTokens(text)) {
      for (const id of this.wordPieces(w)) {
        if (ids.length >= room) break outer;
        ids.push(id);
      }
    }
    ids.push(this.sepId);
    return { ids };
  }
}

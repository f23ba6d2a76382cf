// The hand-written pre-tokenizer scanner must split exactly as the encoding's own regex does.
import { describe, expect, it } from 'vitest';
import { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } from 'gpt-tokenizer/encodingParams/constants';
import { countSpans, fastCount, pieceEnd } from '../../workers/text/tokencount.js';
import { countTokens } from '../../workers/shared/tokens.js';
import type { TokenizerName } from '../../workers/shared/tokens.js';
import { realDoc } from './helpers.js';

const REGEX: Record<TokenizerName, RegExp> = { o200k_base: O200K_TOKEN_SPLIT_REGEX, cl100k_base: CL100K_TOKEN_SPLIT_REGEX };

function pieceEnds(s: string, tokenizer: TokenizerName): number[] {
  const out: number[] = [];
  for (let p = 0; p < s.length; ) out.push((p = pieceEnd(s, p, tokenizer)));
  return out;
}
const regexEnds = (s: string, tokenizer: TokenizerName) => [...s.matchAll(REGEX[tokenizer])].map((m) => m.index + m[0].length);

/** Deterministic strings over an alphabet that hits every branch: cases, digits, contractions, spaces, newlines, Unicode. */
function fuzz(count: number, alphabet: string[], maxLen: number): string[] {
  let seed = 20261126;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  return Array.from({ length: count }, () => {
    let s = '';
    const len = 1 + Math.floor(rnd() * maxLen);
    for (let k = 0; k < len; k++) s += alphabet[Math.floor(rnd() * alphabet.length)];
    return s;
  });
}

const ASCII = Array.from({ length: 128 }, (_, c) => String.fromCharCode(c));
const MIXED = [...'aZQx079 \n\r\t\v\f\'sStlLvVeErR/.-_!<|>'.split(''), '  ', '\r\n', 'é', 'É', 'ß', 'Σ', 'ǅ', 'ʰ', '\u0301', '中', '😀', '²', '٣', '\u00a0', '\u2003', '\u2028', '\u200b'];

describe('token counting', () => {
  for (const tokenizer of ['o200k_base', 'cl100k_base'] as const) {
    it(`${tokenizer}: pieces match the encoding's regex on fuzzed and real text`, () => {
      for (const s of [...fuzz(4000, MIXED, 24), ...fuzz(4000, ASCII, 24), realDoc(), realDoc('node_modules/piscina/README.md')]) {
        expect(pieceEnds(s, tokenizer), JSON.stringify(s.slice(0, 80))).toEqual(regexEnds(s, tokenizer));
      }
    });
    it(`${tokenizer}: counts equal countTokens, whole and attributed to spans`, () => {
      const doc = realDoc() + '\n\nÜnïcödé “quotes” — Заголовок, 中文, 😀 <|endoftext|>';
      expect(fastCount(doc, tokenizer)).toBe(countTokens(doc, tokenizer));
      for (const s of fuzz(500, MIXED, 40)) expect(fastCount(s, tokenizer)).toBe(countTokens(s, tokenizer));
      const spans = [];
      for (let at = 0; at < doc.length; at += 997) spans.push({ start: at, end: Math.min(doc.length, at + 900) });
      const { total, perSpan } = countSpans(doc, spans, tokenizer);
      expect(total).toBe(countTokens(doc, tokenizer));
      expect(perSpan.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(total);
      expect(perSpan.every((c) => c > 0)).toBe(true);
    });
  }
});

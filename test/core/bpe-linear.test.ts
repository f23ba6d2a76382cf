import cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import o200k from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { countTokens, type TokenizerName } from '../../workers/shared/tokens.js';
import { fastCount } from '../../workers/text/tokencount.js';

const LIBRARY = { o200k_base: o200k, cl100k_base: cl100k } as const;
const AS_TEXT = { disallowedSpecial: new Set<string>() };

/** A small seeded generator, so a failure names an input that can be rebuilt. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s ^ (s >>> 15), 2246822507) + 0x6d2b79f5) >>> 0) / 2 ** 32);
}

function base64(n: number, r: () => number): string {
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  return Array.from({ length: n }, () => abc[Math.floor(r() * 64)]).join('');
}

const r = rng(7);
const CASES: Record<string, string> = {
  prose: 'The connection pool limits backend processes; idle connections still cost memory. '.repeat(40),
  code: 'export function add(a: number, b: number): number {\n  return a + b; // sum\n}\n'.repeat(30),
  'letters run': 'x'.repeat(3000),
  'mixed-case run': 'aBcDeF'.repeat(500),
  'digits run': '1234567890'.repeat(300),
  'CJK run': '漢字仮名交じり文'.repeat(300),
  'emoji run': '😀🚀👍🏽🇩🇪'.repeat(200),
  base64: base64(4000, r),
  'url-safe blob': base64(3000, r).replace(/\+/g, '-').replace(/\//g, '_'),
  'special-token text': 'before <|endoftext|> after <|im_start|>'.repeat(20),
  'random unicode': Array.from({ length: 3000 }, () => String.fromCodePoint(0x20 + Math.floor(r() * 0x3000))).join(''),
};

describe('linear-cost token counting', () => {
  for (const tokenizer of ['o200k_base', 'cl100k_base'] as TokenizerName[]) {
    for (const [name, text] of Object.entries(CASES)) {
      it(`${tokenizer}: ${name} counts exactly what the library counts`, () => {
        const expected = LIBRARY[tokenizer].countTokens(text, AS_TEXT);
        expect(countTokens(text, tokenizer)).toBe(expected);
        expect(fastCount(text, tokenizer)).toBe(expected);
      });
    }
  }

  it('random strings over a tiny alphabet (many merge ties) count exactly', () => {
    const g = rng(11);
    for (let i = 0; i < 200; i++) {
      const alphabet = ['a', 'b', 'ab', ' ', '1', 'é', '\n'];
      const text = Array.from({ length: 200 + Math.floor(g() * 600) }, () => alphabet[Math.floor(g() * alphabet.length)]).join('');
      expect(countTokens(text), `case ${i}`).toBe(o200k.countTokens(text, AS_TEXT));
    }
  });

  it('the cost of a run without whitespace grows about linearly with its length (no quadratic blow-up)', () => {
    const best = (text: string) => {
      let ms = Infinity;
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        countTokens(text);
        ms = Math.min(ms, performance.now() - t0);
      }
      return Math.max(0.5, ms);
    };
    for (const make of [(n: number) => 'x'.repeat(n), (n: number) => base64(n, rng(3)), (n: number) => '漢'.repeat(n)]) {
      const small = best(make(50_000));
      const large = best(make(400_000));
      // 8x the length: about 8x the time when linear, 64x when quadratic (the library's merge).
      expect(large / small).toBeLessThan(24);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { StaticWordTokenizer, charNgrams, fnv1a, type StaticTokenizerConfig } from '../../workers/embed/tokenizer-static.js';

const cfg: StaticTokenizerConfig = {
  kind: 'static-word',
  vocab: 'vocab.txt',
  ngram: { min: 3, max: 4, buckets: 100, minWordLength: 4 },
  oovWeight: 0.5,
  maxTokens: 8,
};
const WORDS = ['the', 'do', "n't", 'it', "'s", 'get', 'user', 'name', 'state', 'of', 'art', 'node', 'js', 'café', 'html', 'parser'];
const tok = new StaticWordTokenizer(WORDS, cfg);

describe('static word tokenizer', () => {
  it('splits clitics the way GloVe was tokenised', () => {
    expect(tok.words("Don't, it's")).toEqual(['do', "n't", 'it', "'s"]);
    expect(tok.words('it\u2019s')).toEqual(['it', "'s"]);
  });

  it('splits identifiers and compounds into known words', () => {
    expect(tok.words('getUserName get_user_name')).toEqual(['get', 'user', 'name', 'get', 'user', 'name']);
    expect(tok.words('state-of-the-art node.js HTMLParser')).toEqual(['state', 'of', 'the', 'art', 'node', 'js', 'html', 'parser']);
  });

  it('handles non-ASCII text with the Unicode path', () => {
    expect(tok.words('Café THE')).toEqual(['café', 'the']);
  });

  it('encodes unknown words as n-gram buckets sharing the OOV weight', () => {
    const e = tok.encode('the zzzz');
    const grams = charNgrams('zzzz', 3, 4);
    expect(grams).toEqual(['<zz', 'zzz', 'zzz', 'zz>', '<zzz', 'zzzz', 'zzz>']);
    expect(e.ids[0]).toBe(0);
    expect(e.ids.slice(1)).toEqual(grams.map((g) => WORDS.length + (fnv1a(g) % 100)));
    expect(e.weights!.slice(1).reduce((a, b) => a + b, 0)).toBeCloseTo(0.5, 6);
  });

  it('skips short or non-alphabetic unknowns and truncates to maxTokens', () => {
    expect(tok.encode('xy 12345 the').ids).toEqual([0]);
    expect(tok.words('the the the the the the the the the the')).toHaveLength(8);
  });

  it('hashes stably', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
  });
});

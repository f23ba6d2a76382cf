import { describe, expect, it } from 'vitest';
import { WordPieceTokenizer } from '../../workers/embed/wordpiece.js';

// A miniature BERT vocabulary; ids are line numbers as in vocab.txt.
const VOCAB = [
  '[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]',
  'un', '##aff', '##able', 'the', 'quick', 'brown', 'fox', '##es', 'jump', '##ed', '##s',
  ',', '.', '!', "'", 'hello', 'world', 'cafe', 'naive', 'token', '##izer', '##ization', '中', '国',
  'don', 't', 'a', '##b', '##c',
].join('\n');

const uncased = () => WordPieceTokenizer.fromVocabTxt(VOCAB, { lowercase: true, maxLength: 16 });

describe('WordPiece tokenizer', () => {
  it('splits words greedily into the longest known pieces', () => {
    expect(uncased().tokenize('unaffable')).toEqual(['un', '##aff', '##able']);
    expect(uncased().tokenize('foxes jumped')).toEqual(['fox', '##es', 'jump', '##ed']);
    expect(uncased().tokenize('tokenization tokenizer')).toEqual(['token', '##ization', 'token', '##izer']);
  });

  it('lowercases, strips accents and splits punctuation like BERT uncased', () => {
    expect(uncased().tokenize('Hello, WORLD!')).toEqual(['hello', ',', 'world', '!']);
    expect(uncased().tokenize('Café naïve.')).toEqual(['cafe', 'naive', '.']);
    expect(uncased().tokenize("don't")).toEqual(['don', "'", 't']);
  });

  it('maps a word it cannot cover completely to [UNK]', () => {
    expect(uncased().tokenize('the xylophone fox')).toEqual(['the', '[UNK]', 'fox']);
    expect(uncased().tokenize('abcz')).toEqual(['[UNK]']);
    expect(uncased().tokenize('abc')).toEqual(['a', '##b', '##c']);
  });

  it('puts spaces around CJK characters', () => {
    expect(uncased().tokenize('中国')).toEqual(['中', '国']);
  });

  it('keeps case when configured cased', () => {
    const cased = WordPieceTokenizer.fromVocabTxt(VOCAB, { lowercase: false, maxLength: 16 });
    expect(cased.tokenize('Hello hello')).toEqual(['[UNK]', 'hello']);
  });

  it('adds [CLS]/[SEP] and truncates to maxLength', () => {
    expect(uncased().encode('the quick brown fox').ids).toEqual([2, 8, 9, 10, 11, 3]);
    expect(uncased().encode('').ids).toEqual([2, 3]);
    const short = WordPieceTokenizer.fromVocabTxt(VOCAB, { lowercase: true, maxLength: 4 });
    expect(short.encode('the quick brown fox').ids).toEqual([2, 8, 9, 3]);
  });

  it('reads a HuggingFace tokenizer.json WordPiece model', () => {
    const vocab: Record<string, number> = {};
    VOCAB.split('\n').forEach((t, i) => (vocab[t] = i));
    const tok = WordPieceTokenizer.fromTokenizerJson(
      { model: { type: 'WordPiece', vocab, unk_token: '[UNK]', continuing_subword_prefix: '##' }, post_processor: { cls: ['[CLS]', 2], sep: ['[SEP]', 3] } },
      { lowercase: true, maxLength: 16 },
    );
    expect(tok.encode('Unaffable foxes').ids).toEqual([2, 5, 6, 7, 11, 12, 3]);
  });
});

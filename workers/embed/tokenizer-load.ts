// Builds the tokenizer a manifest asks for.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { TokenizerConfig } from './manifest.js';
import type { Tokenizer } from './tokenizer.js';
import { StaticWordTokenizer } from './tokenizer-static.js';
import { WordPieceTokenizer } from './wordpiece.js';

export function loadTokenizer(dir: string, cfg: TokenizerConfig): Tokenizer {
  const text = readFileSync(resolve(dir, cfg.vocab), 'utf8');
  switch (cfg.kind) {
    case 'static-word': {
      const words = text.split('\n');
      if (words[words.length - 1] === '') words.pop();
      return new StaticWordTokenizer(words, cfg);
    }
    case 'wordpiece': {
      const opts = {
        lowercase: cfg.lowercase,
        maxLength: cfg.maxLength,
        ...(cfg.stripAccents === undefined ? {} : { stripAccents: cfg.stripAccents }),
      };
      return cfg.vocab.endsWith('.json')
        ? WordPieceTokenizer.fromTokenizerJson(JSON.parse(text), opts)
        : WordPieceTokenizer.fromVocabTxt(text, opts);
    }
    default:
      throw new Error(`unknown tokenizer kind ${(cfg as { kind: string }).kind}`);
  }
}

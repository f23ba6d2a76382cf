import { createRequire } from 'node:module';
import type ParserT from 'tree-sitter';
import { LANGUAGES } from './languages.js';

const require = createRequire(import.meta.url);
const Parser = require('tree-sitter') as typeof ParserT;

export type Tree = ParserT.Tree;
export type SyntaxNode = ParserT.SyntaxNode;

// One parser per language per thread, created lazily and reused (setLanguage is not free).
const parsers = new Map<string, ParserT>();

function parserFor(language: string): ParserT {
  let parser = parsers.get(language);
  if (!parser) {
    const spec = LANGUAGES[language];
    if (!spec) throw new Error(`no grammar for ${language}`);
    parser = new Parser();
    parser.setLanguage(spec.grammar() as ParserT.Language);
    parsers.set(language, parser);
  }
  return parser;
}

const CHUNK = 64 * 1024;

/**
 * Parse through a callback input: the binding copies a string argument into a fixed buffer and
 * some versions mis-handle very long strings, while the callback path streams any size.
 * Indices in the tree are UTF-16 code units, so they slice the JS string directly.
 */
export function parse(language: string, text: string): Tree {
  const parser = parserFor(language);
  parser.reset();
  if (text.length <= CHUNK) return parser.parse(text);
  return parser.parse((index: number) => (index < text.length ? text.slice(index, index + CHUNK) : null));
}

/** ERROR plus MISSING nodes: the detector's tie-breaker and a quality signal in the response. */
export function countErrors(tree: Tree): number {
  const root = tree.rootNode;
  if (!root.hasError) return 0;
  let errors = root.descendantsOfType('ERROR').length;
  // MISSING nodes are not their own type; walk only when needed and cheaply via a cursor.
  if (errors === 0) errors = 1;
  return errors;
}

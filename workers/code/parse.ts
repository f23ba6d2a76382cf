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
  // The `.h` detector parses a file up to 32 KB as C and as C++; the analysis then parses the
  // winner again. Keep the last tree per language so that second parse is free (trees are read-only).
  const cached = last.get(language);
  if (cached && cached.text === text) return cached.tree;
  const parser = parserFor(language);
  parser.reset();
  const tree = text.length <= CHUNK ? parser.parse(text) : parser.parse((index: number) => (index < text.length ? text.slice(index, index + CHUNK) : null));
  // Only probe-sized texts: a large tree held between calls would cost memory for nothing.
  if (text.length <= CACHE_MAX) last.set(language, { text, tree });
  return tree;
}

const CACHE_MAX = 32 * 1024;
const last = new Map<string, { text: string; tree: Tree }>();

/** ERROR plus MISSING nodes: the detector's tie-breaker and a quality signal in the response. */
export function countErrors(tree: Tree): number {
  const known = errorCounts.get(tree);
  if (known !== undefined) return known;
  const root = tree.rootNode;
  if (!root.hasError) return 0;
  let errors = root.descendantsOfType('ERROR').length;
  // MISSING nodes are not their own type; walk only when needed and cheaply via a cursor.
  if (errors === 0) errors = 1;
  errorCounts.set(tree, errors);
  return errors;
}

/** The detector and the analysis count the same (cached) tree. */
const errorCounts = new WeakMap<Tree, number>();

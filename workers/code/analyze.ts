import { countTokens } from '../shared/tokens.js';
import { detectLanguage } from './detect.js';
import { CodeInputError } from './errors.js';
import { foldBareCalls, maskBareCalls } from './cmask.js';
import { extractByLines } from './fallback.js';
import { LANGUAGES, languageFromFilename, normalizeLanguage } from './languages.js';
import { countErrors, parse } from './parse.js';
import { levelChoice, renderSkeleton } from './skeleton.js';
import { computeLineStarts, normalizeNewlines } from './text.js';
import type { FileAnalysis, ParserPath } from './types.js';
import { emptyExtraction, extract, type Extraction } from './units.js';

export interface AnalyzeInput {
  path: string;
  content: string;
  language?: string | null;
}

export interface Analyzed {
  analysis: FileAnalysis;
  extraction: Extraction;
}

/** Share of suspicious characters (U+FFFD, C0 controls other than whitespace) above which input is not text. */
const BINARY_RATIO = 0.001;

/**
 * Reject binary and mis-decoded text before parsing. A NUL byte means binary. U+FFFD is what a UTF-8
 * decoder substitutes for invalid bytes, but real sources sometimes contain it literally (Go's fmt
 * tests do, 13 times in 58 KB), so the test is a density: more than 0.1% of characters being U+FFFD
 * or stray control characters.
 */
export function assertText(code: unknown, label = 'code'): asserts code is string {
  if (typeof code !== 'string') throw new CodeInputError(`${label} must be a string`);
  const nul = code.indexOf('\u0000');
  if (nul >= 0) throw new CodeInputError(`${label} looks binary: NUL byte at offset ${nul}`);
  if (code.indexOf('\uFFFD') < 0 && !/[\x01-\x08\x0e-\x1a\x1c-\x1f]/.test(code)) return;
  let bad = 0;
  let first = -1;
  for (let i = 0; i < code.length; i++) {
    const c = code.charCodeAt(i);
    if (c === 0xfffd || (c < 0x20 && c !== 9 && c !== 10 && c !== 13 && c !== 12 && c !== 11 && c !== 0x1b)) {
      bad++;
      if (first < 0) first = i;
    }
  }
  if (bad > code.length * BINARY_RATIO) {
    throw new CodeInputError(`${label} is not UTF-8 text: ${bad} replacement or control characters, first at offset ${first}`);
  }
}

/** Whether the language (given, or from the file name) is C or C++, the grammars that mask macros. */
function mayBeCFamily(language: string | null | undefined, filename: string | null | undefined): boolean {
  const id = language && language.trim() ? normalizeLanguage(language) : filename ? languageFromFilename(filename) : null;
  return (id === 'c' || id === 'cpp') && Boolean(LANGUAGES[id]!.compact?.bareCalls);
}

/** Parse one file and extract units, imports and elision edits (no rendering). */
export function analyzeInternal(input: AnalyzeInput, filename?: string | null, withTokens = true): Analyzed {
  assertText(input.content, input.path || 'code');
  const content = normalizeNewlines(input.content.charCodeAt(0) === 0xfeff ? input.content.slice(1) : input.content);
  // C-family masking (cmask.ts) is the same for C and C++: detect on the masked text, so a `.h`
  // is judged on what the parser will see, and the winner's probe-sized tree is reused.
  const cFamilyMask = mayBeCFamily(input.language, filename ?? input.path) ? maskBareCalls(content) : null;
  const detected = detectLanguage(cFamilyMask ? cFamilyMask.text : content, input.language, filename ?? input.path);
  let parser: ParserPath = 'line-fallback';
  let parseErrors = 0;
  let extraction: Extraction;
  if (content.trim().length === 0) {
    extraction = emptyExtraction();
    parser = detected.grammar ? 'tree-sitter' : 'line-fallback';
  } else if (detected.grammar) {
    const spec = LANGUAGES[detected.language]!;
    const masked = spec.compact?.bareCalls ? (cFamilyMask ?? maskBareCalls(content)) : null;
    const tree = parse(spec.id, masked ? masked.text : content);
    parseErrors = countErrors(tree);
    extraction = extract(spec, tree, content, input.path);
    if (masked) foldBareCalls(content, masked.calls, extraction.compact);
    parser = 'tree-sitter';
  } else {
    extraction = extractByLines(content, input.path);
  }
  const analysis: FileAnalysis = {
    path: input.path,
    language: detected.language,
    parser,
    content,
    units: extraction.units,
    imports: extraction.imports,
    parseErrors,
    lines: computeLineStarts(content).length,
    // Tokenising is a large share of the per-file cost; the single-file path counts the original itself.
    tokens: withTokens ? countTokens(content) : -1,
    skeleton: '',
    outline: '',
  };
  return { analysis, extraction };
}

/** Per-file work for the pool: parse, extract, render balanced skeleton and outline. Structured-cloneable. */
export function analyzeFile(input: AnalyzeInput): FileAnalysis {
  const { analysis, extraction } = analyzeInternal(input);
  analysis.skeleton = renderSkeleton(analysis.content, extraction, levelChoice(extraction, 'balanced'));
  analysis.outline = renderSkeleton(analysis.content, extraction, levelChoice(extraction, 'outline'));
  return analysis;
}

export function analyzeFiles(files: AnalyzeInput[]): FileAnalysis[] {
  return files.map((f) => analyzeFile(f));
}

// Synthetic test cases without a model: from a document, one case per passage whose expectation is
// the passage's salient terms (a faithful answer mentions them); from a template alone, typed sample
// values for each variable (one case per sample set, expectations left to the caller).
import { STOPWORDS } from '../shared/stopwords.js';
import type { VariableSpec } from './templates.js';
import type { CaseExpectation } from './scoring.js';

export interface SyntheticCase extends CaseExpectation {
  variables: Record<string, unknown>;
  source?: string;
}

/** A passage shorter than this says too little to test against. */
export const MIN_PASSAGE_WORDS = 8;

/** Paragraphs, or when the text has few, groups of sentences of roughly even size. */
export function passages(text: string, count: number): string[] {
  const long = (p: string) => p.split(' ').length >= MIN_PASSAGE_WORDS;
  let parts = text.split(/\n\s*\n/).map((p) => p.replace(/\s+/g, ' ').trim()).filter(long);
  if (parts.length < count) {
    const sentences = text.replace(/\s+/g, ' ').match(/[^.!?]+[.!?]+|[^.!?]+$/g)?.map((s) => s.trim()).filter(Boolean) ?? [];
    const per = Math.max(1, Math.ceil(sentences.length / count));
    const grouped: string[] = [];
    for (let i = 0; i < sentences.length; i += per) grouped.push(sentences.slice(i, i + per).join(' '));
    if (grouped.filter(long).length > parts.length) parts = grouped.filter(long);
  }
  return parts.slice(0, count);
}

/** The passage's most frequent content words (ties: first seen), the terms a faithful output keeps. */
export function salientTerms(passage: string, k: number): string[] {
  const counts = new Map<string, { n: number; first: number; form: string }>();
  const words = passage.match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? [];
  words.forEach((w, i) => {
    const lower = w.toLowerCase();
    if (lower.length < 4 || STOPWORDS.has(lower) || /^\d+$/.test(lower)) return;
    const c = counts.get(lower);
    if (c) c.n++;
    else counts.set(lower, { n: 1, first: i, form: lower });
  });
  return [...counts.values()].sort((a, b) => b.n - a.n || a.first - b.first).slice(0, k).map((c) => c.form);
}

const SAMPLES: Record<string, unknown[]> = {
  string: ['example text', 'a longer example sentence for the prompt', ''],
  scalar: ['example', 42, true],
  number: [0, 3.5, -1],
  integer: [0, 1, 100],
  boolean: [true, false, true],
  array: [[], ['one'], ['one', 'two']],
  object: [{}, { name: 'example' }, { name: 'example', value: 1 }],
  any: ['example', ['one'], false],
};

/**
 * Cases for a template's variables. With a document, the first string-like variable (or the one
 * named) carries each passage; others get typed samples.
 */
export function syntheticCases(input: { variables: VariableSpec[]; document: string | null; documentVariable: string | null; count: number; terms: number }): SyntheticCase[] {
  const { variables, count } = input;
  const carrier = input.document === null ? null : input.documentVariable ?? variables.find((v) => v.type === 'string' || v.type === 'scalar' || v.type === 'any')?.name ?? 'document';
  const chunks = input.document === null ? [] : passages(input.document, count);
  const n = input.document === null ? count : chunks.length;
  const cases: SyntheticCase[] = [];
  for (let i = 0; i < n; i++) {
    const values: Record<string, unknown> = {};
    for (const v of variables) if (v.name !== carrier) values[v.name] = SAMPLES[v.type]![i % 3];
    if (carrier !== null) {
      values[carrier] = chunks[i]!;
      cases.push({ variables: values, contains: salientTerms(chunks[i]!, input.terms), source: `passage ${i + 1}` });
    } else {
      cases.push({ variables: values, source: `typed sample ${i + 1}` });
    }
  }
  return cases;
}

// Lexical terms for similarity and BM25 (not billing tokens: those come from the BPE tokenizer).
import { STOPWORDS } from '../shared/stopwords.js';

const WORD = /[\p{L}\p{N}_]+/gu;

/** Crude suffix folding so "connections"/"connection" match; cheap and language-agnostic enough. */
function fold(w: string): string {
  if (w.length > 4 && w.endsWith('ies')) return w.slice(0, -3) + 'y';
  if (w.length > 5 && w.endsWith('ing')) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith('ed')) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us')) return w.slice(0, -1);
  return w;
}

/** Lower-cased, stop-word-free, suffix-folded terms; identifiers are also split on camelCase/snake_case. */
function normalise(raw: string): string[] {
  const out: string[] = [];
  const lower = raw.toLowerCase();
  if (lower.length > 1 && !STOPWORDS.has(lower)) out.push(fold(lower));
  if (raw.length > 3 && (/[a-z][A-Z]/.test(raw) || raw.includes('_'))) {
    for (const part of raw.split(/_|(?<=[a-z])(?=[A-Z])/)) {
      const p = part.toLowerCase();
      if (p.length > 1 && p !== lower && !STOPWORDS.has(p)) out.push(fold(p));
    }
  }
  return out;
}

// Word forms repeat heavily within and across documents; normalising each distinct form once is the cheap path.
const MEMO_LIMIT = 100_000;
const memo = new Map<string, string[]>();

export function terms(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(WORD)) {
    const raw = m[0];
    let t = memo.get(raw);
    if (t === undefined) {
      t = normalise(raw);
      if (memo.size >= MEMO_LIMIT) memo.clear();
      memo.set(raw, t);
    }
    for (let k = 0; k < t.length; k++) out.push(t[k]!);
  }
  return out;
}

/** Maps string terms to dense integer ids so the graph and BM25 work on Int32Arrays. */
export class Vocabulary {
  private ids = new Map<string, number>();
  id(term: string): number {
    let v = this.ids.get(term);
    if (v === undefined) {
      v = this.ids.size;
      this.ids.set(term, v);
    }
    return v;
  }
  lookup(term: string): number | undefined {
    return this.ids.get(term);
  }
  get size(): number {
    return this.ids.size;
  }
  encode(list: string[]): number[] {
    return list.map((t) => this.id(t));
  }
}

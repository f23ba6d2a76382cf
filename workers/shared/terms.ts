// Lexical terms for similarity and BM25 (not billing tokens: those come from the BPE tokenizer).
import { STOPWORDS } from './stopwords.js';

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

/** Terms of one raw word form. */
function formTerms(raw: string): string[] {
  let t = memo.get(raw);
  if (t === undefined) {
    t = normalise(raw);
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(raw, t);
  }
  return t;
}

export function terms(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(WORD)) {
    const t = formTerms(m[0]);
    for (let k = 0; k < t.length; k++) out.push(t[k]!);
  }
  return out;
}

// Word characters ([\p{L}\p{N}_]) by code unit: ASCII up front, the rest decided once on first sight.
const WORD_CHAR = /^[\p{L}\p{N}_]$/u;
const BMP_CLASS = new Uint8Array(0x10000); // 0 unknown, 1 word, 2 not
for (let c = 0; c < 128; c++) BMP_CLASS[c] = WORD_CHAR.test(String.fromCharCode(c)) ? 1 : 2;

/** Length of the word character at `i` (1, or 2 for an astral one), 0 when it is not a word character. */
function wordCharAt(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return WORD_CHAR.test(s.slice(i, i + 2)) ? 2 : 0;
  }
  let k = BMP_CLASS[c]!;
  if (k === 0) BMP_CLASS[c] = k = WORD_CHAR.test(String.fromCharCode(c)) ? 1 : 2;
  return k === 1 ? 1 : 0;
}

/** Maps string terms to dense integer ids so the graph and BM25 work on Int32Arrays. */
export class Vocabulary {
  private ids = new Map<string, number>();
  /**
   * Term ids of each raw word form met so far (a form repeats many times in one text), found by
   * hashing the form's characters in place: no substring per word.
   */
  private formRaw: string[] = [];
  private formIds: number[][] = [];
  private formSlot = new Int32Array(2 << 10); // [hash, form + 1] pairs; form 0 = empty

  private formAt(text: string, start: number, end: number): number[] {
    let h = 0x811c9dc5;
    for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
    const slots = this.formSlot;
    const mask = slots.length - 2;
    let k = (h << 1) & mask;
    for (; slots[k + 1] !== 0; k = (k + 2) & mask) {
      if (slots[k] !== h) continue;
      const x = slots[k + 1]! - 1;
      const raw = this.formRaw[x]!;
      if (raw.length !== end - start) continue;
      let i = 0;
      while (i < raw.length && raw.charCodeAt(i) === text.charCodeAt(start + i)) i++;
      if (i === raw.length) return this.formIds[x]!;
    }
    const raw = text.slice(start, end);
    const ids = this.encode(formTerms(raw));
    this.formRaw.push(raw);
    this.formIds.push(ids);
    slots[k] = h;
    slots[k + 1] = this.formRaw.length;
    if (this.formRaw.length * 4 > slots.length) this.growForms();
    return ids;
  }

  private growForms(): void {
    const old = this.formSlot;
    const slots = new Int32Array(old.length * 2);
    const mask = slots.length - 2;
    for (let j = 0; j < old.length; j += 2) {
      if (old[j + 1] === 0) continue;
      let k = (old[j]! << 1) & mask;
      while (slots[k + 1] !== 0) k = (k + 2) & mask;
      slots[k] = old[j]!;
      slots[k + 1] = old[j + 1]!;
    }
    this.formSlot = slots;
  }
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
  /** Same as encode(terms(text.slice(start, end))), scanning the text in place. */
  encodeSpan(text: string, start: number, end: number): number[] {
    const out: number[] = [];
    for (let i = start; i < end; ) {
      let w = wordCharAt(text, i);
      if (w === 0) {
        i++;
        continue;
      }
      let e = i;
      while (w > 0 && e + w <= end) {
        e += w;
        w = e < end ? wordCharAt(text, e) : 0;
      }
      if (e === i) {
        i++;
        continue;
      }
      const ids = this.formAt(text, i, e);
      for (let k = 0; k < ids.length; k++) out.push(ids[k]!);
      i = e;
    }
    return out;
  }
}

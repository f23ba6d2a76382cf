// Line-aware segmentation of markdown-ish text into claim-sized segments with offsets, lines and sections.
// Markdown structure (heading hashes, list bullets, quote markers, table pipes, code fences) and the text
// engine's elision markers are masked out, so only the words that carry meaning are aligned and checked.
import { splitSentences } from '../text/sentences.js';

export type SegmentKind = 'heading' | 'prose' | 'row' | 'code';

export interface Segment {
  kind: SegmentKind;
  /** Offsets into the raw text ([start, end)). */
  start: number;
  end: number;
  /** 1-based line of `start`. */
  line: number;
  /** Cleaned text (markdown markers masked, whitespace collapsed). */
  text: string;
  /** Index (into the segment list) of the nearest enclosing heading, -1 when none. */
  section: number;
  /** Heading level (headings only; 0 otherwise). */
  level: number;
}

/**
 * The text engine's elision markers (`[… Install, Usage +3 more: 212 tokens #482913650271.0]`, see
 * workers/text/render.ts elisionMarker), the older `[… 3 sentences, 212 tokens]`, the ASCII spelling
 * `[... 3 sentences]` and a bare `[…]` / `[...]`.
 */
const COUNTED = /\[(?:…|\.\.\.)(?:\s+\d[\d,]*\s+(?:headings?|sentences?|rows?|code lines?|blocks?|tokens?|lines?|paragraphs?|items?|keys?|words?|chars?|characters?)(?:,\s*\d[\d,]*\s+(?:headings?|sentences?|rows?|code lines?|blocks?|tokens?|lines?|paragraphs?|items?|keys?|words?|chars?|characters?))*)?\s*(?:omitted|elided|dropped)?\s*\]/;
const NAMED = /\[…\s+(?:[^\]\n:]{1,200}:\s+)?\d[\d,]*\s+tokens?(?:\s+#\d+\.\d+)?\]/;
export const ELISION = new RegExp(`${COUNTED.source}|${NAMED.source}`, 'g');

const FENCE = /^ {0,3}(`{3,}|~{3,})/;
const ATX = /^( {0,3}#{1,6})(?:[ \t]+|$)/;
const SETEXT = /^ {0,3}([=\-*~^"#+])\1{2,}\s*$/;
const RULE_OR_FENCE_ONLY = /^\s*([-*_=~`#])\1*\s*$/;
const RULE = /^ {0,3}([-*_=~])(?:\s*\1){2,}\s*$/;
/** Tested on the trimmed line (no leading/trailing whitespace, so no ambiguous whitespace runs). */
const TABLE_DELIM_TRIMMED = /^(?:\|\s*)?:?-{2,}:?(?:\s*\|\s*:?-+:?)*\s*\|?$/;
const isTableDelim = (line: string) => TABLE_DELIM_TRIMMED.test(line.trim());
const LIST_ITEM = /^(\s*(?:[-*+•]|\d{1,3}[.)])[ \t]+(?:\[[ xX]\][ \t]+)?)/;
const QUOTE = /^( {0,3}(?:>\s?)+)/;
const ADMONITION = /^\s*\[!(\w+)\]\s*$/;

const blank = (s: string) => s.trim() === '';

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/** 1-based line of a character offset (binary search over line starts). */
export function lineOf(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** Collapse whitespace; the common normal form for verbatim (substring) checks. */
export function normalize(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/**
 * Very long whitespace-free runs ("a.a.a.…", minified text) are masked (same length, last character
 * kept) before sentence splitting: the splitter's URL/path masking backtracks quadratically on them,
 * and such a run holds no sentence boundary worth finding.
 */
function tame(piece: string): string {
  return piece.length < LONG_TOKEN ? piece : piece.replace(LONG_RUN, (m) => 'x'.repeat(m.length - 1) + m[m.length - 1]);
}
const LONG_TOKEN = 160;
const LONG_RUN = /\S{160,}/g;

export interface Segmented {
  raw: string;
  segments: Segment[];
  /** Whole text with markers masked, whitespace collapsed: verbatim checks run `includes` on it. */
  norm: string;
  lineStarts: number[];
}

/**
 * Segments text. Every kept piece maps to a raw offset range; masking is done on a same-length copy
 * so offsets, and so lines, stay those of the raw text.
 */
export function segmentText(raw: string): Segmented {
  const starts = lineStarts(raw);
  // Masking is recorded as edits ([from, to) -> spaces, newlines kept) and applied once: cheaper than
  // a per-character array on large inputs.
  const edits: [number, number][] = [];
  const blankOut = (from: number, to: number) => {
    if (to > from) edits.push([from, to]);
  };
  const apply = (list: [number, number][]) => {
    if (!list.length) return raw;
    list.sort((a, b) => a[0] - b[0]);
    let out = '';
    let at = 0;
    for (const [a0, b] of list) {
      const a = Math.max(a0, at);
      if (b <= a) continue;
      out += raw.slice(at, a) + raw.slice(a, b).replace(/[^\n]/g, ' ');
      at = b;
    }
    return out + raw.slice(at);
  };
  // Elision markers: masked, and remembered as hard breaks between segments.
  const breaks: number[] = [];
  for (const m of raw.matchAll(ELISION)) {
    blankOut(m.index!, m.index! + m[0].length);
    breaks.push(m.index!);
  }
  const masked0 = apply(edits.slice());
  const lines: { start: number; end: number }[] = starts.map((s, i) => {
    let e = i + 1 < starts.length ? starts[i + 1]! - 1 : raw.length;
    if (e > s && raw[e - 1] === '\r') e--;
    return { start: s, end: e };
  });
  const L = (i: number) => masked0.slice(lines[i]!.start, lines[i]!.end);

  const segments: Segment[] = [];
  const kinds: ('heading' | 'prose' | 'row' | 'code' | 'skip')[] = new Array(lines.length).fill('skip');
  const levels = new Int32Array(lines.length);
  // Pass 1: classify lines, mask structural markers in `chars`.
  let fence: RegExp | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = L(i);
    const { start } = lines[i]!;
    if (fence) {
      if (fence.test(line)) {
        fence = null;
        blankOut(start, lines[i]!.end);
      } else if (!blank(line)) kinds[i] = 'code';
      continue;
    }
    if (blank(line)) continue;
    // "Title" + underline ("=====", "-----", "~~~~~", "*****"): a heading; checked before fences so
    // an RST "~~~" underline does not open a code block (as the text engine's parser does).
    if (i + 1 < lines.length && SETEXT.test(L(i + 1)) && !RULE_OR_FENCE_ONLY.test(line) && !LIST_ITEM.test(line) && !line.includes('|') &&
        line.trim().length <= 120 && (i === 0 || blank(L(i - 1)) || kinds[i - 1] !== 'prose')) {
      kinds[i] = 'heading';
      const u = L(i + 1).trim()[0]!;
      levels[i] = '=*#'.includes(u) ? 1 : u === '-' ? 2 : 3;
      blankOut(lines[i + 1]!.start, lines[i + 1]!.end);
      i++;
      continue;
    }
    const f = FENCE.exec(line);
    if (f) {
      const ch = f[1]![0]!;
      fence = new RegExp(`^ {0,3}\\${ch}{${f[1]!.length},}\\s*$`);
      blankOut(start, lines[i]!.end);
      continue;
    }
    const atx = ATX.exec(line);
    if (atx) {
      blankOut(start, start + atx[0].length);
      // closing hashes: "## Title ##"
      const close = /\s+#+\s*$/.exec(line);
      if (close) blankOut(start + close.index, lines[i]!.end);
      kinds[i] = 'heading';
      levels[i] = atx[1]!.trim().length;
      continue;
    }
    if (i > 0 && SETEXT.test(line) && (kinds[i - 1] === 'prose') && (i < 2 || blank(L(i - 2)) || kinds[i - 2] === 'skip')) {
      // "Title\n=====" : the previous line becomes a heading.
      kinds[i - 1] = 'heading';
      levels[i - 1] = '=*#'.includes(line.trim()[0]!) ? 1 : line.trim()[0] === '-' ? 2 : 3;
      blankOut(start, lines[i]!.end);
      continue;
    }
    if (RULE.test(line)) {
      blankOut(start, lines[i]!.end);
      continue;
    }
    if (isTableDelim(line) && line.includes('-') && (line.includes('|') || (i > 0 && L(i - 1).includes('|')))) {
      blankOut(start, lines[i]!.end);
      continue;
    }
    let off = 0;
    const q = QUOTE.exec(line);
    if (q) {
      blankOut(start, start + q[0].length);
      off = q[0].length;
    }
    const rest = line.slice(off);
    const adm = ADMONITION.exec(rest);
    if (adm) {
      // GitHub admonition "> [!WARNING]": the word stays (it is a warning cue) and leads the next sentence.
      kinds[i] = 'prose';
      breaks.push(start);
      continue;
    }
    const li = LIST_ITEM.exec(rest);
    if (li) blankOut(start + off, start + off + li[0].length);
    if (rest.includes('|') && (/^\s*\|/.test(rest) || (i + 1 < lines.length && isTableDelim(L(i + 1))) || (i > 0 && kinds[i - 1] === 'row'))) {
      // Table row: pipes become spaces; each row is one segment.
      for (let k = raw.indexOf('|', start + off); k >= 0 && k < lines[i]!.end; k = raw.indexOf('|', k + 1)) if (raw[k - 1] !== '\\') edits.push([k, k + 1]);
      kinds[i] = 'row';
      continue;
    }
    kinds[i] = 'prose';
    if (li) breaks.push(start); // a list item always starts a new segment run
  }
  const masked = apply(edits);
  breaks.sort((a, b) => a - b);

  // Pass 2: emit segments.
  let section = -1;
  const push = (kind: SegmentKind, s: number, e: number, level = 0) => {
    while (s < e && /\s/.test(masked[s]!)) s++;
    while (e > s && /\s/.test(masked[e - 1]!)) e--;
    if (e <= s) return;
    const text = normalize(masked.slice(s, e));
    if (!text || !/[\p{L}\p{N}]/u.test(text)) return;
    segments.push({ kind, start: s, end: e, line: lineOf(starts, s), text, section: kind === 'heading' ? -1 : section, level });
    if (kind === 'heading') {
      segments[segments.length - 1]!.section = segments.length - 1;
      section = segments.length - 1;
    }
  };
  const emitProse = (s: number, e: number) => {
    // Cut at elision markers / list starts, then split sentences on the masked copy.
    const cuts = [s];
    let lo = 0, hi = breaks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (breaks[mid]! <= s) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < breaks.length && breaks[k]! < e; k++) if (breaks[k] !== cuts[cuts.length - 1]) cuts.push(breaks[k]!);
    cuts.push(e);
    for (let k = 0; k + 1 < cuts.length; k++) {
      const a = cuts[k]!;
      const piece = masked.slice(a, cuts[k + 1]!);
      for (const sp of splitSentences(tame(piece))) push('prose', a + sp.start, a + sp.end);
    }
  };
  let runStart = -1;
  let runEnd = -1;
  const flush = () => {
    if (runStart >= 0) emitProse(runStart, runEnd);
    runStart = -1;
  };
  for (let i = 0; i < lines.length; i++) {
    const k = kinds[i];
    const { start, end } = lines[i]!;
    if (k === 'prose') {
      if (runStart < 0) runStart = start;
      runEnd = end;
      continue;
    }
    flush();
    if (k === 'heading') push('heading', start, end, levels[i]!);
    else if (k === 'row' || k === 'code') push(k, start, end);
  }
  flush();
  return { raw, segments, norm: normalize(masked), lineStarts: starts };
}

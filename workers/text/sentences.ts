// Sentence splitter that survives abbreviations, initials, decimals, versions, URLs, paths and code spans.

export interface Span {
  start: number;
  end: number;
}

// Abbreviations that never end a sentence even when followed by a capital ("e.g. Python", "Dr. Smith").
const ABBREVIATIONS = new Set(
  (
    'e.g i.e cf vs al dr mr mrs ms prof sr jr st mt fig figs no nos vol vols eq eqs sec ch approx ' +
    'inc ltd co corp dept est univ jan feb mar apr jun jul aug sep sept oct nov dec p pp ed eds ref refs resp ' +
    'u.s u.k a.k.a viz ca'
  ).split(' '),
);

const URL_OR_PATH = /\b(?:https?|ftp|file):\/\/[^\s<>()]*[^\s<>().,;:!?'"]|(?:~|\.{1,2})?\/[\w.-]+(?:\/[\w.-]+)+|\b(?=[\w-]*\.)[\w-]+(?:\.[\w-]+)+\/[\w./-]*/g;
const CODE_SPAN = /(`+)[^`]*?\1/g;
const BOUNDARY = /[.!?…]+["'”’)\]]*(?=\s)|[.!?…]+["'”’)\]]*$/g;
const SENTENCE_START = /^[\p{Lu}\p{N}"'“‘(\[*_`#>\-•]/u;
/** Over-long "sentences" (tables flattened to one line, minified text) are cut so selection stays fine-grained. */
const MAX_SENTENCE_CHARS = 600;

/** Space-free runs this long hold no sentence boundary, and would make the URL pattern backtrack quadratically. */
const LONG_RUN = 160;
const SPACE = /\s/;

/** `text` with every run of LONG_RUN or more non-space characters replaced by filler (a scan, not /\S{160,}/, which retries at every position). */
function maskLongRuns(text: string, fill: (m: string) => string): string {
  let out = '';
  let copied = 0;
  let run = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    const space = c === 32 || c === 10 || c === 9 || c === 13 || (c > 127 || c === 11 || c === 12 ? SPACE.test(text[i]!) : false);
    if (!space) {
      run++;
      continue;
    }
    if (run >= LONG_RUN) {
      out += text.slice(copied, i - run) + fill(text.slice(i - run, i));
      copied = i;
    }
    run = 0;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

/** Replace long runs, code spans and URLs/paths with same-length filler so their dots are never boundaries. */
function mask(text: string): string {
  const fill = (m: string) => 'x'.repeat(m.length);
  return maskLongRuns(text, fill).replace(CODE_SPAN, fill).replace(URL_OR_PATH, fill);
}

function isAbbreviation(before: string): boolean {
  const word = /([\p{L}.]+)$/u.exec(before)?.[1];
  if (!word) return false;
  const w = word.toLowerCase().replace(/\.+$/, '');
  if (ABBREVIATIONS.has(w)) return true;
  if (/^\p{Lu}$/u.test(word)) return true; // initial: "J. Smith"
  if (/^(\p{L}\.)+\p{L}$/u.test(word)) return true; // dotted acronym: "U.S.A", "e.g"
  return false;
}

function trimSpan(text: string, start: number, end: number): Span | null {
  while (start < end && /\s/.test(text[start]!)) start++;
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  return end > start ? { start, end } : null;
}

/**
 * Cut a long span at a line break, else clause punctuation, else whitespace, near MAX_SENTENCE_CHARS.
 * Line breaks first: a long "sentence" with many of them is JSON, a log or a listing, whose pieces
 * must stay whole lines (cut at a space, a kept piece began mid-line: `"id": [… 2244 tokens] "2026-…"`).
 */
function cutLong(text: string, span: Span, out: Span[]): void {
  let { start } = span;
  const { end } = span;
  while (end - start > MAX_SENTENCE_CHARS) {
    const window = text.slice(start, start + MAX_SENTENCE_CHARS);
    let cut = -1;
    for (const re of [/\n/g, /[;:,]\s/g, /\s/g]) {
      let m: RegExpExecArray | null;
      let last = -1;
      while ((m = re.exec(window))) if (m.index > MAX_SENTENCE_CHARS / 3) last = m.index + 1;
      if (last > 0) {
        cut = last;
        break;
      }
    }
    if (cut < 0) cut = MAX_SENTENCE_CHARS;
    const piece = trimSpan(text, start, start + cut);
    if (piece) out.push(piece);
    start += cut;
  }
  const rest = trimSpan(text, start, end);
  if (rest) out.push(rest);
}

/** Sentence spans (offsets into `text`), trimmed, in order, covering all non-space text. */
export function splitSentences(text: string): Span[] {
  const masked = mask(text);
  const spans: Span[] = [];
  let start = 0;
  BOUNDARY.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = BOUNDARY.exec(masked))) {
    const end = m.index + m[0].length;
    if (end >= masked.length) break;
    let next = end;
    while (next < masked.length && /\s/.test(masked[next]!)) next++;
    if (!SENTENCE_START.test(text.slice(next, next + 2))) continue;
    if (m[0].startsWith('.') && m[0].length === 1 && isAbbreviation(masked.slice(Math.max(0, m.index - 20), m.index))) continue;
    const s = trimSpan(text, start, end);
    if (s) spans.push(s);
    start = end;
  }
  const last = trimSpan(text, start, text.length);
  if (last) spans.push(last);
  const out: Span[] = [];
  for (const s of spans) {
    if (s.end - s.start > MAX_SENTENCE_CHARS) cutLong(text, s, out);
    else out.push(s);
  }
  return out;
}

/** Convenience for tests and callers that want strings. */
export function sentences(text: string): string[] {
  return splitSentences(text).map((s) => text.slice(s.start, s.end));
}

/** Small text helpers shared by the walker, fallback and renderers. */

export interface Edit {
  start: number;
  end: number;
  text: string;
  /** An elision shown with an ellipsis: what it hides, for a navigable marker (docs/markers.md). */
  mark?: Mark;
}

export interface Mark {
  /** The hidden source span [from, to): what the marker's id expands to. */
  from: number;
  to: number;
  /** Where in the edit's text the marker's label goes (after its ellipsis). */
  at: number;
  /** A Python `...`: the label goes in a `# …` comment so the line stays valid. */
  comment: boolean;
}

/**
 * Mark an elision edit as navigable: the label goes after a trailing Python `...` (as a comment) or
 * else after the text's last `…` (`{ … }`, a cut doc's ` …`).
 */
export function navigable(edit: Edit, from: number, to: number): Edit {
  const comment = edit.text.endsWith('...');
  const at = comment ? edit.text.length : edit.text.lastIndexOf('…') + 1;
  if (at > 0) edit.mark = { from, to, at, comment };
  return edit;
}

/**
 * The label of the n-th applied marked edit (inserted at mark.at), or null to keep the source it
 * would hide instead (a marker that costs more than it hides).
 */
export type Labeler = (edit: Edit & { mark: Mark }, n: number) => string | null;

/**
 * Apply non-overlapping edits (later overlapping ones are skipped) and tidy blank lines. With a
 * labeler, marked edits carry their label and their hidden spans are appended to `spans`.
 */
export function applyEdits(source: string, edits: Edit[], label?: Labeler, spans?: number[]): string {
  const sorted = [...edits].sort((a, b) => a.start - b.start || b.end - a.end);
  const parts: string[] = [];
  let pos = 0;
  let n = 0;
  for (const edit of sorted) {
    if (edit.start < pos) continue; // nested inside an earlier edit
    let text = edit.text;
    if (label && edit.mark) {
      const inserted = label(edit as Edit & { mark: Mark }, n);
      if (inserted === null) continue;
      text = text.slice(0, edit.mark.at) + inserted + text.slice(edit.mark.at);
      spans?.push(edit.mark.from, edit.mark.to);
      n++;
    }
    parts.push(source.slice(pos, edit.start), text);
    pos = edit.end;
  }
  parts.push(source.slice(pos));
  return tidy(parts.join(''));
}

/** Collapse whitespace-only lines and runs of blank lines left behind by deletions. */
export function tidy(text: string): string {
  return text.replace(/\n[ \t]+(?=\n)/g, '\n').replace(/\n{3,}/g, '\n\n').replace(/^\n+/, '');
}

/** Widen [start,end) to whole lines when nothing else shares them, so deletions leave no stubs. */
export function lineSpan(source: string, start: number, end: number): [number, number] {
  let s = start;
  while (s > 0 && (source[s - 1] === ' ' || source[s - 1] === '\t')) s--;
  const ownsStart = s === 0 || source[s - 1] === '\n';
  // Some grammars (Rust line comments) include the newline in the node.
  if (ownsStart && end > start && source[end - 1] === '\n') return [s, end];
  let e = end;
  while (e < source.length && (source[e] === ' ' || source[e] === '\t')) e++;
  const ownsEnd = e === source.length || source[e] === '\n';
  if (ownsStart && ownsEnd) return [s, Math.min(source.length, e + 1)];
  return [start, end];
}

export function lineStart(source: string, index: number): number {
  return source.lastIndexOf('\n', index - 1) + 1;
}

/** Indentation (spaces/tabs) of the line containing index. */
export function indentAt(source: string, index: number): string {
  const s = lineStart(source, index);
  const m = /^[ \t]*/.exec(source.slice(s, s + 200));
  return m ? m[0] : '';
}

const IDENT = /[A-Za-z_$][A-Za-z0-9_$]*/g;

/** Distinct identifiers in a span of text, minus language keywords, capped so huge units stay cheap. */
export function identifiersIn(text: string, keywords: Set<string>, cap = 400): string[] {
  const seen = new Set<string>();
  IDENT.lastIndex = 0;
  for (let m = IDENT.exec(text); m; m = IDENT.exec(text)) {
    const word = m[0];
    if (word.length < 2 || keywords.has(word)) continue;
    seen.add(word);
    if (seen.size >= cap) break;
  }
  return [...seen];
}

/** Split camelCase, PascalCase, snake_case and digits into lower-case terms. */
export function splitIdentifier(word: string): string[] {
  const parts = word
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+|_/)
    .filter((p) => p.length > 0)
    .map((p) => p.toLowerCase());
  const whole = word.toLowerCase();
  if (parts.length > 1 && /^[a-z0-9_$]+$/i.test(word)) parts.push(whole.replace(/[^a-z0-9]/g, ''));
  return parts;
}

/** Normalise line endings: CRLF and lone CR become LF. */
export function normalizeNewlines(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

export function lineOf(lineStarts: number[], index: number): number {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lineStarts[mid]! <= index) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

export function computeLineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

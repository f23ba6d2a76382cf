// Navigable elision markers: the names a marker shows and the id that expands it (docs/markers.md).
import { createHash } from 'node:crypto';

/**
 * A marker id is `<ref>.<n>`: ref is REF_DIGITS decimal digits, n the marker's ordinal in its output.
 * Digits only, because BPE tokenizers split digit runs into groups of three: an id costs the same
 * tokens whatever its digits, so the engine prices markers with the placeholder before the real ref
 * (a hash of the kept layout) is known.
 */
export const REF_DIGITS = 12;
export const REF_PLACEHOLDER = '0'.repeat(REF_DIGITS);
export const MARKER_ID = new RegExp(`^#?(\\d{${REF_DIGITS}})\\.(\\d{1,6})$`);

/** Heading names shown in one marker, and the characters of each. */
export const MAX_NAMES = 2;
const MAX_NAME_CHARS = 28;

/**
 * The readable name of a heading unit's raw text: markup, link targets and setext underline removed, argument lists
 * shortened to `()` (`onFinished(res, listener)` -> `onFinished()`; a parenthesis after a space is
 * prose and keeps its words), and the characters markers are
 * parsed by (`[ ] : #`), other parentheses and commas (which separate a marker's names) removed.
 */
export function headingName(raw: string): string {
  const line = raw.split('\n').map((l) => l.trim()).find((l) => l !== '' && !/^([=\-*_~^"#+])\1*$/.test(l)) ?? '';
  const name = line
    .replace(/^#{1,6}\s*/, '')
    .replace(/\s+#+$/, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    // One pass: an argument list right after a name becomes `()`, any other of these characters a space.
    .replace(/(?<=[\w$])\([^()]*\)|[[\]():#,]/g, (m) => (m.length > 1 ? '()' : ' '))
    .replace(/\s+/g, ' ')
    .trim();
  if (name.length <= MAX_NAME_CHARS) return name;
  const cut = name.slice(0, MAX_NAME_CHARS - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > MAX_NAME_CHARS / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** `1 token`, `3 tokens`: a count and its noun, as markers spell them. */
export const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** `Install, Usage +3 more`: the first names, and how many hidden headings are not shown. */
export function nameList(names: readonly string[], headings: number): string {
  const shown = names.filter(Boolean);
  if (!shown.length) return headings ? `${headings} ${headings === 1 ? 'heading' : 'headings'}` : '';
  return headings > shown.length ? `${shown.join(', ')} +${headings - shown.length} more` : shown.join(', ');
}

/**
 * The ref of one output: a hash of the original text and of the hidden spans, so the same request
 * gets the same ids (the semantic cache stores answers verbatim) and two layouts of one text differ.
 */
export function markerRef(textHash: string, spans: readonly number[]): string {
  const h = createHash('sha256').update(textHash).update('\0').update(spans.join(',')).digest();
  // 48 bits read as an integer, reduced to REF_DIGITS decimal digits (about 40 bits).
  return (h.readUIntBE(0, 6) % 10 ** REF_DIGITS).toString().padStart(REF_DIGITS, '0');
}

export const textHashOf = (text: string) => createHash('sha256').update(text).digest('hex');

/** What the host stores so that `<ref>.<n>` expands to text.slice(spans[2n], spans[2n + 1]). */
export interface MarkerLayout {
  ref: string;
  textHash: string;
  /** Flat [start0, end0, start1, end1, …]: UTF-16 offsets into the original, one pair per marker. */
  spans: number[];
}

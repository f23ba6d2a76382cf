// JSON (and JSON Lines) sent to the text engine: units are whole values, never pieces of two.
// Cut as prose, a pretty-printed array of records came back as one record's opening fields, a marker,
// and another record's closing sentence, read as one record (issue 23's outside inputs).
import { treeUnits, type TreeChild, type TreeSource, type TreeUnits } from './tree.js';

/** A record is named in markers by a value of at most this many characters (jsonLabel). */
const MAX_LABEL_CHARS = 40;

const WS = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

function skipWs(t: string, i: number, end: number): number {
  while (i < end && WS(t.charCodeAt(i))) i++;
  return i;
}

/** End of the string literal whose opening quote is at `i`. */
function stringEnd(t: string, i: number): number {
  for (let k = i + 1; k < t.length; k++) {
    const c = t.charCodeAt(k);
    if (c === 92) k++;
    else if (c === 34) return k + 1;
  }
  return t.length;
}

/** End of the (valid) JSON value starting at `i`; containers are skipped by counting brackets, without recursion. */
function valueEnd(t: string, i: number, end: number): number {
  const c = t.charCodeAt(i);
  if (c === 34) return stringEnd(t, i);
  if (c !== 123 && c !== 91) {
    let k = i;
    while (k < end) {
      const d = t.charCodeAt(k);
      if (WS(d) || d === 44 || d === 93 || d === 125) break;
      k++;
    }
    return k;
  }
  let depth = 0;
  for (let k = i; k < end; k++) {
    const d = t.charCodeAt(k);
    if (d === 34) k = stringEnd(t, k) - 1;
    else if (d === 123 || d === 91) depth++;
    else if (d === 125 || d === 93) if (--depth === 0) return k + 1;
  }
  return end;
}

/** The children of the array or object at [start, end) (valid JSON: `start` is its `{` or `[`). */
function childrenOf(t: string, start: number, end: number): TreeChild[] {
  const array = t.charCodeAt(start) === 91;
  const out: TreeChild[] = [];
  let i = skipWs(t, start + 1, end - 1);
  while (i < end - 1) {
    let key: string | null = null;
    const from = i;
    if (!array) {
      const keyEnd = stringEnd(t, i);
      key = JSON.parse(t.slice(i, keyEnd)) as string;
      i = skipWs(t, skipWs(t, keyEnd, end) + 1, end); // past the colon
    }
    const valueStart = i;
    const stop = valueEnd(t, i, end - 1);
    out.push({ start: from, end: stop, key, valueStart });
    i = skipWs(t, stop, end - 1);
    if (t.charCodeAt(i) === 44) i = skipWs(t, i + 1, end - 1);
  }
  return out;
}

/** Keys whose value names a record (`"id": 1011`, `"name": "getStackTrace"`, `"req_id": "r-20ddf"`). */
export const IDENTITY_KEY = /^(?:id|name|title|key|slug|uuid|login|domain|sku|number|ref)$|[_-]id$|[a-z]Id$/i;
/** Members of a record looked at for its label. */
const LABEL_MEMBERS = 8;

/** A short string or number value at [i, end) as text, else null. */
function shortScalar(t: string, i: number, end: number): string | null {
  if (end - i > MAX_LABEL_CHARS + 2) return null;
  const v = t.charCodeAt(i);
  if (v === 34) return JSON.parse(t.slice(i, end)) as string;
  return v === 45 || (v >= 48 && v <= 57) ? t.slice(i, end) : null;
}

/**
 * A record's label for markers: the short string or number of its first identity member (id, name,
 * title, `…_id`), else of its first short member without a colon (markers lose colons, and a
 * timestamp without them reads badly); '' when it has neither.
 */
function jsonLabel(t: string, c: TreeChild): string {
  if (t.charCodeAt(c.valueStart) !== 123) return '';
  let fallback = '';
  let i = skipWs(t, c.valueStart + 1, c.end);
  for (let m = 0; m < LABEL_MEMBERS && t.charCodeAt(i) === 34; m++) {
    const keyEnd = stringEnd(t, i);
    const key = t.slice(i + 1, keyEnd - 1);
    i = skipWs(t, skipWs(t, keyEnd, c.end) + 1, c.end);
    const end = valueEnd(t, i, c.end);
    const value = shortScalar(t, i, end);
    if (value !== null && value.trim() !== '') {
      if (IDENTITY_KEY.test(key)) return value;
      if (!fallback && !value.includes(':')) fallback = value;
    }
    i = skipWs(t, end, c.end);
    if (t.charCodeAt(i) !== 44) break;
    i = skipWs(t, i + 1, c.end);
  }
  return fallback;
}

/** JSON Lines: at least three lines, each one JSON object or array (a log of records). */
function jsonLines(t: string): TreeChild[] | null {
  const out: TreeChild[] = [];
  let from = 0;
  while (from < t.length) {
    let to = t.indexOf('\n', from);
    if (to < 0) to = t.length;
    const line = t.slice(from, to).trim();
    if (line) {
      const c = line[0];
      if (c !== '{' && c !== '[') return null;
      try {
        JSON.parse(line);
      } catch {
        return null;
      }
      const start = from + t.slice(from, to).indexOf(c);
      out.push({ start, end: start + line.length, key: null, valueStart: start });
    }
    from = to + 1;
  }
  return out.length >= 3 ? out : null;
}

/** The document's top-level children when `text` is one JSON array or object, or JSON Lines; else null. */
function topLevel(text: string): { start: number; end: number; array: boolean; children: TreeChild[] } | null {
  const first = text.search(/\S/);
  if (first < 0) return null;
  const open = text[first];
  if (open !== '{' && open !== '[') return null;
  let last = text.length - 1;
  while (last > first && WS(text.charCodeAt(last))) last--;
  const close = text[last];
  if ((open === '{' && close === '}') || (open === '[' && close === ']')) {
    try {
      JSON.parse(text);
      return { start: first, end: last + 1, array: open === '[', children: childrenOf(text, first, last + 1) };
    } catch {
      // not one JSON value: maybe JSON Lines
    }
  }
  const lines = text.includes('\n') ? jsonLines(text) : null;
  return lines ? { start: first, end: last + 1, array: true, children: lines } : null;
}

/** How JSON values open: a string into its sentences (inside its quotes), an array or object into its children. */
function jsonSource(text: string): TreeSource {
  return {
    format: 'json',
    open: (c) => {
      const v = text.charCodeAt(c.valueStart);
      if (v === 34) return { sentences: [c.valueStart + 1, c.end - 1] };
      if (v !== 123 && v !== 91) return null;
      return { kind: v === 91 ? 'array' : 'object', children: childrenOf(text, c.valueStart, c.end) };
    },
    record: (c) => {
      const v = text.charCodeAt(c.valueStart);
      return v === 123 || v === 91;
    },
    label: (c) => jsonLabel(text, c),
  };
}

/**
 * Units and layout of a JSON document (tree.ts), or null when `text` is not JSON: one array or
 * object that parses, or JSON Lines.
 */
export function jsonUnits(text: string): TreeUnits | null {
  const top = topLevel(text);
  if (!top || top.children.length === 0) return null;
  return treeUnits(text, { start: top.start, end: top.end, kind: top.array ? 'array' : 'object', children: top.children }, jsonSource(text));
}

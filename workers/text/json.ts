// JSON (and JSON Lines) sent to the text engine: units are whole values, never pieces of two.
// Cut as prose, a pretty-printed array of records came back as one record's opening fields, a marker,
// and another record's closing sentence, read as one record (issue 23's outside inputs).
import type { Block } from '../shared/markdown.js';
import { splitSentences } from './sentences.js';
import type { PieceOffsets } from './tokencount.js';
import type { Unit } from './units.js';

/** A run of siblings up to this many characters is one unit (a record of a typical API listing). */
export const JSON_UNIT_CHARS = 600;
/** Containers are opened this many levels deep at most; deeper ones are kept or hidden whole. */
export const MAX_JSON_DEPTH = 8;
/** A record's first value names it in markers (`"name": "getStackTrace"`) when it is at most this long. */
const MAX_LABEL_CHARS = 40;

/** One value of a container: an array element, or an object member (its span starts at the key). */
export interface JsonChild {
  start: number;
  end: number;
  /** The member's key (objects only). */
  key: string | null;
  /** Where the value itself starts (after `"key":`). */
  valueStart: number;
}

/**
 * A value the units are cut inside: an array or object whose parts are units or opened values of
 * their own, or a long string whose parts are its sentences (a log message, a description).
 */
export interface JsonContainer {
  start: number;
  end: number;
  kind: 'array' | 'object' | 'string';
  /** Its key when it is an object member. */
  key: string | null;
  /** Its label when it is a record of an array (jsonLabel). */
  label: string | null;
  /** Units and opened values in document order: a unit as its index, an opened value as an object. */
  parts: (number | JsonContainer)[];
}

/** What units, markers and rendering need of a JSON document. */
export interface JsonLayout {
  root: JsonContainer;
  /** Per unit: how many of its container's children (or sentences) it holds. */
  items: Int32Array;
  /** Per unit: the array elements or object members it holds (none for a string's sentence). */
  members: JsonChild[][];
  /** Per unit: the kind of value it is a part of (what its markers count). */
  kinds: JsonContainer['kind'][];
  /** The text's tokenizer pieces, recorded when it is counted (tokencount.ts tokensBetween). */
  pieces: PieceOffsets;
}

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
function childrenOf(t: string, start: number, end: number): JsonChild[] {
  const array = t.charCodeAt(start) === 91;
  const out: JsonChild[] = [];
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
const IDENTITY_KEY = /^(?:id|name|title|key|slug|uuid|login|domain|sku|number|ref)$|[_-]id$|[a-z]Id$/i;
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
export function jsonLabel(t: string, c: JsonChild): string {
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
function jsonLines(t: string): JsonChild[] | null {
  const out: JsonChild[] = [];
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
function topLevel(text: string): { start: number; end: number; array: boolean; children: JsonChild[] } | null {
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

/**
 * Units and layout of a JSON document, or null when `text` is not JSON. A record (array or object) of
 * up to JSON_UNIT_CHARS is a unit, and consecutive scalars share one up to that size; a larger array or object is opened and its children cut the
 * same way, and a longer string is cut into its sentences. So a record is kept or hidden whole unless
 * it is too large to be one unit. A unit inside an opened value needs the value's first unit (a
 * record's id and name come first), as a sentence needs its heading; each opened value is one block,
 * the section of its units.
 */
export function jsonUnits(text: string): { blocks: Block[]; units: Unit[]; layout: JsonLayout } | null {
  const top = topLevel(text);
  if (!top || top.children.length === 0) return null;
  const blocks: Block[] = [];
  const units: Unit[] = [];
  const items: number[] = [];
  const members: JsonChild[][] = [];
  const kinds: JsonContainer['kind'][] = [];

  const newBlock = (start: number, end: number) => {
    blocks.push({ kind: 'code', start, end, contentStart: start, contentEnd: end, prefix: '', level: 0, lines: [], bodyStart: 0, closeLine: -1, headings: [] });
    return blocks.length - 1;
  };
  const addUnit = (u: Omit<Unit, 'lineCount'>, kind: JsonContainer['kind'], count: number, held: JsonChild[]) => {
    units.push({ ...u, lineCount: count });
    kinds.push(kind);
    items.push(count);
    members.push(held);
    return units.length - 1;
  };
  /** A long string's sentences, each a unit; the first is required by the rest. */
  const openString = (c: JsonChild, leads: number[], label: string | null): JsonContainer | null => {
    const inner = c.valueStart + 1;
    const spans = splitSentences(text.slice(inner, c.end - 1));
    if (spans.length < 2) return null;
    const block = newBlock(c.start, c.end);
    const container: JsonContainer = { start: c.start, end: c.end, kind: 'string', key: c.key, label, parts: [] };
    spans.forEach((s, k) => {
      // The first sentence takes the key and opening quote (the rest needs it); the closing quote is
      // never hidden, so a string cut short still closes.
      const start = k === 0 ? c.start : inner + s.start;
      const end = inner + s.end;
      const requires = k === 0 ? leads : [...leads, container.parts[0] as number];
      container.parts.push(addUnit({ kind: 'sentence', block, start, end, indexInBlock: k, requires }, 'string', 1, []));
    });
    return container;
  };
  const open = (start: number, end: number, kind: 'array' | 'object', key: string | null, label: string | null, children: JsonChild[], depth: number, leads: number[]): JsonContainer => {
    const block = newBlock(start, end);
    const container: JsonContainer = { start, end, kind, key, label, parts: [] };
    const array = kind === 'array';
    // The first unit of an opened (non-root) value is required by the rest of it.
    let lead = -1;
    const requiresNow = () => (lead >= 0 ? [...leads, lead] : leads);
    let group: JsonChild[] = [];
    let chars = 0;
    const flush = () => {
      if (!group.length) return;
      const u = addUnit({ kind: 'value', block, start: group[0]!.start, end: group[group.length - 1]!.end, indexInBlock: container.parts.length, requires: requiresNow() }, kind, group.length, group);
      container.parts.push(u);
      if (lead < 0 && depth > 0) lead = u;
      group = [];
      chars = 0;
    };
    for (const c of children) {
      const size = c.end - c.start;
      const v = text.charCodeAt(c.valueStart);
      const opens = size > JSON_UNIT_CHARS && depth + 1 < MAX_JSON_DEPTH;
      let child: JsonContainer | null = null;
      if (opens && v === 34) {
        flush();
        child = openString(c, requiresNow(), array ? '' : null);
      } else if (opens && (v === 123 || v === 91)) {
        const inner = childrenOf(text, c.valueStart, c.end);
        if (inner.length) {
          flush();
          child = open(c.start, c.end, v === 91 ? 'array' : 'object', c.key, array ? jsonLabel(text, c) : null, inner, depth + 1, requiresNow());
        }
      }
      if (child) {
        container.parts.push(child);
        if (lead < 0 && depth > 0) lead = firstUnit(child);
        continue;
      }
      // Records (arrays and objects) are units of their own, so one error entry of a log is kept or
      // hidden alone; scalars run together (a thousand numbers are not a thousand units).
      const record = v === 123 || v === 91;
      if (group.length && (record || chars + size > JSON_UNIT_CHARS)) flush();
      group.push(c);
      chars += size;
      if (record) flush();
    }
    flush();
    return container;
  };
  const root = open(top.start, top.end, top.array ? 'array' : 'object', null, null, top.children, 0, []);
  if (!units.length) return null;
  return { blocks, units, layout: { root, items: Int32Array.from(items), members, kinds, pieces: { starts: [], through: [] } } };
}

export function firstUnit(c: JsonContainer): number {
  const p = c.parts[0]!;
  return typeof p === 'number' ? p : firstUnit(p);
}

// Structured text (JSON, YAML, XML) as a tree of values: units are whole values, never pieces of
// two. A value small enough is one unit; a larger one is opened and its children cut the same way.
// The format modules (json.ts, yaml.ts, xml.ts; structured.ts tries them) find the values; this
// builds the units, treeRender.ts the output.
import type { Block } from '../shared/markdown.js';
import { splitSentences } from './sentences.js';
import type { PieceOffsets } from './tokencount.js';
import type { Unit } from './units.js';

/** A record up to this many characters is one unit (an entry of a typical API listing); scalars run together up to it. */
export const TREE_UNIT_CHARS = 600;
/** Values are opened this many levels deep at most; deeper ones are kept or hidden whole. */
export const MAX_TREE_DEPTH = 8;

/** One value of a container: an array element, an object member (its span starts at the key), a line. */
export interface TreeChild {
  start: number;
  end: number;
  /** The member's key (object members only). */
  key: string | null;
  /** Where the value itself starts (after `"key":`; the start for anything else). */
  valueStart: number;
}

/** What hidden values are counted as in markers. */
export type TreeKind = 'array' | 'object' | 'string' | 'lines';

/**
 * A value the units are cut inside: an array, object or block whose parts are units or opened
 * values of their own, or a long string whose parts are its sentences.
 */
export interface TreeContainer {
  start: number;
  end: number;
  kind: TreeKind;
  /** Its key when it is an object member. */
  key: string | null;
  /** Its name when it is an element of an array (TreeSource.label). */
  label: string | null;
  /** Units and opened values in document order: a unit as its index, an opened value as an object. */
  parts: (number | TreeContainer)[];
}

/** What a format tells the builder about its values. */
export interface TreeSource {
  format: 'json' | 'yaml' | 'xml';
  /**
   * How a value too large to be one unit opens: its children and what they are, the span of its text
   * to cut into sentences (a JSON string without its quotes), or null when it cannot be opened.
   */
  open(c: TreeChild): { kind: Exclude<TreeKind, 'string'>; children: TreeChild[] } | { sentences: [number, number] } | null;
  /** A record (array, object, a YAML key with lines under it) is a unit of its own; scalars run together. */
  record(c: TreeChild): boolean;
  /** The name markers give an array element ('' when none). */
  label(c: TreeChild): string;
}

/** What units, markers and rendering need of a structured document. */
export interface TreeLayout {
  format: TreeSource['format'];
  root: TreeContainer;
  /** Per unit: the children it holds (none for a sentence, which counts as one). */
  members: TreeChild[][];
  /** Per unit: the kind of value it is a part of (what its markers count). */
  kinds: TreeKind[];
  label: TreeSource['label'];
  /** The text's tokenizer pieces, recorded when it is counted (tokencount.ts tokensBetween). */
  pieces: PieceOffsets;
  /** Per block (each opened value is one): where the value sits, `$.domains[3].commands (Network)`. */
  paths: string[];
}

export interface TreeUnits {
  blocks: Block[];
  units: Unit[];
  layout: TreeLayout;
}

/**
 * Units and layout of a document whose top-level value is `top`. A unit inside an opened value
 * needs the value's first unit (a record's id and name come first), as a sentence needs its
 * heading; each opened value is one block, the section of its units.
 */
export function treeUnits(text: string, top: { start: number; end: number; kind: Exclude<TreeKind, 'string'>; children: TreeChild[] }, source: TreeSource): TreeUnits | null {
  const blocks: Block[] = [];
  const units: Unit[] = [];
  const members: TreeChild[][] = [];
  const kinds: TreeKind[] = [];
  const paths: string[] = [];

  const newBlock = (start: number, end: number, at: ValuePath) => {
    paths.push(at.named ? `${at.path} (${at.named})` : at.path);
    blocks.push({ kind: 'code', start, end, contentStart: start, contentEnd: end, prefix: '', level: 0, lines: [], bodyStart: 0, closeLine: -1, headings: [] });
    return blocks.length - 1;
  };
  const addUnit = (u: Omit<Unit, 'lineCount'>, kind: TreeKind, held: TreeChild[]) => {
    units.push({ ...u, lineCount: Math.max(1, held.length) });
    kinds.push(kind);
    members.push(held);
    return units.length - 1;
  };
  /** A long string's sentences, each a unit; the first is required by the rest. */
  const openString = (c: TreeChild, [inner, innerEnd]: [number, number], leads: number[], label: string | null, at: ValuePath): TreeContainer | null => {
    const spans = splitSentences(text.slice(inner, innerEnd));
    if (spans.length < 2) return null;
    const block = newBlock(c.start, c.end, at);
    const container: TreeContainer = { start: c.start, end: c.end, kind: 'string', key: c.key, label, parts: [] };
    spans.forEach((s, k) => {
      // The first sentence takes the key and opening quote (the rest needs it); the closing quote is
      // never hidden, so a string cut short still closes.
      const start = k === 0 ? c.start : inner + s.start;
      const requires = k === 0 ? leads : [...leads, container.parts[0] as number];
      container.parts.push(addUnit({ kind: 'sentence', block, start, end: inner + s.end, indexInBlock: k, requires }, 'string', []));
    });
    return container;
  };
  const open = (start: number, end: number, kind: Exclude<TreeKind, 'string'>, key: string | null, label: string | null, children: TreeChild[], depth: number, leads: number[], at: ValuePath): TreeContainer => {
    const block = newBlock(start, end, at);
    const container: TreeContainer = { start, end, kind, key, label, parts: [] };
    const array = kind === 'array';
    // The first unit of an opened (non-root) value is required by the rest of it.
    let lead = -1;
    const requiresNow = () => (lead >= 0 ? [...leads, lead] : leads);
    let group: TreeChild[] = [];
    let chars = 0;
    const flush = () => {
      if (!group.length) return;
      const u = addUnit({ kind: 'value', block, start: group[0]!.start, end: group[group.length - 1]!.end, indexInBlock: container.parts.length, requires: requiresNow() }, kind, group);
      container.parts.push(u);
      if (lead < 0 && depth > 0) lead = u;
      group = [];
      chars = 0;
    };
    children.forEach((c, index) => {
      const size = c.end - c.start;
      let child: TreeContainer | null = null;
      const how = size > TREE_UNIT_CHARS && depth + 1 < MAX_TREE_DEPTH ? source.open(c) : null;
      if (how) {
        const label = array ? source.label(c) || null : null;
        const inner = childPath(at, c, index, array, label);
        flush();
        if ('sentences' in how) child = openString(c, how.sentences, requiresNow(), label, inner);
        else if (how.children.length) child = open(c.start, c.end, how.kind, c.key, label, how.children, depth + 1, requiresNow(), inner);
      }
      if (child) {
        container.parts.push(child);
        if (lead < 0 && depth > 0) lead = firstUnit(child);
        return;
      }
      // Records are units of their own, so one error entry of a log is kept or hidden alone;
      // scalars run together (a thousand numbers are not a thousand units).
      const record = source.record(c);
      if (group.length && (record || chars + size > TREE_UNIT_CHARS)) flush();
      group.push(c);
      chars += size;
      if (record) flush();
    });
    flush();
    return container;
  };
  const root = open(top.start, top.end, top.kind, null, null, top.children, 0, [], { path: '$', named: null });
  if (!units.length) return null;
  return {
    blocks,
    units,
    layout: { format: source.format, root, members, kinds, label: source.label, pieces: { starts: [], through: [] }, paths },
  };
}

/** Where an opened value sits: its path from the root, and the name of the nearest named array element on it. */
interface ValuePath {
  path: string;
  named: string | null;
}

const PLAIN_KEY = /^[A-Za-z_$][\w$-]*$/;

function childPath(parent: ValuePath, c: TreeChild, index: number, array: boolean, label: string | null): ValuePath {
  const step = array || c.key === null ? `[${index}]` : PLAIN_KEY.test(c.key) ? `.${c.key}` : `[${JSON.stringify(c.key)}]`;
  return { path: parent.path + step, named: label ?? parent.named };
}

export function firstUnit(c: TreeContainer): number {
  const p = c.parts[0]!;
  return typeof p === 'number' ? p : firstUnit(p);
}

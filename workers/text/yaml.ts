// YAML (configuration, manifests, CI files) sent to the text engine: values by indentation, cut as a
// tree (tree.ts). Cut as prose, a flags file came back at outline as help-text lines without the key
// they belong to (`For a list of available accelerator types run:`), and its `#` comments read as
// Markdown headings.
import { treeUnits, type TreeChild, type TreeKind, type TreeSource, type TreeUnits } from './tree.js';

/** A key line: an identifier-like or quoted key, a colon, then a space or the end of the line. */
const KEY = /^(?:[A-Za-z_$@./][\w.$@/-]*|"[^"\n]*"|'[^'\n]*'|\d+)[ \t]*:(?=\s|$)/;
/** The value of a key line that starts a block scalar (`help: |`, `run: >-`). */
const BLOCK_SCALAR = /^[|>][-+0-9]*\s*(?:#.*)?$/;
/**
 * A YAML document needs at least this many key or item lines, with at least this share of its lines
 * (outside comments and block scalars), and key lines at least KEY_SHARE of them: a Markdown list under
 * `#` headings (which read as comments) is items alone.
 */
const MIN_STRUCTURE_LINES = 4;
const MIN_STRUCTURE_SHARE = 0.8;
const KEY_SHARE = 0.4;
/**
 * Every text that is not JSON is tried as YAML, so prose must be turned down cheaply: after this many
 * lines it is when its share of structure or keys is already far below the rules (half of each).
 */
const PREFIX_LINES = 40;
/** A record's inline value names it in markers when it is at most this long. */
const MAX_LABEL_CHARS = 40;

type LineType = 'key' | 'item' | 'text';

interface Node extends TreeChild {
  indent: number;
  type: LineType;
  /** A key line with nothing after its colon: items at its own indentation are its children. */
  open: boolean;
  /** The line's own text after the key or dash (labels). */
  inline: string;
  children: Node[];
}

const unquote = (s: string) => s.replace(/^(["'])(.*)\1$/, '$2');

function typeOf(content: string): LineType {
  if (content === '-' || content.startsWith('- ')) return 'item';
  return KEY.test(content) ? 'key' : 'text';
}

/** What a node's children are, for its markers: mostly items (array), mostly keys (object), else lines. */
function kindOf(children: Node[]): Exclude<TreeKind, 'string'> {
  let items = 0;
  let keys = 0;
  for (const c of children) {
    if (c.type === 'item') items++;
    else if (c.type === 'key') keys++;
  }
  if (items * 2 > children.length) return 'array';
  return keys * 2 > children.length ? 'object' : 'lines';
}

/** An item's name: its inline scalar or inline key's value, else its first child key's value. */
function labelOf(n: Node): string {
  const short = (s: string) => {
    const v = unquote(s.replace(/^[&*!][^\s]*\s*/, '').replace(/\s+#.*$/, '').trim());
    return v.length <= MAX_LABEL_CHARS && !BLOCK_SCALAR.test(v) ? v : '';
  };
  const inline = n.inline.replace(/^[&!][^\s]*\s*/, '');
  const key = KEY.exec(inline);
  if (key) return short(inline.slice(key[0].length)) || short(key[0].slice(0, -1));
  if (inline) return short(inline);
  const first = n.children.find((c) => c.type === 'key');
  return first ? short(first.inline) : '';
}

/** The node tree of `text` by indentation, or null when it does not read as YAML. */
function parseYaml(text: string): Node[] | null {
  const root: Node[] = [];
  const stack: Node[] = [];
  let structure = 0;
  let keys = 0;
  let content = 0;
  let records = 0;
  /** Indentation of an open block scalar's key: deeper lines are its text, whatever they look like. */
  let block = -1;
  let lastEnd = 0;
  for (let ls = 0; ls < text.length; ) {
    let le = text.indexOf('\n', ls);
    if (le < 0) le = text.length;
    let end = le;
    if (end > ls && text.charCodeAt(end - 1) === 13) end--;
    let cs = ls;
    while (cs < end && text.charCodeAt(cs) === 32) cs++;
    const next = le + 1;
    if (cs === end) {
      ls = next;
      continue;
    }
    const indent = cs - ls;
    if (text.charCodeAt(cs) === 9) return null; // tabs never indent YAML
    const line = text.slice(cs, end);
    const inBlock = block >= 0 && indent > block;
    if (!inBlock) block = -1;
    const type: LineType = inBlock || line.startsWith('#') || line === '---' || line === '...' ? 'text' : typeOf(line);
    if (!inBlock && type !== 'text') structure++;
    if (!inBlock && type === 'key') keys++;
    if (!inBlock && !line.startsWith('#') && line !== '---') content++;
    if (content === PREFIX_LINES && (structure < content * MIN_STRUCTURE_SHARE * 0.5 || keys < content * KEY_SHARE * 0.5)) return null;
    let inline = '';
    let key: string | null = null;
    if (type === 'item') inline = line.slice(1).trim();
    else if (type === 'key') {
      const k = KEY.exec(line)![0];
      inline = line.slice(k.length).trim();
      key = unquote(k.slice(0, -1).trim()); // a quoted key may hold a colon: `"a:b": 1`
    }
    const node: Node = { start: cs, end, key, valueStart: cs, indent, type, open: type === 'key' && inline === '', inline, children: [] };
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      if (indent > top.indent || (indent === top.indent && top.open && type === 'item' && !inBlock)) break;
      // A node ends where the last line before the first line outside it ends.
      stack.pop()!.end = lastEnd;
    }
    const parent = stack[stack.length - 1];
    if (parent) {
      if (!parent.children.length && parent.type !== 'text') records++;
      parent.children.push(node);
    } else root.push(node);
    lastEnd = end;
    // Inside a block scalar every line is a child of the key, never a parent of the next.
    if (!inBlock) stack.push(node);
    if (type === 'key' && BLOCK_SCALAR.test(inline)) block = indent;
    ls = next;
  }
  for (const n of stack) n.end = lastEnd;
  if (structure < MIN_STRUCTURE_LINES || structure < content * MIN_STRUCTURE_SHARE || keys < content * KEY_SHARE || records === 0) return null;
  return root;
}

/**
 * Units and layout of a YAML document (tree.ts), or null when `text` does not read as one (the
 * MIN_STRUCTURE_LINES, MIN_STRUCTURE_SHARE and KEY_SHARE rules, and a key or item with lines under
 * it). A Markdown list, a log of `INFO: …` lines or a changelog is no YAML document.
 */
export function yamlUnits(text: string): TreeUnits | null {
  const first = text.search(/\S/);
  if (first < 0 || text[first] === '{' || text[first] === '[') return null;
  const root = parseYaml(text);
  if (!root || !root.length) return null;
  const source: TreeSource = {
    format: 'yaml',
    open: (c) => {
      const n = c as Node;
      return n.children.length ? { kind: kindOf(n.children), children: n.children } : null;
    },
    record: (c) => (c as Node).children.length > 0,
    label: (c) => labelOf(c as Node),
  };
  return treeUnits(text, { start: root[0]!.start, end: root[root.length - 1]!.end, kind: kindOf(root), children: root }, source);
}

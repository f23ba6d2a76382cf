// XML sent to the text engine (a feed, a build file, a JUnit report, a manifest): units are whole
// elements, as JSON's are whole values (tree.ts). Cut as prose, XML was cut in pieces that began and
// ended inside elements, and a JUnit report at balanced lost 2 of its 6 failures.
import { tagEnd } from './html.js';
import { IDENTITY_KEY } from './json.js';
import { treeUnits, type TreeChild, type TreeKind, type TreeSource, type TreeUnits } from './tree.js';

/**
 * An element: its span (start tag to end tag), where its content lies, and what it holds. A comment
 * between elements is a node too, without a key, so it is kept or hidden on its own (a licence block
 * or a commented-out example is not shown whatever the budget).
 */
interface XmlNode extends TreeChild {
  /** After the start tag's `>`; before the end tag's `<` (both `end` for `<x/>`). */
  contentStart: number;
  contentEnd: number;
  /** The start tag's attributes, as written. */
  attrs: string;
  children: XmlNode[];
  /** Non-space characters of text directly inside it (CDATA included). */
  textChars: number;
}

/** At least this many elements make a document worth cutting as a tree. */
const MIN_ELEMENTS = 4;
/** Text beside child elements (mixed content, as in DocBook) is at most this share of all text. */
const MAX_MIXED_SHARE = 0.1;
const MAX_LABEL_CHARS = 40;
const NAME = /^<([A-Za-z_][\w.:-]*)/;

function nonSpace(t: string, from: number, to: number): number {
  let n = 0;
  for (let k = from; k < to; k++) {
    const c = t.charCodeAt(k);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) n++;
  }
  return n;
}

/** The root element of a well-formed XML document, or null (mismatched tags, text outside the root, several roots). */
function parseXml(t: string): { root: XmlNode; elements: number; prolog: XmlNode[] } | null {
  const stack: XmlNode[] = [];
  /** Comments and the doctype before the root. */
  const prolog: XmlNode[] = [];
  let root: XmlNode | null = null;
  let elements = 0;
  let i = 0;
  const textInto = (from: number, to: number): boolean => {
    const n = nonSpace(t, from, to);
    if (!n) return true;
    const top = stack[stack.length - 1];
    if (!top) return false;
    top.textChars += n;
    return true;
  };
  while (i < t.length) {
    const lt = t.indexOf('<', i);
    if (!textInto(i, lt < 0 ? t.length : lt)) return null;
    if (lt < 0) break;
    i = lt;
    if (t.startsWith('<?', i)) {
      const e = t.indexOf('?>', i + 2);
      if (e < 0) return null;
      i = e + 2;
    } else if (t.startsWith('<!--', i)) {
      const e = t.indexOf('-->', i + 4);
      if (e < 0) return null;
      const comment = leaf(i, e + 3, i + 4, e);
      if (stack.length) stack[stack.length - 1]!.children.push(comment);
      else if (!root) prolog.push(comment);
      i = e + 3;
    } else if (t.startsWith('<![CDATA[', i)) {
      const e = t.indexOf(']]>', i + 9);
      if (e < 0 || !textInto(i + 9, e)) return null;
      i = e + 3;
    } else if (t.startsWith('<!', i)) {
      // A doctype, with its internal subset when it has one.
      const gt = t.indexOf('>', i);
      const bracket = t.indexOf('[', i);
      const e = bracket >= 0 && bracket < gt ? t.indexOf(']>', bracket) : gt - 1;
      if (gt < 0 || e < 0 || stack.length || root) return null;
      prolog.push(leaf(i, e + 2, i, i));
      i = e + 2;
    } else if (t[i + 1] === '/') {
      const gt = t.indexOf('>', i);
      const top = stack.pop();
      if (gt < 0 || !top || t.slice(i + 2, gt).trim() !== top.key) return null;
      top.contentEnd = i;
      top.end = gt + 1;
      i = gt + 1;
      if (!stack.length) root = top;
    } else {
      const m = NAME.exec(t.slice(i, i + 200));
      if (!m || (root && !stack.length)) return null;
      const end = tagEnd(t, i);
      if (t[end - 1] !== '>') return null;
      const selfClosing = t[end - 2] === '/';
      const node: XmlNode = {
        start: i, end, key: m[1]!, valueStart: i, contentStart: end, contentEnd: end,
        attrs: t.slice(i + m[0].length, selfClosing ? end - 2 : end - 1), children: [], textChars: 0,
      };
      elements++;
      const parent = stack[stack.length - 1];
      if (parent) parent.children.push(node);
      if (!selfClosing) stack.push(node);
      else if (!parent) root = node;
      i = end;
    }
  }
  return root && !stack.length ? { root, elements, prolog } : null;
}

/** A node without a key: a comment, or the prolog before the root. */
function leaf(start: number, end: number, contentStart: number, contentEnd: number): XmlNode {
  return { start, end, key: null, valueStart: start, contentStart, contentEnd, attrs: '', children: [], textChars: 0 };
}

const elementsOf = (children: XmlNode[]) => children.filter((c) => c.key !== null);

/** Children sharing one name (items of a list) are an array; children of several names an object. */
function kindOf(all: XmlNode[]): Exclude<TreeKind, 'string'> {
  const children = elementsOf(all);
  if (children.length < 2) return 'object';
  const counts = new Map<string, number>();
  let most = 0;
  for (const c of children) {
    const n = (counts.get(c.key!) ?? 0) + 1;
    counts.set(c.key!, n);
    most = Math.max(most, n);
  }
  return most * 5 >= children.length * 3 ? 'array' : 'object';
}

const ATTR = /([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

/** An element's label for markers: an identity attribute or child (id, name, title, …), else its first short text child. */
function labelOf(t: string, n: XmlNode): string {
  for (const m of n.attrs.matchAll(ATTR)) {
    const v = (m[2] ?? m[3] ?? '').trim();
    if (v && v.length <= MAX_LABEL_CHARS && IDENTITY_KEY.test(m[1]!.replace(/^.*:/, ''))) return v;
  }
  let fallback = '';
  for (const c of elementsOf(n.children).slice(0, 8)) {
    if (c.children.length || c.contentEnd - c.contentStart > MAX_LABEL_CHARS) continue;
    const v = t.slice(c.contentStart, c.contentEnd).trim();
    if (!v || v.includes('<')) continue;
    if (IDENTITY_KEY.test(c.key!.replace(/^.*:/, ''))) return v;
    if (!fallback && !v.includes(':')) fallback = v;
  }
  return fallback;
}

/** Text beside child elements, and all text, over the tree. */
function textShares(n: XmlNode, acc = { mixed: 0, all: 0 }): { mixed: number; all: number } {
  const stack = [n];
  while (stack.length) {
    const x = stack.pop()!;
    acc.all += x.textChars;
    if (x.children.some((c) => c.key !== null)) acc.mixed += x.textChars;
    for (const c of x.children) stack.push(c);
  }
  return acc;
}

/**
 * Units and layout of an XML document (tree.ts), or null when `text` is not one: a well-formed
 * document of at least four elements, not an HTML page, whose text is in leaf elements (data, not
 * prose marked up inline).
 */
export function xmlUnits(text: string): TreeUnits | null {
  const first = text.search(/\S/);
  if (first < 0 || text[first] !== '<') return null;
  const doc = parseXml(text);
  if (!doc || doc.elements < MIN_ELEMENTS || doc.root.key!.toLowerCase() === 'html') return null;
  const shares = textShares(doc.root);
  if (shares.mixed > shares.all * MAX_MIXED_SHARE) return null;
  const source: TreeSource = {
    format: 'xml',
    open: (c) => {
      const n = c as XmlNode;
      if (n.children.length) return { kind: kindOf(n.children), children: n.children };
      // A long text, comment or prolog is cut into sentences.
      return n.textChars || n.key === null ? { sentences: [n.contentStart, n.contentEnd] } : null;
    },
    record: (c) => (c as XmlNode).key !== null && ((c as XmlNode).children.length > 0 || /\S/.test((c as XmlNode).attrs)),
    label: (c) => labelOf(text, c as XmlNode),
  };
  // The document is an object of its root element and, before it, the comments and doctype after the
  // XML declaration (a licence block, a DTD): units of their own, not text shown whatever the budget.
  const root = doc.root;
  const top: XmlNode[] = [...doc.prolog, root];
  return treeUnits(text, { start: first, end: root.end, kind: 'object', children: top }, source);
}

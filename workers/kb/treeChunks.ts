// JSON, YAML and XML in the Knowledge Hub: chunks are runs of the text engine's whole values
// (tree.ts), and a chunk's skeleton is compressed as structured text too. A chunk is a slice from
// inside the document (records of an array, members of an object), which parses on its own once the
// brackets or elements around it are restored (JSON, XML) or its indentation is removed (YAML).
import { compressText } from '../text/index.js';
import { tagEnd } from '../text/html.js';
import { jsonUnits } from '../text/json.js';
import { structuredUnits } from '../text/structured.js';
import { xmlUnits } from '../text/xml.js';
import { yamlUnits } from '../text/yaml.js';
import type { TreeKind, TreeLayout } from '../text/tree.js';
import type { Unit } from '../text/units.js';

export interface StructuredDoc {
  format: TreeLayout['format'];
  units: Unit[];
  /** Per unit: the kind of value it is a part of. */
  kinds: TreeKind[];
  /** Per block (an opened value): its path, `$.records`. */
  paths: string[];
  /** JSON and XML: the brackets or elements open at a chunk's ends (chunks ask in document order). */
  brackets: Enclosing | null;
}

/** What is open at increasing positions of a document, and how to close it around a slice. */
interface Enclosing {
  /** What is open at `to` (outermost first), or null inside a string, tag or comment. `to` never decreases. */
  at(to: number): string[] | null;
  wrap(open: string[], close: string[]): { prefix: string; suffix: string };
  parses(whole: string): boolean;
}

export function structuredDoc(text: string): StructuredDoc | null {
  const tree = structuredUnits(text);
  if (!tree) return null;
  const { format, kinds, paths } = tree.layout;
  const brackets = format === 'json' ? new JsonBrackets(text) : format === 'xml' ? new XmlElements(text) : null;
  return { format, units: tree.units, kinds, paths, brackets };
}

const MARKER = /\[… [^\]\n]*\]/g;
const CLOSER: Record<string, string> = { '{': '}', '[': ']' };

/**
 * The brackets open at increasing positions of a JSON text, found in one pass (chunks come in
 * order, so the whole document is scanned once however many chunks it has).
 */
export class JsonBrackets implements Enclosing {
  private pos = 0;
  private inString = false;
  private readonly stack: string[] = [];

  constructor(private readonly text: string) {}

  /** The brackets open at `to` (outermost first), or null inside a string. `to` never decreases. */
  at(to: number): string[] | null {
    const t = this.text;
    let i = this.pos;
    for (; i < to; i++) {
      const c = t[i]!;
      if (this.inString) {
        if (c === '\\') i++;
        else if (c === '"') this.inString = false;
      } else if (c === '"') this.inString = true;
      else if (c === '{' || c === '[') this.stack.push(c);
      else if (c === '}' || c === ']') this.stack.pop();
    }
    this.pos = Math.max(this.pos, i);
    return this.inString ? null : [...this.stack];
  }

  wrap(open: string[], close: string[]) {
    return wrapJson(open, close);
  }

  parses(whole: string): boolean {
    return jsonUnits(whole) !== null;
  }
}

/** The elements open at increasing positions of an XML text, found in one pass as JsonBrackets does. */
export class XmlElements implements Enclosing {
  private pos = 0;
  private readonly stack: string[] = [];

  constructor(private readonly text: string) {}

  at(to: number): string[] | null {
    const t = this.text;
    if (to < this.pos) return null;
    while (this.pos < to) {
      const lt = t.indexOf('<', this.pos);
      if (lt < 0 || lt >= to) {
        this.pos = to;
        break;
      }
      let end: number;
      if (t.startsWith('<!--', lt)) end = endAfter(t, '-->', lt + 4);
      else if (t.startsWith('<![CDATA[', lt)) end = endAfter(t, ']]>', lt + 9);
      else if (t.startsWith('<?', lt)) end = endAfter(t, '?>', lt + 2);
      else {
        end = tagEnd(t, lt);
        const name = /^<\/?([A-Za-z_][\w.:-]*)/.exec(t.slice(lt, lt + 200))?.[1];
        if (name && t[lt + 1] === '/') this.stack.pop();
        else if (name && t[end - 2] !== '/') this.stack.push(name);
      }
      this.pos = end;
      if (end > to) return null;
    }
    return [...this.stack];
  }

  wrap(open: string[], close: string[]) {
    return { prefix: open.map((n) => `<${n}>`).join(''), suffix: close.map((n) => `</${n}>`).reverse().join('') };
  }

  parses(whole: string): boolean {
    return xmlUnits(whole) !== null;
  }
}

const endAfter = (t: string, close: string, from: number) => {
  const k = t.indexOf(close, from);
  return k < 0 ? t.length : k + close.length;
};

/** `raw` made one JSON value again: the brackets open where it starts put in front, those open where it ends after it. */
export function wrapJson(open: string[], close: string[]): { prefix: string; suffix: string } {
  // A container inside an object is a member: it gets an empty key.
  const prefix = open.map((c, k) => (c === '{' && k + 1 < open.length ? '{"":' : c)).join('');
  return { prefix, suffix: close.map((c) => CLOSER[c]!).reverse().join('') };
}

/** A YAML slice without the indentation of its first line, or null when a later line is indented less. */
export function dedentYaml(text: string, start: number, end: number): string | null {
  const lineStart = text.lastIndexOf('\n', start - 1) + 1;
  const indent = start - lineStart;
  if (text.slice(lineStart, start).trim() !== '') return null;
  const lines = text.slice(lineStart, end).split('\n');
  for (const l of lines) if (l.trim() !== '' && l.search(/\S/) < indent) return null;
  return lines.map((l) => l.slice(indent)).join('\n');
}

/**
 * The chunk's skeleton as structured text (balanced, plain markers), or null when it cannot be made
 * one value again or the engine does not read it as one; the caller then compresses it as prose.
 */
export async function structuredSkeleton(doc: StructuredDoc, text: string, start: number, end: number, kind: TreeKind): Promise<string | null> {
  const raw = text.slice(start, end);
  if (doc.format === 'yaml') {
    const body = dedentYaml(text, start, end);
    if (body === null || !yamlUnits(body)) return null;
    return (await compressText({ text: body, fidelity: 'balanced' })).compressed_text;
  }
  if (kind === 'string' || !doc.brackets) return null;
  const open = doc.brackets.at(start);
  const close = doc.brackets.at(end);
  if (!open || !close) return null;
  const wrap = doc.brackets.wrap(open, close);
  const whole = wrap.prefix + raw + wrap.suffix;
  if (!doc.brackets.parses(whole)) return null;
  const out = (await compressText({ text: whole, fidelity: 'balanced' })).compressed_text;
  if (!out.startsWith(wrap.prefix)) return null;
  // The closers put after the chunk end the output, unless the chunk's last value is hidden: its
  // marker then stands for them too (`[… 1 key, 40 tokens]}`, `[… 2 items, 80 tokens]</a>`), and
  // only those after it are removed.
  for (let k = wrap.suffix.length; k >= 0; k--) {
    if (!out.endsWith(wrap.suffix.slice(wrap.suffix.length - k))) continue;
    const inner = out.slice(wrap.prefix.length, out.length - k);
    if (!inner.replace(MARKER, '').includes('[… ')) return inner;
  }
  return null;
}

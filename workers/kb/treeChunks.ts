// JSON and YAML in the Knowledge Hub: chunks are runs of the text engine's whole values (tree.ts),
// and a chunk's skeleton is compressed as structured text too. A chunk is a slice from inside the
// document (records of an array, members of an object), which parses on its own once the brackets
// around it are restored (JSON) or its indentation is removed (YAML).
import { compressText } from '../text/index.js';
import { jsonUnits } from '../text/json.js';
import { structuredUnits } from '../text/structured.js';
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
  /** JSON: the brackets open at a chunk's ends (chunks ask in document order). */
  brackets: JsonBrackets | null;
}

export function structuredDoc(text: string): StructuredDoc | null {
  const tree = structuredUnits(text);
  if (!tree) return null;
  const { format, kinds, paths } = tree.layout;
  return { format, units: tree.units, kinds, paths, brackets: format === 'json' ? new JsonBrackets(text) : null };
}

const MARKER = /\[… [^\]\n]*\]/g;
const CLOSER: Record<string, string> = { '{': '}', '[': ']' };

/**
 * The brackets open at increasing positions of a JSON text, found in one pass (chunks come in
 * order, so the whole document is scanned once however many chunks it has).
 */
export class JsonBrackets {
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
}

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
  const wrap = wrapJson(open, close);
  const whole = wrap.prefix + raw + wrap.suffix;
  if (!jsonUnits(whole)) return null;
  const out = (await compressText({ text: whole, fidelity: 'balanced' })).compressed_text;
  if (!out.startsWith(wrap.prefix)) return null;
  // The closers put after the chunk end the output, unless the chunk's last value is hidden: its
  // marker then stands for them too (`[… 1 key, 40 tokens]}`), and only those after it are removed.
  for (let k = wrap.suffix.length; k >= 0; k--) {
    if (!out.endsWith(wrap.suffix.slice(wrap.suffix.length - k))) continue;
    const inner = out.slice(wrap.prefix.length, out.length - k);
    if (!inner.replace(MARKER, '').includes('[… ')) return inner;
  }
  return null;
}

/**
 * C-family runs: consecutive macro definitions and same-shaped variable declarations in one
 * statement list are replaced, at balanced and outline, by their folded form (macros.ts,
 * declruns.ts). The walker (units.ts) decides where a run starts and ends; this file decides what
 * joins one and writes the edit.
 */
import { foldDeclarations, type DeclItem } from './declruns.js';
import type { CompactSpec } from './languages.js';
import { foldMacros, type MacroItem } from './macros.js';
import type { SyntaxNode } from './parse.js';
import { lineSpan, type Edit } from './text.js';

export class CompactRuns {
  private readonly macroTypes: Set<string>;
  /** Long macro member lists already printed in this file (back-references). */
  private readonly lists = new Map<string, string>();
  private readonly decls = new Map<number, DeclItem | null>();

  constructor(
    spec: CompactSpec,
    private readonly source: string,
    private readonly into: Edit[],
  ) {
    this.macroTypes = new Set(spec.macros);
  }

  isMacro(node: SyntaxNode): boolean {
    return this.macroTypes.has(node.type);
  }

  /** A macro definition, or a kept declaration that is a plain variable (no unit of its own). */
  joins(node: SyntaxNode, plainKept: boolean): boolean {
    return this.isMacro(node) || (plainKept && this.declItem(node) !== null);
  }

  /** One edit replacing the run (and the comments between its members) by its folded form. */
  fold(run: SyntaxNode[], docStart: number): void {
    const source = this.source;
    const first = run[0]!;
    const last = run.at(-1)!;
    const [lineStart] = lineSpan(source, first.startIndex, first.endIndex);
    const [, end] = lineSpan(source, last.startIndex, last.endIndex);
    const firstMacro = run.findIndex((node) => this.isMacro(node));
    const lead = run.slice(0, firstMacro < 0 ? run.length : firstMacro).map((node) => this.declItem(node)!);
    const rest = run.slice(lead.length).filter((node) => !this.isMacro(node)).map((node) => this.declItem(node)!);
    if (firstMacro < 0 && lead.length < 2) return;
    const items = run.filter((node) => this.isMacro(node)).map(macroItem);
    if (items.some((it) => !it.name)) return; // a definition the parser mangled: leave the run as is
    const indent = source.slice(lineStart, first.startIndex);
    // Declarations before the first macro stay first; later ones follow the macros (generated
    // headers alternate `#define X_SZ` and `extern ... x[X_SZ]`).
    const macros = items.length > 0 ? [foldMacros(items, indent, this.lists)] : [];
    const text = [...foldDeclarations(lead, indent), ...macros, ...foldDeclarations(rest, indent)].join('\n');
    this.into.push({ start: docStart >= 0 ? docStart : lineStart, end, text: source[end - 1] === '\n' ? `${text}\n` : text });
  }

  /** A one-line variable declaration with a single plain declarator, as a foldable item. */
  private declItem(node: SyntaxNode): DeclItem | null {
    let item = this.decls.get(node.startIndex);
    if (item !== undefined) return item;
    item = null;
    // One line, one declarator (no `,` at all keeps the test cheap), no braces.
    const text = node.type === 'declaration' ? node.text : '';
    const d = text && !/[\n,{]/.test(text) ? node.childForFieldName('declarator') : null;
    const size = d?.type === 'array_declarator' ? d.childForFieldName('size') : null;
    const name = d?.type === 'identifier' ? d : d && (d.type === 'array_declarator' || d.type === 'pointer_declarator') ? d.childForFieldName('declarator') : null;
    if (name?.type === 'identifier') {
      const at = (n: SyntaxNode): [number, number] => [n.startIndex - node.startIndex, n.endIndex - node.startIndex];
      const [ns, ne] = at(name);
      const [ss, se] = size ? at(size) : [-1, -1];
      const shape = size ? `${text.slice(0, ns)}@${text.slice(ne, ss)}…${text.slice(se)}` : `${text.slice(0, ns)}@${text.slice(ne)}`;
      item = { name: name.text, shape, size: size?.text ?? '', text };
    }
    this.decls.set(node.startIndex, item);
    return item;
  }
}

/** Name, parameters and value of a definition from its named children (one native call). */
function macroItem(node: SyntaxNode): MacroItem {
  const item: MacroItem = { name: '', params: null, value: '' };
  for (const c of node.namedChildren) {
    if (c.type === 'identifier' && !item.name) item.name = c.text;
    else if (c.type === 'preproc_params') item.params = c.text.replace(/\s+/g, ' ');
    else if (c.type === 'preproc_arg') {
      const value = c.text.trim();
      // A value continued over several lines is never short enough to keep.
      item.value = value.includes('\n') ? '…' : value;
    }
  }
  return item;
}

/** A multi-line enumerator list on one line (`{ A = 1, B, C }`), comments dropped: every name stays. */
export function joinEnumerators(list: SyntaxNode, into: Edit[]): void {
  if (list.startPosition.row === list.endPosition.row) return;
  const items = list.namedChildren.filter((c) => c.type !== 'comment').map((c) => c.text.replace(/\s+/g, ' '));
  into.push({ start: list.startIndex, end: list.endIndex, text: items.length ? `{ ${items.join(', ')} }` : '{}' });
}

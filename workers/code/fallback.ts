import { identifiersIn, navigable, type Edit } from './text.js';
import type { CodeUnit, ImportInfo, UnitKind } from './types.js';
import { emptyExtraction, type Extraction } from './units.js';

// Line-based extraction for languages without a grammar (Ruby, PHP, Kotlin, ...): declaration-looking
// lines are units, import-looking lines are imports, everything else is dropped from the skeleton.
const DECL = /^(\s*)(?:(?:export|public|private|protected|internal|static|final|abstract|override|async|open|inline|pub|data|sealed)\s+)*(def|class|function|fn|func|fun|sub|module|interface|struct|trait|enum|object|proc|record|impl)\s+([A-Za-z_$][\w$.?!]*)/;
const IMPORT = /^\s*(import|require|require_relative|use|using|include|from|#include|load)\b/;
const COMMENT = /^\s*(#|\/\/|\/\*|\*|--|;)/;
const KIND: Record<string, UnitKind> = { class: 'class', module: 'module', interface: 'interface', struct: 'struct', trait: 'trait', enum: 'enum', object: 'class', record: 'class', impl: 'impl' };
const KEYWORDS = new Set(['def', 'end', 'class', 'function', 'return', 'if', 'else', 'then', 'do', 'self', 'this', 'nil', 'null', 'true', 'false']);

export function extractByLines(source: string, path: string): Extraction {
  const out = emptyExtraction();
  const lines = source.split('\n');
  let offset = 0;
  const stack: { indent: number; unit: number }[] = [];
  let docFrom = -1;
  let marked = -1;
  // The marked body run being hidden: later body lines, comments and blank lines right after it join it.
  let run: Edit | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const start = offset;
    const end = offset + line.length + (i < lines.length - 1 ? 1 : 0);
    offset = end;
    const decl = DECL.exec(line);
    if (decl) {
      const indent = decl[1]!.length;
      while (stack.length && stack[stack.length - 1]!.indent >= indent) stack.pop();
      const parent = stack.length ? stack[stack.length - 1]!.unit : -1;
      const container = parent >= 0 ? out.units[parent]!.qualified : null;
      const kind = KIND[decl[2]!] ?? (container ? 'method' : 'function');
      const name = decl[3]!;
      const qualified = container ? `${container}.${name}` : name;
      const unit: CodeUnit = {
        id: `${path}#${qualified}:${i + 1}`, kind, name, container, qualified, signature: line.trim(), doc: null,
        startLine: i + 1, endLine: i + 1, start, end, bodyStart: null, bodyEnd: null,
        exported: !name.startsWith('_'), identifiers: identifiersIn(line, KEYWORDS), calls: [], parent,
      };
      if (docFrom >= 0) unit.doc = source.slice(docFrom, start).trim();
      out.units.push(unit);
      stack.push({ indent, unit: out.units.length - 1 });
      if (docFrom >= 0) out.docs.push({ unit: out.units.length - 1, drop: [{ start: docFrom, end: start, text: '' }], trim: null, start: docFrom, end: start });
      docFrom = -1;
      continue;
    }
    if (IMPORT.test(line)) {
      const imp: ImportInfo = { module: line.trim().replace(/^\S+\s+/, '').replace(/[;'"<>]/g, ''), names: [], line: i + 1, text: line.trim() };
      out.imports.push(imp);
      docFrom = -1;
      continue;
    }
    if (COMMENT.test(line)) {
      if (docFrom < 0) docFrom = start;
      continue;
    }
    const top = stack[stack.length - 1];
    if (run && run.end === (docFrom >= 0 ? docFrom : start) && top && marked === top.unit) {
      run.end = run.mark!.to = end;
      docFrom = -1;
      continue;
    }
    flushDoc(out.drops, docFrom, start);
    docFrom = -1;
    // Body lines collapse to one elision marker per unit.
    const marker = line.trim() !== '' && top && marked !== top.unit ? `${' '.repeat(top.indent + 2)}…\n` : '';
    if (marker) marked = top!.unit;
    const edit: Edit = marker ? navigable({ start, end, text: marker }, start, end) : { start, end, text: '' };
    if (marker) run = edit;
    out.drops.push(edit);
  }
  flushDoc(out.drops, docFrom, offset);
  // Line ranges: a unit spans until the next unit at the same or lower indentation.
  for (let u = 0; u < out.units.length; u++) {
    const unit = out.units[u]!;
    const next = out.units.slice(u + 1).find((n) => n.parent <= unit.parent);
    unit.endLine = next ? next.startLine - 1 : lines.length;
  }
  return out;
}

function flushDoc(drops: Edit[], from: number, to: number): void {
  if (from >= 0) drops.push({ start: from, end: to, text: '' });
}

import { countTokens, type TokenizerName } from '../shared/tokens.js';
import { REF_PLACEHOLDER } from '../text/markers.js';
import type { CodeIndex } from './codeindex.js';
import type { StructuralMarks } from './types.js';
import { indentAt } from './text.js';

export type Tier = 'full' | 'signature' | 'outline';

interface Piece {
  unit: number;
  tier: Tier;
  text: string;
  tokens: number;
  /** A signature whose body is elided, with ids: the label goes at `at` in text, the body's tokens `hidden`. */
  label?: { at: number; hidden: number; comment: boolean };
}

/** ` 212 tokens #<ref>.<n>`, or as a Python comment after `...`. */
const labelText = (hidden: number, comment: boolean, n: number) => `${comment ? '  # ' : ' '}${hidden} tokens #${REF_PLACEHOLDER}.${n}`;

const FULL_SHARE = 0.5;
const SIGNATURE_SHARE = 0.85;

/** First lines of a doc, closed in the doc's own syntax so the snippet stays well-formed. */
export function shortDoc(doc: string, maxLines = 3): string {
  const lines = doc.trim().split('\n');
  if (lines.length <= maxLines) return lines.join('\n');
  const quote = /^[rbuRBU]*("""|\'\'\'|"|')/.exec(lines[0]!)?.[1];
  if (quote) return `${lines[0]!.trimEnd()} …${quote}`;
  if (lines[0]!.trimStart().startsWith('/*')) return `${lines.slice(0, 2).join('\n')}\n */`;
  return lines.slice(0, 2).join('\n');
}

/** Signature-only rendering of a unit in its language's idiom, with a short doc. */
export function signatureText(index: CodeIndex, i: number): string {
  const u = index.units[i]!;
  const a = index.analyses[index.table.fileOf[i]!]!;
  const indent = indentAt(a.content, u.start);
  const doc = u.doc ? shortDoc(u.doc) : null;
  if (a.language === 'python') {
    if (u.bodyStart === null) return indent + u.signature;
    const inner = indentAt(a.content, u.bodyStart);
    const bodyIndent = inner.length > indent.length ? inner : `${indent}    `;
    return doc ? `${indent}${u.signature}\n${bodyIndent}${doc}\n${bodyIndent}...` : `${indent}${u.signature} ...`;
  }
  const head = doc ? `${doc.split('\n').map((l) => indent + l.trim()).join('\n')}\n` : '';
  // An arrow's expression body is not a block: `=> …`, not `=> { … }`.
  const tail = u.bodyStart === null ? '' : a.content[u.bodyStart] === '{' ? ' { … }' : ' …';
  return `${head}${indent}${u.signature}${tail}`;
}

/**
 * The line that opens a unit around shown members: `class Receiver extends Writable {` (its doc
 * above it when asked), or a Python `class Foo:`; `close` is what ends it (brace languages).
 */
export function headerText(index: CodeIndex, i: number, withDoc: boolean): { open: string; close: string } {
  const u = index.units[i]!;
  const a = index.analyses[index.table.fileOf[i]!]!;
  const indent = indentAt(a.content, u.start);
  const doc = withDoc && u.doc ? shortDoc(u.doc) : null;
  if (a.language === 'python') {
    const inner = u.bodyStart !== null ? indentAt(a.content, u.bodyStart) : `${indent}    `;
    return { open: doc ? `${indent}${u.signature}\n${inner.length > indent.length ? inner : `${indent}    `}${doc}` : `${indent}${u.signature}`, close: '' };
  }
  const head = doc ? `${doc.split('\n').map((l) => indent + l.trim()).join('\n')}\n` : '';
  return { open: `${head}${indent}${u.signature} {`, close: `${indent}}` };
}

/** Enclosing units of a unit, outermost first. */
function ancestors(index: CodeIndex, i: number): number[] {
  const out: number[] = [];
  for (let p = index.units[i]!.parent; p >= 0; p = index.units[p]!.parent) out.unshift(p);
  return out;
}

function fullText(index: CodeIndex, i: number): string {
  const u = index.units[i]!;
  const a = index.analyses[index.table.fileOf[i]!]!;
  const doc = a.language !== 'python' && u.doc ? `${indentAt(a.content, u.start)}${u.doc.trim()}\n` : '';
  return `${doc}${indentAt(a.content, u.start)}${a.content.slice(u.start, u.end)}`;
}

/**
 * Fill the budget in rank order: the top units in full (up to half the budget), the next as
 * signatures (up to 85%), the rest as one outline line per file. Output grouped by file, in line order.
 */
export function renderBudget(
  index: CodeIndex,
  order: number[],
  budget: number,
  tokenizer: TokenizerName,
  ids = false,
): { output: string; tiers: Map<number, Tier>; marks?: StructuralMarks[] } {
  const pieces: Piece[] = [];
  const tiers = new Map<number, Tier>();
  const covered = (i: number): boolean => {
    for (let p = index.units[i]!.parent; p >= 0; p = index.units[p]!.parent) if (tiers.get(p) === 'full') return true;
    return false;
  };
  const headerCost = 8;
  const filesUsed = new Set<number>();
  // A file's import lines go with its first rendered unit: they are how a reader follows the graph.
  const importCost = new Map<number, number>();
  const importsOf = (f: number) => {
    let c = importCost.get(f);
    if (c === undefined) importCost.set(f, (c = importLines(index, f) ? countTokens(importLines(index, f)!, tokenizer) + 1 : 0));
    return c;
  };
  let used = 0;
  // A member is shown under its class's header line (and a nested function under its function's): priced once each.
  const opened = new Set<number>();
  const headerCosts = (i: number): number[] => ancestors(index, i).filter((p) => !opened.has(p) && !tiers.has(p));
  const headerTokenCache = new Map<number, number>();
  const headerTokens = (p: number): number => {
    let n = headerTokenCache.get(p);
    if (n === undefined) {
      const h = headerText(index, p, false);
      headerTokenCache.set(p, (n = countTokens(h.open, tokenizer) + (h.close ? countTokens(h.close, tokenizer) : 0) + 2));
    }
    return n;
  };
  const cost = (i: number, tokens: number): number => {
    const f = index.table.fileOf[i]!;
    return tokens + 1 + (filesUsed.has(f) ? 0 : headerCost + importsOf(f)) + headerCosts(i).reduce((s, p) => s + headerTokens(p), 0);
  };
  const open = (i: number): void => {
    for (const p of headerCosts(i)) opened.add(p);
  };
  for (const i of order) {
    if (used >= budget * SIGNATURE_SHARE) break;
    if (covered(i)) continue;
    const u = index.units[i]!;
    if (used < budget * FULL_SHARE && u.end - u.start < budget * 4) {
      const text = fullText(index, i);
      const tokens = countTokens(text, tokenizer);
      if (used + cost(i, tokens) <= budget * FULL_SHARE) {
        used += cost(i, tokens);
        open(i);
        filesUsed.add(index.table.fileOf[i]!);
        pieces.push({ unit: i, tier: 'full', text, tokens });
        tiers.set(i, 'full');
        continue;
      }
    }
    const text = signatureText(index, i);
    const label = ids ? bodyLabel(index, i, text, tokenizer) : undefined;
    // Priced with the placeholder id (the same tokens as any ref).
    const tokens = countTokens(label ? text.slice(0, label.at) + labelText(label.hidden, label.comment, 0) + text.slice(label.at) : text, tokenizer);
    if (used + cost(i, tokens) > budget * SIGNATURE_SHARE) continue;
    used += cost(i, tokens);
    open(i);
    filesUsed.add(index.table.fileOf[i]!);
    pieces.push({ unit: i, tier: 'signature', text, tokens, ...(label ? { label } : {}) });
    tiers.set(i, 'signature');
  }
  // Outline: names of the next units, one line per file, while budget remains.
  const outline = new Map<number, string[]>();
  for (const i of order) {
    if (tiers.has(i) || covered(i)) continue;
    const f = index.table.fileOf[i]!;
    const name = index.units[i]!.qualified;
    const cost = countTokens(` ${name},`, tokenizer) + (outline.has(f) ? 0 : headerCost);
    if (used + cost > budget) {
      if (used >= budget - 4) break; // nothing useful fits any more
      continue;
    }
    used += cost;
    let list = outline.get(f);
    if (!list) outline.set(f, (list = []));
    list.push(name);
    tiers.set(i, 'outline');
  }
  let output = assemble(index, pieces, outline).output;
  // Token sums are an estimate of the joined text; trim the tail if the join pushed it over.
  while (output && countTokens(output, tokenizer) > budget) {
    const lastOutline = [...outline.keys()].pop();
    if (lastOutline !== undefined) {
      const list = outline.get(lastOutline)!;
      tiers.delete(index.units.findIndex((u, k) => index.table.fileOf[k] === lastOutline && u.qualified === list.at(-1)));
      list.pop();
      if (list.length === 0) outline.delete(lastOutline);
    } else if (pieces.length > 0) {
      tiers.delete(pieces.pop()!.unit);
    } else break;
    output = assemble(index, pieces, outline).output;
  }
  if (!ids) return { output, tiers };
  return { ...assemble(index, pieces, outline, true), tiers };
}

/** Where a signature piece's label goes (after `{ …` or a trailing Python `...`), and the body's tokens. */
function bodyLabel(index: CodeIndex, i: number, text: string, tokenizer: TokenizerName): Piece['label'] {
  const u = index.units[i]!;
  if (u.bodyStart === null || u.bodyEnd === null) return undefined;
  const comment = text.endsWith('...');
  const at = comment ? text.length : text.endsWith(' { … }') ? text.length - 2 : text.endsWith(' …') ? text.length : -1;
  if (at < 0) return undefined;
  const content = index.analyses[index.table.fileOf[i]!]!.content;
  return { at, comment, hidden: countTokens(content.slice(u.bodyStart, u.bodyEnd), tokenizer) };
}

/** The file's import statements, verbatim, one per line (null when it has none). */
function importLines(index: CodeIndex, f: number): string | null {
  const imports = index.analyses[f]!.imports;
  return imports.length ? imports.map((i) => i.text.trim()).join('\n') : null;
}

/** Every file whole, as the structural output shows files: what a budget that covers the input returns. */
export function renderWhole(index: CodeIndex): string {
  return index.analyses.map((a) => `--- ${a.path} ---\n${a.content.replace(/\s+$/, '')}\n`).join('\n');
}

function assemble(index: CodeIndex, pieces: Piece[], outline: Map<number, string[]>, withMarks = false): { output: string; marks?: StructuralMarks[] } {
  const byFile = new Map<number, Piece[]>();
  const fileOrder: number[] = [];
  for (const p of pieces) {
    const f = index.table.fileOf[p.unit]!;
    let list = byFile.get(f);
    if (!list) {
      byFile.set(f, (list = []));
      fileOrder.push(f);
    }
    list.push(p);
  }
  const parts: string[] = [];
  const marks: StructuralMarks[] = [];
  // Offset in the output of the next part (parts are joined by '\n').
  let length = 0;
  const push = (part: string) => {
    parts.push(part);
    length += part.length + 1;
  };
  for (const f of fileOrder) {
    const list = byFile.get(f)!.sort((a, b) => index.units[a.unit]!.start - index.units[b.unit]!.start);
    push(`--- ${index.paths[f]} ---`);
    const imports = importLines(index, f);
    if (imports) push(imports);
    const mark: StructuralMarks = { file: f, spans: [], refAt: [] };
    const shown = new Set(list.map((p) => p.unit));
    // Headers of the units enclosing what is shown, opened above their first shown member and closed after the last.
    const stack: { unit: number; close: string }[] = [];
    const closeTo = (chain: number[]) => {
      while (stack.length > 0 && !chain.includes(stack.at(-1)!.unit)) {
        const { close } = stack.pop()!;
        if (close) push(close);
      }
    };
    const hasShownMember = (i: number) => list.some((q) => q.unit !== i && ancestors(index, q.unit).includes(i));
    for (const p of list) {
      const chain = ancestors(index, p.unit);
      closeTo(chain);
      for (const a of chain) {
        if (stack.some((s) => s.unit === a) || shown.has(a)) continue;
        const h = headerText(index, a, false);
        push(h.open);
        stack.push({ unit: a, close: h.close });
      }
      // A class shown as a signature whose members are shown too opens around them instead.
      if (p.tier === 'signature' && hasShownMember(p.unit)) {
        const h = headerText(index, p.unit, true);
        push(h.open);
        stack.push({ unit: p.unit, close: h.close });
        continue;
      }
      if (!p.label) {
        push(p.text);
        continue;
      }
      // Labels are numbered per file, in output order: one layout (one ref) per file.
      const n = mark.refAt.length;
      const label = labelText(p.label.hidden, p.label.comment, n);
      const u = index.units[p.unit]!;
      mark.spans.push(u.bodyStart!, u.bodyEnd!);
      mark.refAt.push(length + p.label.at + label.lastIndexOf('#') + 1);
      push(p.text.slice(0, p.label.at) + label + p.text.slice(p.label.at));
    }
    closeTo([]);
    if (mark.refAt.length) marks.push(mark);
    const extra = outline.get(f);
    if (extra) push(`… also: ${extra.join(', ')}`);
    push('');
  }
  const rest = [...outline].filter(([f]) => !byFile.has(f));
  if (rest.length > 0) {
    push('--- outline ---');
    for (const [f, names] of rest) push(`${index.paths[f]}: ${names.join(', ')}`);
  }
  const output = parts.join('\n').trimEnd() + (parts.length ? '\n' : '');
  return withMarks ? { output, marks } : { output };
}

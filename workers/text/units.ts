// Selectable units (sentences, headings, table rows, code heads/bodies) in document order.
import type { Block } from '../shared/markdown.js';
import { badgeTailStart } from './links.js';
import { splitSentences } from './sentences.js';
import { clauseSpans } from './clauses.js';

/** Longest run of code lines selectable as one unit. */
export const CODE_CHUNK_LINES = 12;

const isBlank = (text: string, l: { start: number; end: number }) => text.slice(l.start, l.end).trim() === '';

/** A "heading" of more words than this is prose (a README flattened to one "# ..." line). */
export const LONG_HEADING_WORDS = 25;

/** `value`: one or more sibling values of a JSON document (json.ts). */
export type UnitKind = 'heading' | 'sentence' | 'table-head' | 'row' | 'code-head' | 'code-body' | 'code' | 'html' | 'value';

export interface Unit {
  kind: UnitKind;
  block: number;
  /** Offsets of the verbatim text in the original. */
  start: number;
  end: number;
  /** Index of this unit within its block (lead sentence = 0). */
  indexInBlock: number;
  /** Units that must be kept whenever this one is (table header for a row, code head for a body). */
  requires: number[];
  /** Lines represented (code bodies), for elision markers. */
  lineCount: number;
  /** A sentence cut into clauses (plain Markdown, clauses.ts): this clause's place in it, 0 for the first. */
  clause?: number;
}

/**
 * A sentence that points back to what came before (issue 48: anaphora): it opens with a pronoun
 * ("It also…", "They…") or has a demonstrative among its first words ("With longer durations these
 * numbers will differ more."); "this" inside a sentence is left alone ("Since this library…" names the subject).
 */
const POINTS_BACK = /^(?:(?:it|its|they|their|them|these|those|this|that|such)\b(?!\s*[-:=(`])|(?:\S+\s+){1,4}(?:these|those|such)\s+\p{L})/iu;

/**
 * The sentence a pointing-back sentence i refers to: the sentence before it in its block, or the last
 * sentence of the block before when i opens a paragraph of the same section; -1 when none (after a heading).
 */
function antecedentOf(units: Unit[], blocks: Block[], i: number): number {
  const prev = units[i - 1];
  if (!prev || prev.kind !== 'sentence') return -1;
  const u = units[i]!;
  if (prev.block === u.block) return i - 1;
  const a = blocks[prev.block]!, b = blocks[u.block]!;
  const sameSection = a.headings.length === b.headings.length && a.headings.every((h, k) => h === b.headings[k]);
  return sameSection && prev.block === u.block - 1 ? i - 1 : -1;
}

/**
 * With `clauses`, a sentence is cut into clauses (clauses.ts), each a unit that requires the sentence's
 * first clause, so a kept sentence can hide a remark; plain selection asks for it, query mode keeps
 * whole sentences.
 */
export function buildUnits(text: string, blocks: Block[], clauses = false): Unit[] {
  const units: Unit[] = [];
  const add = (u: Omit<Unit, 'indexInBlock' | 'requires' | 'lineCount'> & Partial<Unit>) => {
    units.push({ indexInBlock: 0, requires: [], lineCount: 1, ...u });
    return units.length - 1;
  };
  const sentencesOf = (blk: Block, b: number) =>
    splitSentences(text.slice(blk.contentStart, blk.contentEnd)).forEach((s, k) => {
      const start = blk.contentStart + s.start;
      const end = blk.contentStart + s.end;
      const parts = clauses ? clauseSpans(text.slice(start, end)) : [{ start: 0, end: end - start }];
      const i = add({ kind: 'sentence', block: b, start, end: start + parts[0]!.end, indexInBlock: k });
      // A sentence that opens by pointing back ("These numbers…", "It also…") needs the sentence it points to.
      const antecedent = POINTS_BACK.test(text.slice(start, start + 60)) ? antecedentOf(units, blocks, i) : -1;
      if (antecedent >= 0) units[i]!.requires = [antecedent];
      parts.slice(1).forEach((c, n) => add({ kind: 'sentence', block: b, start: start + c.start, end: start + c.end, indexInBlock: k, requires: [i], clause: n + 1 }));
    });
  blocks.forEach((blk, b) => {
    switch (blk.kind) {
      case 'heading': {
        if (text.slice(blk.contentStart, blk.contentEnd).trim().split(/\s+/).length > LONG_HEADING_WORDS) {
          sentencesOf(blk, b);
          break;
        }
        // An ATX title followed by its badges (`# css-select [![NPM version](…)](…) …`): the badges are
        // a unit of their own that can be dropped behind a marker, not part of the verbatim heading.
        const line = text.slice(blk.start, blk.end);
        const tail = line.startsWith('#') && !line.includes('\n') && line === line.trimEnd() ? badgeTailStart(line) : -1;
        if (tail < 0) {
          add({ kind: 'heading', block: b, start: blk.start, end: blk.end });
          break;
        }
        const heading = add({ kind: 'heading', block: b, start: blk.start, end: blk.start + line.slice(0, tail).trimEnd().length });
        add({ kind: 'html', block: b, start: blk.start + tail, end: blk.end, indexInBlock: 1, requires: [heading] });
        break;
      }
      case 'paragraph':
      case 'list':
      case 'quote':
        sentencesOf(blk, b);
        break;
      case 'table': {
        const head = add({ kind: 'table-head', block: b, start: blk.lines[0]!.start, end: blk.lines[Math.min(1, blk.lines.length - 1)]!.end });
        for (let r = 2; r < blk.lines.length; r++) {
          add({ kind: 'row', block: b, start: blk.lines[r]!.start, end: blk.lines[r]!.end, indexInBlock: r - 1, requires: [head] });
        }
        // A header alone says what a table is about but none of its facts: it comes with its first row.
        if (units.length - 1 > head) units[head]!.requires = [head + 1];
        break;
      }
      case 'code': {
        const body = blk.lines.slice(blk.bodyStart, blk.closeLine >= 0 ? blk.closeLine : blk.lines.length);
        const firstBody = body.findIndex((l) => l.end > l.start && text.slice(l.start, l.end).trim() !== '');
        if (body.length <= 3 || firstBody < 0 || firstBody === body.length - 1) {
          add({ kind: 'code', block: b, start: blk.start, end: blk.end, lineCount: body.length });
        } else {
          // Head = opening fence + first non-empty line; the rest is cut into chunks at blank lines
          // (at most CODE_CHUNK_LINES each) so a query can pull out the one part of a long block it needs.
          const headEnd = body[firstBody]!.end;
          const head = add({ kind: 'code-head', block: b, start: blk.start, end: headEnd });
          const rest = body.slice(firstBody + 1);
          let from = 0;
          while (from < rest.length) {
            let to = from;
            while (to + 1 < rest.length && to - from + 1 < CODE_CHUNK_LINES && !isBlank(text, rest[to + 1]!)) to++;
            // Trailing blank lines belong to the chunk so chunks tile the body.
            while (to + 1 < rest.length && isBlank(text, rest[to + 1]!)) to++;
            const last = to + 1 === rest.length;
            add({
              kind: 'code-body', block: b, start: rest[from]!.start, end: last ? blk.end : rest[to]!.end,
              indexInBlock: from + 1, requires: [head], lineCount: to - from + 1,
            });
            from = to + 1;
          }
        }
        break;
      }
      case 'html':
        add({ kind: 'html', block: b, start: blk.start, end: blk.end });
        break;
      case 'rule':
        break;
    }
  });
  return units;
}

// Faithful skeleton: original order, verbatim kept text, elision markers for every dropped run.
import type { Block } from '../shared/markdown.js';
import type { Unit, UnitKind } from './units.js';

interface Run {
  headings: number;
  sentences: number;
  rows: number;
  codeLines: number;
  blocks: number;
  tokens: number;
}

const emptyRun = (): Run => ({ headings: 0, sentences: 0, rows: 0, codeLines: 0, blocks: 0, tokens: 0 });

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** `[… 3 sentences, 212 tokens]`; parts with a zero count are left out. */
export function elisionMarker(run: Run): string {
  const parts: string[] = [];
  if (run.headings) parts.push(plural(run.headings, 'heading', 'headings'));
  if (run.sentences) parts.push(plural(run.sentences, 'sentence', 'sentences'));
  if (run.rows) parts.push(plural(run.rows, 'row', 'rows'));
  if (run.codeLines) parts.push(plural(run.codeLines, 'code line', 'code lines'));
  if (run.blocks) parts.push(plural(run.blocks, 'block', 'blocks'));
  parts.push(plural(run.tokens, 'token', 'tokens'));
  return `[… ${parts.join(', ')}]`;
}

function addToRun(run: Run, kind: UnitKind, u: Unit, tokens: number): void {
  run.tokens += tokens;
  if (kind === 'heading') run.headings++;
  else if (kind === 'sentence') run.sentences++;
  else if (kind === 'row' || kind === 'table-head') run.rows++;
  else if (kind === 'html') run.blocks++;
  else run.codeLines += u.lineCount;
}

/** The marker that would stand for units `from`..`to` (inclusive) when they are dropped together. */
export function markerFor(units: Unit[], tokens: ArrayLike<number>, from: number, to: number): string {
  const run = emptyRun();
  for (let k = from; k <= to; k++) addToRun(run, units[k]!.kind, units[k]!, tokens[k]!);
  return elisionMarker(run);
}

/** Filled by renderSkeleton when passed: what was added around the verbatim unit text. */
export interface RenderStats {
  markers: string[];
  pieces: number;
}

export function renderSkeleton(
  text: string,
  blocks: Block[],
  units: Unit[],
  kept: ArrayLike<number>,
  tokens: ArrayLike<number>,
  stats?: RenderStats,
): string {
  const out: string[] = []; // block-level pieces, joined by blank lines (list items by single newlines)
  const outBlock: number[] = [];
  let run = emptyRun();
  let pending = false;
  const flushStandalone = () => {
    if (!pending) return;
    const m = elisionMarker(run);
    stats?.markers.push(m);
    out.push(m);
    outBlock.push(-1);
    run = emptyRun();
    pending = false;
  };
  let u = 0;
  for (let b = 0; b < blocks.length; b++) {
    const blk = blocks[b]!;
    const first = u;
    while (u < units.length && units[u]!.block === b) u++;
    if (first === u) continue;
    const parts: string[] = [];
    let allKept = true;
    for (let k = first; k < u; k++) {
      const unit = units[k]!;
      if (!kept[k]) {
        addToRun(run, unit.kind, unit, tokens[k]!);
        pending = true;
        allKept = false;
        continue;
      }
      if (pending) {
        if (parts.length) {
          const m = elisionMarker(run);
          stats?.markers.push(m);
          parts.push(m);
          run = emptyRun();
          pending = false;
        } else flushStandalone();
      }
      parts.push(text.slice(unit.start, unit.end));
    }
    if (!parts.length) continue;
    let rendered: string;
    if (allKept) rendered = text.slice(blk.start, blk.end);
    else if (blk.kind === 'paragraph' || blk.kind === 'list' || blk.kind === 'quote') rendered = blk.prefix + parts.join(' ');
    else if (blk.kind === 'code' && blk.closeLine >= 0 && !kept[u - 1]) {
      // Summarised fenced code: the last chunk (which holds the closing fence) was dropped, so close it.
      const close = blk.lines[blk.closeLine]!;
      rendered = parts.join('\n') + '\n' + text.slice(close.start, close.end);
    } else rendered = parts.join('\n');
    out.push(rendered);
    outBlock.push(b);
  }
  flushStandalone();
  if (stats) stats.pieces = out.length;
  let s = '';
  for (let k = 0; k < out.length; k++) {
    if (k > 0) {
      const a = outBlock[k - 1]!, c = outBlock[k]!;
      const tight = a >= 0 && c >= 0 && blocks[a]!.kind === 'list' && blocks[c]!.kind === 'list' && c === a + 1;
      s += tight ? '\n' : '\n\n';
    }
    s += out[k];
  }
  return s;
}

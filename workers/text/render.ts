// Faithful skeleton: original order, verbatim kept text, elision markers for every dropped run.
import type { Block } from '../shared/markdown.js';
import type { Unit, UnitKind } from './units.js';
import { headingName, markerRef, MAX_NAMES, nameList, plural, REF_PLACEHOLDER, textHashOf, type MarkerLayout } from './markers.js';
import type { TreeLayout } from './tree.js';
import { treeMarkerFor, renderTree } from './treeRender.js';

/** One analysed document: what renderSkeleton needs besides the kept flags. */
export interface Skeleton {
  text: string;
  blocks: Block[];
  units: Unit[];
  tokens: ArrayLike<number>;
  /** Tokens between unit k-1 and unit k that neither holds (list bullets, rules, blank lines). */
  gaps?: ArrayLike<number>;
  /** Structured text (JSON, YAML): units are values, rendered by treeRender.ts. */
  tree?: TreeLayout | null;
}

interface Run {
  headings: number;
  /**
   * Names of the first hidden headings of the run's shallowest level (markers.ts shows at most
   * MAX_NAMES): a run that hides `### Bug fixes`, `## 2.1.0`, `## 2.0.0` names the two releases.
   */
  names: string[];
  nameLevel: number;
  sentences: number;
  rows: number;
  codeLines: number;
  blocks: number;
  tokens: number;
  /** Offsets of the hidden text in the original: the first hidden unit's start, the last one's end. */
  start: number;
  end: number;
  /** The last hidden unit so far. */
  last: number;
}

const emptyRun = (): Run => ({ headings: 0, names: [], nameLevel: 7, sentences: 0, rows: 0, codeLines: 0, blocks: 0, tokens: 0, start: -1, end: -1, last: -1 });


/**
 * With an id (served outputs, docs/markers.md): `[… Install, Usage +3 more: 212 tokens #482913650271.0]`,
 * the hidden headings by name, the hidden tokens and the id; short, since markers are paid for out of
 * the fidelity's budget. Without: `[… 3 sentences, 212 tokens]`, parts with a zero count left out.
 */
export function elisionMarker(run: Run, id?: string): string {
  if (id) {
    const names = nameList(run.names, run.headings);
    return `[… ${names ? `${names}: ` : ''}${plural(run.tokens, 'token', 'tokens')} #${id}]`;
  }
  const parts: string[] = [];
  if (run.headings) parts.push(plural(run.headings, 'heading', 'headings'));
  if (run.sentences) parts.push(plural(run.sentences, 'sentence', 'sentences'));
  if (run.rows) parts.push(plural(run.rows, 'row', 'rows'));
  if (run.codeLines) parts.push(plural(run.codeLines, 'code line', 'code lines'));
  if (run.blocks) parts.push(plural(run.blocks, 'block', 'blocks'));
  parts.push(plural(run.tokens, 'token', 'tokens'));
  return `[… ${parts.join(', ')}]`;
}

function addToRun(run: Run, sk: Skeleton, k: number): void {
  const u = sk.units[k]!;
  const kind: UnitKind = u.kind;
  // The list markup and blank lines between two hidden units are hidden too (not what precedes the
  // run's first unit, outside the span its id expands to; an empty run's last is -1, as is 0 - 1).
  if (run.last >= 0 && run.last === k - 1 && sk.gaps) run.tokens += sk.gaps[k]!;
  run.tokens += sk.tokens[k]!;
  run.last = k;
  if (run.start < 0) run.start = u.start;
  run.end = u.end;
  if (kind === 'heading') {
    const level = sk.blocks[u.block]!.level;
    if (level < run.nameLevel) {
      run.names.length = 0;
      run.nameLevel = level;
    }
    if (level === run.nameLevel && run.names.length < MAX_NAMES) run.names.push(headingName(sk.text.slice(u.start, u.end)));
    run.headings++;
  } else if (kind === 'sentence') run.sentences++;
  else if (kind === 'row' || kind === 'table-head') run.rows++;
  else if (kind === 'html') run.blocks++;
  else run.codeLines += u.lineCount;
}

/**
 * The marker that would stand for units `from`..`to` (inclusive) when they are dropped together;
 * with a ref, priced with an id of the same token cost as the real one (markers.ts).
 */
export function markerFor(sk: Skeleton, from: number, to: number, ref?: string | null): string {
  if (sk.tree) return treeMarkerFor(sk, sk.tree, from, to, ref);
  const run = emptyRun();
  for (let k = from; k <= to; k++) addToRun(run, sk, k);
  return elisionMarker(run, ref ? `${ref}.0` : undefined);
}

/** Filled by renderSkeleton when passed: what was added around the verbatim unit text. */
export interface RenderStats {
  markers: string[];
  pieces: number;
  /** Hidden spans, one [start, end) pair per marker in output order (flat). */
  spans?: number[];
}

/** The original whitespace between two offsets when it holds a line break, else one space. */
function lineBreakOr(text: string, from: number, to: number): string {
  const gap = text.slice(from, to);
  return gap.includes('\n') && gap.trim() === '' ? gap : ' ';
}

export function renderSkeleton(sk: Skeleton, kept: ArrayLike<number>, stats?: RenderStats, ref?: string | null): string {
  if (sk.tree) return renderTree(sk, sk.tree, kept, stats, ref);
  const { text, blocks, units } = sk;
  const out: string[] = []; // block-level pieces, joined by blank lines (list items by single newlines)
  const outBlock: number[] = [];
  let run = emptyRun();
  let pending = false;
  let count = 0;
  /** The marker of the run so far; the run starts again. */
  const close = () => {
    const m = elisionMarker(run, ref ? `${ref}.${count}` : undefined);
    count++;
    stats?.markers.push(m);
    stats?.spans?.push(run.start, run.end);
    run = emptyRun();
    pending = false;
    return m;
  };
  const flushStandalone = () => {
    if (!pending) return;
    out.push(close());
    outBlock.push(-1);
  };
  let u = 0;
  for (let b = 0; b < blocks.length; b++) {
    const blk = blocks[b]!;
    const first = u;
    while (u < units.length && units[u]!.block === b) u++;
    if (first === u) continue;
    const parts: string[] = [];
    const prose = blk.kind === 'paragraph' || blk.kind === 'list' || blk.kind === 'quote';
    const fresh = !pending;
    let allKept = true;
    let keptEnd = -1; // end of the last kept unit of this block
    for (let k = first; k < u; k++) {
      if (!kept[k]) {
        addToRun(run, sk, k);
        pending = true;
        allKept = false;
        continue;
      }
      if (pending) {
        if (parts.length && prose) {
          // A marker inside prose stands where the hidden units stood: on a line of its own when they
          // began and ended at line breaks (JSON, logs, listings), between spaces in running prose.
          const before = lineBreakOr(text, keptEnd, run.start);
          const after = lineBreakOr(text, run.end, units[k]!.start);
          parts[parts.length - 1] += before + close() + after + text.slice(units[k]!.start, units[k]!.end);
          keptEnd = units[k]!.end;
          continue;
        }
        if (parts.length) parts.push(close());
        else flushStandalone();
      } else if (parts.length && prose) {
        // Next to the kept unit before it: the original text between them (a line break and its
        // indentation in JSON, logs and wrapped prose), not a space, so the lines keep their layout.
        parts[parts.length - 1] += text.slice(units[k - 1]!.end, units[k]!.end);
        keptEnd = units[k]!.end;
        continue;
      }
      parts.push(text.slice(units[k]!.start, units[k]!.end));
      keptEnd = units[k]!.end;
    }
    if (!parts.length) {
      // A whole block hidden by a run that starts in it: its list or quote prefix is hidden too.
      if (fresh && pending) run.start = Math.min(run.start, blk.start);
      continue;
    }
    let rendered: string;
    if (allKept) rendered = text.slice(blk.start, blk.end);
    else if (prose) rendered = blk.prefix + parts.join(' ');
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

/** The skeleton with its markers' final ids and the layout that expands them; null without markers. */
export function renderWithIds(sk: Skeleton, kept: ArrayLike<number>): { out: string; layout: MarkerLayout } | null {
  const stats: RenderStats = { markers: [], pieces: 0, spans: [] };
  renderSkeleton(sk, kept, stats, REF_PLACEHOLDER);
  if (!stats.markers.length) return null;
  const textHash = textHashOf(sk.text);
  const ref = markerRef(textHash, stats.spans!);
  return { out: renderSkeleton(sk, kept, undefined, ref), layout: { ref, textHash, spans: stats.spans! } };
}

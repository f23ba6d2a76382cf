// Faithful skeleton: original order, verbatim kept text, elision markers for every dropped run.
import type { Unit, UnitKind } from './units.js';
import { headingName, markerRef, MAX_NAMES, nameList, plural, REF_PLACEHOLDER, textHashOf, type MarkerLayout } from './markers.js';
import { treeMarkerFor, renderTree } from './treeRender.js';
import type { RenderStats, Skeleton } from './skeleton.js';

export type { RenderStats, Skeleton };

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

/** One run of hidden units (`from`..`to`, inclusive) and the span of the input its marker stands for. */
export interface HiddenRun {
  from: number;
  to: number;
  start: number;
  end: number;
}

/**
 * The runs of hidden units of a Markdown skeleton and their spans. A run's span is its units' text,
 * and the list or quote prefix of a block it hides whole. A run that hides the end of a fenced block
 * whose opening is kept ends before the closing fence, so the fence is copied and the output's code
 * block closes where the input's does; what follows the block is another run.
 */
export function hiddenRuns(sk: Skeleton, kept: ArrayLike<number>): HiddenRun[] {
  const { blocks, units } = sk;
  const runs: HiddenRun[] = [];
  let run: HiddenRun | null = null;
  for (let k = 0; k < units.length; k++) {
    const u = units[k]!;
    if (kept[k]) {
      run = null;
      continue;
    }
    const blk = blocks[u.block]!;
    const opensBlock = k === 0 || units[k - 1]!.block !== u.block;
    if (!run) {
      run = { from: k, to: k, start: opensBlock && blockHidden(units, kept, k) ? blk.start : u.start, end: u.end };
      runs.push(run);
    }
    run.to = k;
    run.end = u.end;
    if (blk.kind === 'code' && blk.closeLine > 0 && u.end === blk.end && !opensBlock && keptInBlock(units, kept, k)) {
      run.end = Math.max(run.start, blk.lines[blk.closeLine - 1]!.end);
      run = null;
    }
  }
  return runs;
}

/**
 * The document as written with each hidden run (hiddenRuns) replaced by its marker, everything else
 * copied byte for byte (whitespace, list bullets, rules, fences), so that the output with every marker
 * replaced by the text its id expands to is the input exactly (issue 48).
 */
export function renderSkeleton(sk: Skeleton, kept: ArrayLike<number>, stats?: RenderStats, ref?: string | null): string {
  if (sk.tree) return renderTree(sk, sk.tree, kept, stats, ref);
  const { text } = sk;
  let out = '';
  let copied = 0;
  let pieces = 0;
  for (let k = 1; k < sk.units.length; k++) if (kept[k] && kept[k - 1]) pieces += sk.gaps?.[k] ?? 1;
  const runs = hiddenRuns(sk, kept);
  runs.forEach((r, count) => {
    const run = emptyRun();
    for (let k = r.from; k <= r.to; k++) addToRun(run, sk, k);
    const m = elisionMarker(run, ref ? `${ref}.${count}` : undefined);
    out += text.slice(copied, r.start) + m;
    copied = r.end;
    stats?.markers.push(m);
    stats?.spans?.push(r.start, r.end);
  });
  out += text.slice(copied);
  if (stats) stats.pieces = pieces + 2 * runs.length;
  return out;
}

/** Whether every unit of unit k's block, from k on, is hidden (k is the block's first unit). */
function blockHidden(units: Unit[], kept: ArrayLike<number>, k: number): boolean {
  for (let j = k; j < units.length && units[j]!.block === units[k]!.block; j++) if (kept[j]) return false;
  return true;
}

/** Whether some unit of unit k's block before k is kept. */
function keptInBlock(units: Unit[], kept: ArrayLike<number>, k: number): boolean {
  for (let j = k - 1; j >= 0 && units[j]!.block === units[k]!.block; j--) if (kept[j]) return true;
  return false;
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

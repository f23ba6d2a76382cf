// Skeletons of structured text (JSON, YAML, XML): the document verbatim, each run of hidden sibling values
// replaced by one marker where it stood (`[… 12 items (1011, 1012, …): 1900 tokens #…]`,
// `[… labels, user +2 more: 80 tokens #…]`).
import type { TreeContainer, TreeKind, TreeLayout } from './tree.js';
import { headingName, nameList, plural, MAX_NAMES } from './markers.js';
import type { RenderStats, Skeleton } from './skeleton.js';
import { tokensBetween } from './tokencount.js';

interface TreeRun {
  start: number;
  end: number;
  kind: TreeKind;
  /** Values hidden (array elements, object members or sentences of a string). */
  count: number;
  /** The first MAX_NAMES non-empty names of what is hidden (keys, record labels). */
  names: string[];
  /** Hidden object members with a key (YAML comments between them have none). */
  keyed: number;
}

const NOUN = { array: ['item', 'items'], object: ['key', 'keys'], string: ['sentence', 'sentences'], lines: ['line', 'lines'] } as const;

/**
 * With an id: `[… 12 items (1011, 1012, …): 1900 tokens #id]` (records by label), `[… labels, user +2
 * more: 80 tokens #id]` (members by key), `[… 3 sentences: 120 tokens #id]`; without: `[… 12 items, 1900 tokens]`.
 */
function treeMarker(run: TreeRun, layout: TreeLayout, id?: string): string {
  const [one, many] = NOUN[run.kind];
  const what = plural(run.count, one, many);
  // The exact hidden span's tokens, structure included (counted once the run is complete).
  const tokens = plural(tokensBetween(layout.pieces, run.start, run.end), 'token', 'tokens');
  // Members without keys (comments between YAML keys or XML elements) are not counted as keys.
  const unkeyed = run.kind === 'object' && run.keyed === 0;
  if (!id) return unkeyed ? `[… ${tokens}]` : `[… ${what}, ${tokens}]`;
  if (unkeyed) return `[… ${tokens} #${id}]`;
  let label = what;
  if (run.kind === 'object' && run.names.length) label = nameList(run.names, run.keyed);
  else if (run.kind === 'array' && run.names.length) label = `${what} (${run.names.join(', ')}${run.count > run.names.length ? ', …' : ''})`;
  return `[… ${label}: ${tokens} #${id}]`;
}

const newRun = (kind: TreeKind): TreeRun => ({ start: -1, end: -1, kind, count: 0, names: [], keyed: 0 });

/** Names are cleaned as heading names are (markers.ts), only the few a marker shows. */
function addName(run: TreeRun, name: string | null): void {
  if (run.names.length >= MAX_NAMES || !name) return;
  const clean = headingName(name);
  if (clean) run.names.push(clean);
}

function addPart(run: TreeRun, sk: Skeleton, layout: TreeLayout, part: number | TreeContainer): void {
  const { start, end } = typeof part === 'number' ? sk.units[part]! : part;
  if (run.start < 0) run.start = start;
  run.end = end;
  if (typeof part === 'number') {
    // Labels are read only for the few names a marker shows.
    for (const c of layout.members[part]!) {
      if (c.key !== null) run.keyed++;
      if (run.names.length < MAX_NAMES) addName(run, run.kind === 'object' ? c.key : run.kind === 'array' ? layout.label(c) : null);
    }
    run.count += Math.max(1, layout.members[part]!.length); // a sentence is one
  } else {
    if (part.key !== null) run.keyed++;
    addName(run, run.kind === 'object' ? part.key : part.label);
    run.count++;
  }
}

function anyKept(c: TreeContainer, kept: ArrayLike<number>): boolean {
  return c.parts.some((p) => (typeof p === 'number' ? kept[p] === 1 : anyKept(p, kept)));
}

/** The marker that would stand for units `from`..`to` dropped together (settle's pricing). */
export function treeMarkerFor(sk: Skeleton, layout: TreeLayout, from: number, to: number, ref?: string | null): string {
  const run = newRun(layout.kinds[from]!);
  for (let k = from; k <= to; k++) addPart(run, sk, layout, k);
  return treeMarker(run, layout, ref ? `${ref}.0` : undefined);
}

export function renderTree(sk: Skeleton, layout: TreeLayout, kept: ArrayLike<number>, stats?: RenderStats, ref?: string | null): string {
  const { text } = sk;
  let out = '';
  let copied = 0;
  let count = 0;
  let structure = 0;
  const close = (run: TreeRun) => {
    if (run.start < 0) return;
    const m = treeMarker(run, layout, ref ? `${ref}.${count}` : undefined);
    count++;
    out += text.slice(copied, run.start) + m;
    copied = run.end;
    stats?.markers.push(m);
    stats?.spans?.push(run.start, run.end);
  };
  const walk = (c: TreeContainer) => {
    let run = newRun(c.kind);
    for (const p of c.parts) {
      const hidden = typeof p === 'number' ? !kept[p] : !anyKept(p, kept);
      if (hidden) {
        addPart(run, sk, layout, p);
        continue;
      }
      close(run);
      run = newRun(c.kind);
      if (typeof p === 'number') structure += sk.gaps?.[p] ?? 1;
      else walk(p);
    }
    close(run);
  };
  walk(layout.root);
  out += text.slice(copied);
  if (stats) stats.pieces = structure;
  return out;
}

// Changelogs: which section is which release, newest first. A changelog is read for what changed
// lately; without this the detail-seeking selection of plain mode keeps older entries that hold rare
// names over the newest release's (acorn's and xmldom's changelogs at balanced).
import type { Block } from '../shared/markdown.js';
import { headingName } from './markers.js';
import type { Unit } from './units.js';

/**
 * A release heading: an optional package name, then a version (`1.2.3`, `v1.2`, `[0.8.15](…)`,
 * `domino 2.1.6 (16 Jul 2020)`, `4.17.1 / 2019-05-25`) or an ISO date. A version without `v` must
 * stand alone or before a date, so numbered sections (`3.1 Overview`, `2.4.1 Scope`) are not releases.
 */
const VERSION = /^(?:[\w@/.-]+\s+)?(v(?:ersion)?\s*)?(\d+(?:\.\d+){1,3})(?:[-+][\w.]+)?\b(.*)$/i;
const DATE_ONLY = /^\W*(?:-|–|—|\/)?\W*(?:\d{4}-\d{2}-\d{2}|\d{1,2} \w+ \d{4}|\w+ \d{1,2},? \d{4}|unreleased|yanked)?\W*$/i;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})\b/;
const UNRELEASED = /^(?:[\w@/.-]+\s+)?(?:unreleased|x\.x\.x|upcoming)\b/i;
/** A changelog has at least this many release headings. */
const MIN_RELEASES = 3;

/** A release's sort key (version parts or date parts; unreleased sorts above all), or null. */
function releaseKey(heading: string): number[] | null {
  const name = heading.replace(/[*_`]/g, ''); // `## **6.17.1**` (qs)
  if (UNRELEASED.test(name)) return [Infinity];
  const date = ISO_DATE.exec(name);
  if (date) return [Number(date[1]), Number(date[2]), Number(date[3])];
  const m = VERSION.exec(name);
  if (!m) return null;
  if (!m[1] && !DATE_ONLY.test(m[3]!)) return null;
  return m[2]!.split('.').map(Number);
}

function compareKeys(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * Each unit's release rank (0 = newest release, counting in the changelog's own order, newest-first
 * or oldest-first), or -1 outside every release section; null when the text is not a changelog:
 * fewer than MIN_RELEASES release headings, or release sections holding less than half of the text
 * (a README that ends with a short changelog, tree-kill's, is read for its usage first). A unit
 * belongs to the last release heading before it, until a heading above every release's level:
 * standard-version puts patch releases at `###`, beside their own `### Bug Fixes`, and minor ones
 * at `##`.
 */
export function releaseRanks(text: string, blocks: readonly Block[], units: readonly Unit[]): Int32Array | null {
  const releases: { block: number; key: number[] }[] = [];
  let top = 7;
  for (let b = 0; b < blocks.length; b++) {
    const blk = blocks[b]!;
    if (blk.kind !== 'heading') continue;
    const key = releaseKey(headingName(text.slice(blk.start, blk.end)));
    if (!key) continue;
    releases.push({ block: b, key });
    top = Math.min(top, blk.level);
  }
  if (releases.length < MIN_RELEASES) return null;
  // Newest first unless the first release sorts below the last (an unreleased section sorts above all).
  const oldestFirst = compareKeys(releases[0]!.key, releases[releases.length - 1]!.key) < 0;
  const rankOf = new Map<number, number>();
  releases.forEach((r, i) => rankOf.set(r.block, oldestFirst ? releases.length - 1 - i : i));
  const ranks = new Int32Array(units.length).fill(-1);
  let current = -1;
  let inReleases = 0;
  let all = 0;
  for (let i = 0; i < units.length; i++) {
    const u = units[i]!;
    const blk = blocks[u.block]!;
    if (u.kind === 'heading') {
      const r = rankOf.get(u.block);
      if (r !== undefined) current = r;
      else if (blk.level < top) current = -1;
    }
    ranks[i] = current;
    const len = u.end - u.start;
    all += len;
    if (current >= 0) inReleases += len;
  }
  return inReleases * 2 >= all ? ranks : null;
}

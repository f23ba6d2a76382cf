// Changelogs: which section is which release, newest first. A changelog is read for what changed
// lately; without this the detail-seeking selection of plain mode keeps older entries that hold rare
// names over the newest release's (acorn's and xmldom's changelogs at balanced).
import type { Block } from '../shared/markdown.js';
import { headingName } from './markers.js';
import type { Unit } from './units.js';

/**
 * A release heading: an optional package name, then a version (`1.2.3`, `v1.2`, `[0.8.15](…)`,
 * `domino 2.1.6 (16 Jul 2020)`, `4.17.1 / 2019-05-25`) or an ISO date. A two-part version without
 * `v` must stand alone or before a date, so numbered sections (`3.1 Overview`) are not releases.
 */
const VERSION = /^(?:[\w@/.-]+\s+)?(v(?:ersion)?\s*)?(\d+(?:\.\d+){1,3})(?:[-+][\w.]+)?\b(.*)$/i;
const DATE_ONLY = /^\W*(?:-|–|—|\/)?\W*(?:\d{4}-\d{2}-\d{2}|\d{1,2} \w+ \d{4}|\w+ \d{1,2},? \d{4})?\W*$/;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})\b/;
const UNRELEASED = /^(?:[\w@/.-]+\s+)?(?:unreleased|x\.x\.x|upcoming)\b/i;
/** Release headings at one level: at least this many, and at least half of that level's headings. */
const MIN_RELEASES = 3;

/** A release's sort key (version parts or date parts; unreleased sorts above all), or null. */
function releaseKey(name: string): number[] | null {
  if (UNRELEASED.test(name)) return [Infinity];
  const date = ISO_DATE.exec(name);
  if (date) return [Number(date[1]), Number(date[2]), Number(date[3])];
  const m = VERSION.exec(name);
  if (!m) return null;
  const parts = m[2]!.split('.').map(Number);
  if (parts.length < 3 && !m[1] && !DATE_ONLY.test(m[3]!)) return null;
  return parts;
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
 * or oldest-first), or -1 outside every release section; null when the text is not a changelog.
 */
export function releaseRanks(text: string, blocks: readonly Block[], units: readonly Unit[]): Int32Array | null {
  const byLevel = new Map<number, { headings: number; releases: { block: number; key: number[] }[] }>();
  for (let b = 0; b < blocks.length; b++) {
    const blk = blocks[b]!;
    if (blk.kind !== 'heading') continue;
    let level = byLevel.get(blk.level);
    if (!level) byLevel.set(blk.level, (level = { headings: 0, releases: [] }));
    level.headings++;
    const key = releaseKey(headingName(text.slice(blk.start, blk.end)));
    if (key) level.releases.push({ block: b, key });
  }
  let best: { headings: number; releases: { block: number; key: number[] }[] } | undefined;
  for (const level of byLevel.values()) if (!best || level.releases.length > best.releases.length) best = level;
  if (!best || best.releases.length < MIN_RELEASES || best.releases.length * 2 < best.headings) return null;
  const rels = best.releases;
  // Newest first unless the first release sorts below the last (an unreleased section sorts above all).
  const oldestFirst = compareKeys(rels[0]!.key, rels[rels.length - 1]!.key) < 0;
  const rankOf = new Map<number, number>();
  rels.forEach((r, i) => rankOf.set(r.block, oldestFirst ? rels.length - 1 - i : i));
  const ranks = new Int32Array(units.length).fill(-1);
  for (let i = 0; i < units.length; i++) {
    for (const h of blocks[units[i]!.block]!.headings) {
      const r = rankOf.get(h);
      if (r !== undefined) {
        ranks[i] = r;
        break;
      }
    }
  }
  return ranks;
}

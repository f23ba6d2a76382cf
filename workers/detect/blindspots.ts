// Blind spots: critical information of the original that the compressed text lost. Compression drops
// most sentences by design, so only critical kinds count (warnings and prohibitions, error codes,
// limits, recurring identifiers, whole sections), grouped per section and capped.
import { coverage, wordTerms } from './align.js';
import type { SegmentIndex } from './align.js';
import type { Alignment, Context } from './hallucination.js';
import { UNSUPPORTED_COVERAGE } from './hallucination.js';
import { CODE_LIKE, errorCodeMatches, mentionsErrorCode, identifierMatches, limits, mentionsNumber, negations, numberCanonical, warningCue, warningLevel } from './features.js';
import { lineOf } from './segment.js';
import type { DetectedIssue, Severity } from './types.js';
import { quote } from './types.js';

/** At most this many blind spots are listed (the rest are summarised in one issue with location null). */
export const MAX_BLIND_SPOTS = 20;
/** Of which at most this many low-severity ones. */
export const MAX_LOW_BLIND_SPOTS = 6;
/** A warning counts as restated when one compressed segment covers this share of its words and carries a cue. */
const RESTATED_COVERAGE = 0.7;
/** An identifier must occur this often in the original to count as critical. */
const RECURRENT = 2;

type Kind = 'warning' | 'error_code' | 'section' | 'limit' | 'identifier';
const KIND_ORDER: Record<Kind, number> = { warning: 0, error_code: 1, section: 2, limit: 3, identifier: 4 };
const SEVERITY_ORDER: Record<Severity, number> = { high: 0, medium: 1, low: 2 };

interface Lost {
  kind: Kind;
  severity: Severity;
  /** Original segment index (first occurrence). */
  seg: number;
  what: string;
}

interface Candidate {
  issue: DetectedIssue;
  kind: Kind;
  line: number;
}

export function detectBlindSpots(ctx: Context, alignments: Alignment[], compIndex: SegmentIndex): DetectedIssue[] {
  const { orig, comp } = ctx;
  const segs = orig.segments;
  const n = segs.length;

  // 1. Which original segments survive (verbatim, or as the aligned source of a compressed segment).
  const retained = new Uint8Array(n);
  for (const a of alignments) {
    if (!a.support.length || (!a.verbatim && a.covered < UNSUPPORTED_COVERAGE)) continue;
    for (const s of a.support) retained[s] = 1;
  }
  // Verbatim survivors; the substring scan runs only where every term also occurs in the compressed text.
  const compTerms = new Set<string>();
  for (const list of compIndex.docTerms) for (const t of list) compTerms.add(t);
  for (let i = 0; i < n; i++) {
    if (retained[i] || !ctx.origIndex.docTerms[i]!.every((t) => compTerms.has(t))) continue;
    if (comp.norm.includes(segs[i]!.text)) retained[i] = 1;
  }
  // Offsets -> segment (segments are in order and do not overlap).
  const starts = segs.map((s) => s.start);
  const segAt = (offset: number): number => {
    let lo = 0, hi = n - 1, ans = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! <= offset) [ans, lo] = [mid, mid + 1];
      else hi = mid - 1;
    }
    return ans >= 0 && offset < segs[ans]!.end ? ans : -1;
  };

  const compCanon = numberCanonical(comp.norm);
  const idf = (t: string) => ctx.origIndex.idf(t);
  /** A dropped warning may survive reworded: one compressed segment covering most of it, with a cue. */
  const restated = (i: number): boolean => {
    const q = wordTerms(ctx.origIndex.docTerms[i]!);
    if (!q.length) return false;
    for (const h of compIndex.search(q, 3)) {
      const cText = comp.segments[h.doc]!.text;
      if (!warningCue(cText) && !negations(cText).length) continue;
      if (coverage(q, new Set(compIndex.docTerms[h.doc]), idf).covered >= RESTATED_COVERAGE) return true;
    }
    return false;
  };

  // 2. Sections: heading -> [start, end) over segments; vanished when nothing of it survives.
  const heads: number[] = [];
  for (let i = 0; i < n; i++) if (segs[i]!.kind === 'heading') heads.push(i);
  const sectionEnd = new Map<number, number>();
  const parent = new Map<number, number>();
  const stack: number[] = [];
  heads.forEach((h, k) => {
    sectionEnd.set(h, k + 1 < heads.length ? heads[k + 1]! : n);
    while (stack.length && segs[stack[stack.length - 1]!]!.level >= segs[h]!.level) stack.pop();
    parent.set(h, stack.length ? stack[stack.length - 1]! : -1);
    stack.push(h);
  });
  const vanished = new Set<number>();
  for (const h of heads) {
    let kept = false;
    for (let i = h; i < sectionEnd.get(h)! && !kept; i++) kept = retained[i] === 1;
    if (!kept) vanished.add(h);
  }
  // A vanished subsection of a vanished section folds into it; a parent whose subsections survive is not vanished.
  const rootOf = (h: number): number => {
    let r = h;
    for (let p = parent.get(r)!; p !== undefined && p >= 0 && vanished.has(p); p = parent.get(p)!) r = p;
    return r;
  };
  // Subtree end of a heading (through its subsections), for line ranges and parent checks.
  const subtreeEnd = (h: number): number => {
    const lvl = segs[h]!.level;
    let k = heads.indexOf(h) + 1;
    while (k < heads.length && segs[heads[k]!]!.level > lvl) k++;
    return k < heads.length ? heads[k]! : n;
  };
  for (const h of [...vanished]) {
    // Only a section whose whole subtree vanished counts as vanished.
    const end = subtreeEnd(h);
    for (let i = h; i < end; i++) {
      if (retained[i]) {
        vanished.delete(h);
        break;
      }
    }
  }
  const sectionOf = (i: number): number => segs[i]!.section; // heading index or -1

  // 3. Critical items, lost ones attributed to their section (or its vanished root).
  const lost: Lost[] = [];
  for (let i = 0; i < n; i++) {
    const s = segs[i]!;
    if (s.kind === 'code' || s.kind === 'heading') continue;
    if (retained[i]) continue;
    const level = warningLevel(s.text);
    if (level && !restated(i)) lost.push({ kind: 'warning', severity: level, seg: i, what: quote(s.text, 100) });
    {
      const lim = limits(s.text).filter((x) => !mentionsNumber(compCanon, x.value));
      if (lim.length) lost.push({ kind: 'limit', severity: 'medium', seg: i, what: quote(s.text, 100) });
    }
  }
  // Error codes (one pass over the whole original), wherever they are, when absent from the compressed text.
  const seenCode = new Set<string>();
  for (const { code, index } of errorCodeMatches(orig.raw)) {
    const i = segAt(index);
    if (i < 0 || segs[i]!.kind === 'code' || segs[i]!.kind === 'heading' || seenCode.has(`${i}:${code}`)) continue;
    seenCode.add(`${i}:${code}`);
    if (!mentionsErrorCode(comp.raw, code)) lost.push({ kind: 'error_code', severity: 'medium', seg: i, what: code });
  }
  // Recurring identifiers absent from the compressed text altogether (one pass over the whole original).
  const idCount = new Map<string, { count: number; seg: number }>();
  const perSeg = new Set<string>();
  for (const id of identifierMatches(orig.raw, CODE_LIKE)) {
    if (id.text.length < 3) continue;
    const i = segAt(id.index);
    if (i < 0 || segs[i]!.kind === 'code') continue;
    const key = `${i}\u0000${id.text}`;
    if (perSeg.has(key)) continue;
    perSeg.add(key);
    const e = idCount.get(id.text);
    if (e) e.count++;
    else idCount.set(id.text, { count: 1, seg: i });
  }
  for (const [id, { count, seg }] of idCount) {
    if (count >= RECURRENT && !comp.raw.includes(id)) lost.push({ kind: 'identifier', severity: 'low', seg, what: `\`${id.length > 60 ? id.slice(0, 59) + '…' : id}\`` });
  }

  // 4. Group: vanished sections take everything inside them; the rest per (section, kind).
  const sectionTitle = (h: number) => (h >= 0 ? quote(segs[h]!.text, 80) : null);
  const where = (lines: number[], h: number) => {
    const uniq = [...new Set(lines)].sort((a, b) => a - b);
    const shown = uniq.slice(0, 12).join(', ') + (uniq.length > 12 ? ` (+${uniq.length - 12} more)` : '');
    const sec = sectionTitle(h);
    return `original:${uniq.length === 1 ? 'line' : 'lines'} ${shown}${sec ? ` (section ${sec})` : ''}`;
  };
  const vanishedRoots = new Map<number, Lost[]>();
  for (const h of vanished) if (rootOf(h) === h) vanishedRoots.set(h, []);
  const groups = new Map<string, { h: number; kind: Kind; items: Lost[] }>();
  for (const item of lost) {
    const h = sectionOf(item.seg);
    const root = h >= 0 && vanished.has(h) ? rootOf(h) : -2;
    if (root !== -2 && vanishedRoots.has(root)) {
      vanishedRoots.get(root)!.push(item);
      continue;
    }
    const key = `${h}:${item.kind}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { h, kind: item.kind, items: [] }));
    g.items.push(item);
  }

  const cands: Candidate[] = [];
  for (const [h, items] of vanishedRoots) {
    const endSeg = subtreeEnd(h) - 1;
    const a = segs[h]!.line;
    const b = lineOf(orig.lineStarts, Math.max(segs[h]!.start, segs[endSeg]!.end - 1));
    const warns = items.filter((x) => x.kind === 'warning');
    const codes = items.filter((x) => x.kind === 'error_code');
    const lims = items.filter((x) => x.kind === 'limit');
    const ids = items.filter((x) => x.kind === 'identifier');
    const severity: Severity = warns.some((x) => x.severity === 'high') ? 'high' : warns.length || codes.length || lims.length ? 'medium' : 'low';
    const parts: string[] = [];
    if (warns.length) parts.push(`${warns.length} warning${warns.length > 1 ? 's' : ''} (${warns.slice(0, 2).map((x) => x.what).join('; ')}) at line${warns.length > 1 ? 's' : ''} ${[...new Set(warns.map((x) => segs[x.seg]!.line))].join(', ')}`);
    if (codes.length) parts.push(`error codes ${[...new Set(codes.map((x) => x.what))].slice(0, 5).join(', ')}`);
    if (lims.length) parts.push(`${lims.length} limit${lims.length > 1 ? 's' : ''} (${lims.slice(0, 2).map((x) => x.what).join('; ')})`);
    if (ids.length) parts.push(`identifiers ${ids.slice(0, 5).map((x) => x.what).join(', ')}`);
    cands.push({
      kind: 'section',
      line: a,
      issue: {
        type: 'blind_spot', severity,
        description: `Section ${sectionTitle(h)} was dropped entirely` + (parts.length ? `; it contained ${parts.join('; ')}` : ''),
        location: `original:lines ${a}-${b} (section ${sectionTitle(h)})`,
      },
    });
  }
  for (const g of groups.values()) {
    const items = g.items;
    const lines = items.map((x) => segs[x.seg]!.line);
    const severity = items.reduce<Severity>((s, x) => (SEVERITY_ORDER[x.severity] < SEVERITY_ORDER[s] ? x.severity : s), 'low');
    const sec = sectionTitle(g.h);
    const inSec = sec ? ` in section ${sec}` : '';
    let description: string;
    switch (g.kind) {
      case 'warning':
        description = items.length === 1 ? `Lost warning${inSec}: ${items[0]!.what}` : `Lost ${items.length} warnings${inSec}: ${items.slice(0, 3).map((x) => x.what).join('; ')}${items.length > 3 ? '; …' : ''}`;
        break;
      case 'error_code':
        description = `Lost error code${items.length > 1 ? 's' : ''}${inSec}: ${[...new Set(items.map((x) => x.what))].slice(0, 8).join(', ')}`;
        break;
      case 'limit':
        description = `Lost limit${items.length > 1 ? 's' : ''}${inSec}: ${items.slice(0, 3).map((x) => x.what).join('; ')}${items.length > 3 ? '; …' : ''}`;
        break;
      default:
        description = `Lost identifier${items.length > 1 ? 's' : ''} mentioned repeatedly in the original${inSec}: ${items.slice(0, 6).map((x) => x.what).join(', ')}${items.length > 6 ? ` (+${items.length - 6} more)` : ''}`;
    }
    cands.push({ kind: g.kind, line: Math.min(...lines), issue: { type: 'blind_spot', severity, description, location: where(lines, g.h) } });
  }

  // 5. Rank and cap.
  cands.sort((x, y) => SEVERITY_ORDER[x.issue.severity] - SEVERITY_ORDER[y.issue.severity] || KIND_ORDER[x.kind] - KIND_ORDER[y.kind] || x.line - y.line);
  const out: DetectedIssue[] = [];
  let low = 0;
  let dropped = 0;
  for (const c of cands) {
    if (out.length >= MAX_BLIND_SPOTS || (c.issue.severity === 'low' && low >= MAX_LOW_BLIND_SPOTS)) {
      dropped++;
      continue;
    }
    if (c.issue.severity === 'low') low++;
    out.push(c.issue);
  }
  if (dropped) {
    out.push({
      type: 'blind_spot', severity: 'low',
      description: `${dropped} further lower-priority blind spot${dropped > 1 ? 's' : ''} not listed`,
      location: null,
    });
  }
  return out;
}

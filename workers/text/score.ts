// Query-independent unit scores: centrality + structure priors + information density.
import type { Block } from '../shared/markdown.js';
import { linksOnly } from './links.js';
import type { Unit } from './units.js';
import { pagerank } from '../shared/pagerank.js';
import type { SimilarityGraph } from './graph.js';

export const WEIGHTS = { centrality: 0.4, prior: 0.35, density: 0.25 } as const;

const SIGNAL_WORDS = /\b(not|never|no|none|cannot|can't|don't|doesn't|won't|must|should|shall|required?|requires|warning|caution|important|note|deprecated|only|always|default|unless|avoid|error|fails?|limit|maximum|minimum)\b/gi;
export const NUMBER = /\b\d[\d.,:]*\b/g;
// The word alternatives all need a `_`, `.`, `(` or capital after word characters: the lookahead says
// so once, and a plain word fails there instead of in four backtracking alternatives (same matches).
export const IDENT = /`[^`]+`|\b(?=\w*[_.(A-Z])(?:[a-z]+[A-Z]\w*\b|\w+_\w+\b|\w+\.\w+(?:\.\w+)*\b|\w+\(\))|--?[a-z][\w-]+/g;
// Markdown links to anchors/URLs (tables of contents, badges) carry little information. The classes
// stop at the next bracket, so a unit of 50,000 `[` (a deep JSON value) is scanned once, not once per `[`.
const LINK_ONLY = /\[[^\][]*\]\([^)\]]*\)/g;
const PROPER = /\s\p{Lu}[\p{L}\d]+/gu;
/**
 * The document's lead: its first prose sentence with words of its own (badges and logos skipped), when
 * it comes before the second heading, i.e. under the title or before any heading. A README's or a
 * reference page's first sentence says what the thing is; without a bonus the detail-seeking selection
 * passes it over for any unit that holds a name or number. An HTML block with prose of its own counts
 * (many READMEs open with a centred `<p>`). -1 when there is none.
 */
export function leadUnit(text: string, blocks: Block[], units: Unit[]): number {
  let headings = 0;
  for (let i = 0; i < units.length; i++) {
    const u = units[i]!;
    if (u.kind === 'heading' && ++headings > 1) return -1;
    const s = text.slice(u.start, u.end);
    // Prose inside HTML (a `<p align=center>` description) is one unit, kept or dropped whole.
    if (u.kind === 'html' && !linksOnly(s) && wordCount(s.replace(/<[^>]*>/g, ' ').trim()) >= 4) return i;
    if (u.kind !== 'sentence' || blocks[u.block]!.kind !== 'paragraph') continue;
    if (!linksOnly(s) && wordCount(s.trim()) >= 4) return i;
  }
  return -1;
}

/** Matches of a global pattern that never matches empty: the count String#match would give, without its array. */
function countMatches(s: string, re: RegExp): number {
  re.lastIndex = 0;
  let c = 0;
  while (re.test(s)) c++;
  return c;
}

const SPACE = /\s/;
/** s.split(/\s+/).length without the split: one more than the number of whitespace runs. */
function wordCount(s: string): number {
  let runs = 0;
  let inRun = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const space = c === 32 || (c >= 9 && c <= 13) || (c > 127 && SPACE.test(s[i]!));
    if (space && !inRun) runs++;
    inRun = space;
  }
  return runs + 1;
}

/** Share of "informative" features per word, squashed to 0..1. */
export function density(s: string): number {
  const words = wordCount(s);
  const features =
    countMatches(s, NUMBER) +
    countMatches(s, IDENT) +
    countMatches(s, PROPER) * 0.5 - (s.includes('[') ? countMatches(s, LINK_ONLY) : 0) * 2 +
    countMatches(s, SIGNAL_WORDS);
  return Math.max(0, Math.min(1, features / (2 + words * 0.3)));
}

/** Structural prior in 0..1 by unit kind and position. */
function prior(u: Unit, blocks: Block[], sectionLead: boolean, position: number): number {
  switch (u.kind) {
    case 'heading':
      return 1 - 0.1 * (blocks[u.block]!.level - 1);
    case 'table-head':
      return 0.6;
    case 'code-head':
      return 0.45;
    case 'code':
      return 0.35;
    case 'code-body':
      return 0.1;
    case 'html':
      return 0;
    case 'row':
      return 0.15;
    case 'value':
      // JSON: the first records of a listing are what a reader looks at first (a head, like a log's).
      return 0.2 + 0.3 * (1 - position);
    case 'sentence': {
      let p = 0.1 + 0.15 * (1 - position);
      // A later clause of a sentence is no lead of anything.
      if (u.clause) return p;
      if (u.indexInBlock === 0) p += 0.25;
      if (sectionLead && u.indexInBlock === 0) p += 0.35;
      if (blocks[u.block]!.kind === 'list' && u.indexInBlock === 0) p += 0.05;
      return Math.min(1, p);
    }
  }
}

/** The three weighted components of a unit's plain score (explain_compression_decision shows them). */
export interface ScoreParts {
  centrality: Float64Array;
  prior: Float64Array;
  density: Float64Array;
}

export function plainScores(text: string, blocks: Block[], units: Unit[], graph: SimilarityGraph, parts?: ScoreParts): Float64Array {
  const n = units.length;
  const pr = pagerank(graph);
  let maxPr = 0;
  for (let i = 0; i < n; i++) if (pr[i]! > maxPr) maxPr = pr[i]!;
  const scores = new Float64Array(n);
  let lastSectionBlock = -2;
  for (let i = 0; i < n; i++) {
    const u = units[i]!;
    const blk = blocks[u.block]!;
    const section = blk.headings.length ? blk.headings[blk.headings.length - 1]! : -1;
    // The first prose block after a heading carries the section's lead sentence.
    let sectionLead = false;
    if (u.kind === 'sentence' && section !== lastSectionBlock && !linksOnly(text.slice(u.start, u.end))) {
      sectionLead = true;
      lastSectionBlock = section;
    }
    const c = maxPr > 0 ? pr[i]! / maxPr : 0;
    const d = u.kind === 'heading' || u.kind === 'html' ? 0 : density(text.slice(u.start, u.end));
    const p = prior(u, blocks, sectionLead, n > 1 ? i / (n - 1) : 0);
    scores[i] = WEIGHTS.centrality * c + WEIGHTS.prior * p + WEIGHTS.density * d;
    if (parts) {
      parts.centrality[i] = c;
      parts.prior[i] = p;
      parts.density[i] = d;
    }
  }
  return scores;
}

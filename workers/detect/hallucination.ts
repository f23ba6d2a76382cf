// Hallucinations: align every compressed segment to its best-supporting original segment(s), then
// compare what carries meaning (numbers and units, negation, modality, polar words, identifiers).
import { coverage, SegmentIndex, wordTerms } from './align.js';
import type { Segment, Segmented } from './segment.js';
import {
  antonymsOf, CODE_LIKE, identifiers, mentionsNumber, modals, negations, numberCanonical, numbers, polarWords, warningCue,
} from './features.js';
import type { ModalClass } from './features.js';
import type { DetectedIssue } from './types.js';
import { quote } from './types.js';
import { terms } from '../text/terms.js';
import { cosine } from '../shared/vectors.js';

/** Below this IDF-weighted word coverage a compressed segment has no aligned source. */
export const UNSUPPORTED_COVERAGE = 0.5;
/** Below this (and with several new content words) it is only partly supported (low severity). */
const PARTIAL_COVERAGE = 0.7;
/** Support grows past the best segment (merged sentences) only when that one covers this much. */
const UNION_FLOOR = 0.4;
const UNION_TARGET = 0.85;
const MAX_SUPPORT = 3;
const CANDIDATES = 8;
/** Cosine similarity at which an embedding match counts as support for a lexically unsupported segment. */
export const EMBED_SUPPORT = 0.8;

export interface Alignment {
  /** Compressed segment index. */
  seg: number;
  /** Supporting original segments, best first (empty when unsupported). */
  support: number[];
  /** IDF-weighted share of the compressed segment's word terms found in the support. */
  covered: number;
  verbatim: boolean;
  missing: string[];
  /** Verbatim text cut right after a negation ("Do not | delete the file"): the cue it dropped. */
  droppedNegation?: string | null;
}

const NEG_BEFORE = /(?:\b(?:not|never|no|cannot)|n['’]t)[\s*_:,]*$/i;

/**
 * A verbatim piece of the original can still flip its meaning when it starts right after a negation
 * ("Do not delete the file." -> "delete the file."). Returns the cue when every occurrence of `piece`
 * in the normalised original is preceded by one (and the piece itself does not start negated).
 */
function negatedEverywhere(norm: string, piece: string): string | null {
  if (/^\W*(?:not|never|no|don['’]t|do not|cannot)\b/i.test(piece)) return null;
  let cue: string | null = null;
  for (let at = norm.indexOf(piece); at >= 0; at = norm.indexOf(piece, at + 1)) {
    const m = NEG_BEFORE.exec(norm.slice(Math.max(0, at - 16), at));
    if (!m) return null;
    cue = m[0].trim();
  }
  return cue;
}

export interface Context {
  orig: Segmented;
  comp: Segmented;
  origIndex: SegmentIndex;
  compTerms: string[][];
  origByText: Map<string, number>;
}

export function compLocation(s: Segment): string {
  return `compressed:line ${s.line}, chars ${s.start}-${s.end}`;
}

function origRef(ctx: Context, i: number): string {
  return `original:line ${ctx.orig.segments[i]!.line}`;
}

const idfOf = (ctx: Context) => (t: string) => ctx.origIndex.idf(t);

/** Align one compressed segment lexically. */
function alignOne(ctx: Context, k: number): Alignment {
  const seg = ctx.comp.segments[k]!;
  const exact = ctx.origByText.get(seg.text);
  if (exact !== undefined) return { seg: k, support: [exact], covered: 1, verbatim: true, missing: [] };
  if (ctx.orig.norm.includes(seg.text)) {
    const p = ctx.origIndex.search(ctx.compTerms[k]!, 1)[0]?.doc;
    return { seg: k, support: p === undefined ? [] : [p], covered: 1, verbatim: true, missing: [], droppedNegation: negatedEverywhere(ctx.orig.norm, seg.text) };
  }
  const all = ctx.compTerms[k]!;
  // Coverage runs on the words around identifiers and numbers: those are compared one by one later,
  // so a swapped identifier reads as "aligned, identifier changed", not as an unsupported sentence.
  let plain = seg.text;
  for (const id of identifiers(ctx.comp.raw.slice(seg.start, seg.end))) if (CODE_LIKE.has(id.kind)) plain = plain.split(id.text).join(' ');
  const plainWords = wordTerms(terms(plain));
  const words = new Set(plainWords).size >= 2 ? plainWords : wordTerms(all);
  const query = words.length ? words : all;
  const hits = ctx.origIndex.search(all, CANDIDATES);
  if (!hits.length) return { seg: k, support: [], covered: query.length ? 0 : 1, verbatim: false, missing: [...new Set(query)] };
  const idf = idfOf(ctx);
  // Primary source: among the BM25 candidates, the best two-way (F1) term overlap, so a sentence
  // whose one long identifier was swapped still aligns to its own source, not to the identifier's.
  const allSet = new Set(all);
  let p = hits[0]!.doc;
  let bestF = -1;
  for (const h of hits) {
    const cand = ctx.origIndex.docTerms[h.doc]!;
    const fwd = coverage(all, new Set(cand), idf).covered;
    const rev = coverage(cand, allSet, idf).covered;
    const f = fwd + rev > 0 ? (2 * fwd * rev) / (fwd + rev) : 0;
    if (f > bestF + 1e-9) [p, bestF] = [h.doc, f];
  }
  // A reworded claim can share its identifiers with one segment and its words with another: when
  // the F1 pick does not support the claim's words, the candidate that covers them best leads.
  let cov = coverage(query, new Set(ctx.origIndex.docTerms[p]), idf);
  if (cov.covered < UNSUPPORTED_COVERAGE) {
    for (const h of hits) {
      const c = coverage(query, new Set(ctx.origIndex.docTerms[h.doc]), idf);
      if (c.covered >= cov.covered + 0.15) [p, cov] = [h.doc, c];
    }
  }
  const support = [p];
  const have = new Set(ctx.origIndex.docTerms[p]);
  if (cov.covered >= UNION_FLOOR && cov.covered < UNION_TARGET) {
    // Merged sentences: add neighbours / further hits while they add real coverage.
    const pool = [p - 1, p + 1, ...hits.map((h) => h.doc)].filter((d, i, a) => d >= 0 && d < ctx.origIndex.n && a.indexOf(d) === i && d !== p);
    for (const d of pool) {
      if (support.length >= MAX_SUPPORT || cov.covered >= UNION_TARGET) break;
      const next = new Set(have);
      for (const t of ctx.origIndex.docTerms[d]!) next.add(t);
      const c = coverage(query, next, idf);
      if (c.covered - cov.covered >= 0.1) {
        support.push(d);
        for (const t of ctx.origIndex.docTerms[d]!) have.add(t);
        cov = c;
      }
    }
  }
  return { seg: k, support, covered: cov.covered, verbatim: false, missing: cov.missing };
}

export function alignAll(ctx: Context): Alignment[] {
  return ctx.comp.segments.map((_, k) => alignOne(ctx, k));
}

/** Terms of the ~40 characters after a cue: what the negation applies to. */
function scopeTerms(text: string, index: number, cueLength: number): string[] {
  return wordTerms(terms(text.slice(index + cueLength, index + cueLength + 40))).slice(0, 3);
}

const MODAL_STRENGTH: Record<ModalClass, number> = { obligation: 2, recommendation: 1, permission: 0 };

/** Feature comparison of an aligned (non-verbatim) segment against its support. */
function compare(ctx: Context, a: Alignment, out: DetectedIssue[]): void {
  const seg = ctx.comp.segments[a.seg]!;
  const compRaw = ctx.comp.raw.slice(seg.start, seg.end);
  const text = seg.text;
  const primary = ctx.orig.segments[a.support[0]!]!;
  const pText = primary.text;
  const supportRaw = a.support.map((i) => ctx.orig.raw.slice(ctx.orig.segments[i]!.start, ctx.orig.segments[i]!.end)).join('\n');
  const supportText = a.support.map((i) => ctx.orig.segments[i]!.text).join(' ');
  const supportCanon = numberCanonical(supportText);
  const loc = compLocation(seg);
  const src = origRef(ctx, a.support[0]!);
  const before = out.length;

  // Numbers and units.
  const compNums = numbers(text);
  const srcNums = numbers(supportText);
  // A number missing from the best-aligned segment counts as changed when that segment lost one of
  // its own numbers (a substitution), even if another supporting segment happens to mention it.
  const compCanon = numberCanonical(text);
  const primaryCanon = numberCanonical(pText);
  const primaryLost = numbers(pText).some((n) => !mentionsNumber(compCanon, n.value));
  const changed = compNums.filter((n) => !mentionsNumber(primaryCanon, n.value) && (primaryLost || !mentionsNumber(supportCanon, n.value)));
  if (changed.length) {
    const lost = srcNums.filter((n) => !mentionsNumber(compCanon, n.value)).map((n) => n.raw.trim());
    out.push({
      type: 'hallucination', severity: 'high',
      description: `Changed number: ${changed.map((n) => `"${n.raw.trim()}"`).join(', ')} is not in the aligned source (${src})` +
        (lost.length ? `, which says ${lost.slice(0, 3).map((x) => `"${x}"`).join(', ')}` : '') + `: ${quote(text)}`,
      location: loc,
    });
  } else {
    for (const n of compNums) {
      if (!n.unit) continue;
      const same = srcNums.filter((m) => m.value === n.value);
      if (same.length && same.every((m) => m.unit && m.unit !== n.unit)) {
        out.push({
          type: 'hallucination', severity: 'high',
          description: `Changed unit: "${n.raw.trim()}" where the aligned source (${src}) says "${same[0]!.raw.trim()}": ${quote(text)}`,
          location: loc,
        });
        break;
      }
    }
  }

  // Negation: count cues; a difference is a flip when the negated words are still there.
  const nc = negations(text);
  const np = negations(pText);
  if (nc.length !== np.length) {
    const cTerms = new Set(terms(text));
    const pTerms = new Set(terms(pText));
    let flip: string | null = null;
    if (nc.length < np.length) {
      for (const cue of np) {
        const scope = scopeTerms(pText, cue.index, cue.word.length);
        if (scope.length === 0 || scope.some((t) => cTerms.has(t))) {
          flip = `the source (${src}) says "${cue.word}" but the compressed text drops the negation`;
          break;
        }
      }
    } else {
      for (const cue of nc) {
        const scope = scopeTerms(text, cue.index, cue.word.length);
        if (scope.length === 0 || scope.some((t) => pTerms.has(t))) {
          flip = `the compressed text adds "${cue.word}" which the source (${src}) does not have`;
          break;
        }
      }
    }
    if (flip) out.push({ type: 'hallucination', severity: 'high', description: `Flipped negation: ${flip}: ${quote(text)}`, location: loc });
  }

  // Modality (must / should / may).
  const mc = modals(text);
  const mp = modals(pText);
  if (mp.size) {
    for (const [cls, word] of mc) {
      if (mp.has(cls)) continue;
      const [pCls, pWord] = [...mp][0]!;
      const gap = Math.abs(MODAL_STRENGTH[cls] - MODAL_STRENGTH[pCls]);
      out.push({
        type: 'hallucination', severity: gap >= 2 ? 'high' : 'medium',
        description: `Changed modality: "${word}" where the source (${src}) says "${pWord}": ${quote(text)}`,
        location: loc,
      });
      break;
    }
  }

  // Comparatives and other polar words (before/after, more/less, enable/disable, ...).
  const wc = polarWords(text);
  const wp = polarWords(supportText);
  for (const w of wc) {
    if (wp.has(w)) continue;
    const opp = [...antonymsOf(w)].find((x) => wp.has(x) && !wc.has(x));
    if (opp) {
      out.push({
        type: 'hallucination', severity: 'high',
        description: `Reversed comparison: "${w}" where the source (${src}) says "${opp}": ${quote(text)}`,
        location: loc,
      });
      break;
    }
  }

  // Identifiers, names and dates.
  const primaryRaw = ctx.orig.raw.slice(primary.start, primary.end);
  const pIds = identifiers(primaryRaw);
  const count = (hay: string, needle: string) => hay.split(needle).length - 1;
  // Case-only differences ("Node.js" / "node.js") are not substitutions.
  const primaryLower = primaryRaw.toLowerCase();
  const supportLower = supportRaw.toLowerCase();
  const has = (hay: string, id: { text: string }) =>
    hay.includes(id.text) || (hay === primaryRaw ? primaryLower : hay === supportRaw ? supportLower : hay.toLowerCase()).includes(id.text.toLowerCase());
  for (const id of identifiers(compRaw)) {
    if (has(primaryRaw, id)) continue;
    const codeLike = CODE_LIKE.has(id.kind);
    // Substitution evidence: the best-aligned segment has an identifier of the same sort the compressed lacks.
    const compLower = compRaw.toLowerCase();
    const replaced = pIds.find((p) => count(compLower, p.text.toLowerCase()) < count(primaryLower, p.text.toLowerCase()) && (p.kind === id.kind || (codeLike && CODE_LIKE.has(p.kind))));
    if (!replaced && has(supportRaw, id)) continue;
    const elsewhere = ctx.orig.raw.includes(id.text);
    const severity = codeLike || id.kind === 'date' ? (replaced || !elsewhere ? 'high' : 'medium') : replaced ? 'high' : 'medium';
    const what = id.kind === 'date' ? 'date' : id.kind === 'name' || id.kind === 'const' ? 'name' : 'identifier';
    out.push({
      type: 'hallucination', severity,
      description: replaced
        ? `Swapped ${what}: "${id.text}" where the aligned source (${src}) says "${replaced.text}": ${quote(text)}`
        : `Unsupported ${what}: "${id.text}" is not in the aligned source (${src})${elsewhere ? '' : ' nor anywhere in the original'}: ${quote(text)}`,
      location: loc,
    });
    break;
  }

  if (out.length === before && a.covered < PARTIAL_COVERAGE && a.missing.length >= 3) {
    out.push({
      type: 'hallucination', severity: 'low',
      description: `Partly unsupported: ${a.missing.slice(0, 5).map((t) => `"${t}"`).join(', ')} not in the aligned source (${src}): ${quote(text)}`,
      location: loc,
    });
  }
}

/** Severity of a segment with no aligned source, by what it asserts. */
function unsupportedSeverity(text: string, raw: string, wordCount: number): DetectedIssue['severity'] {
  if (numbers(text).length || identifiers(raw).some((i) => CODE_LIKE.has(i.kind)) || negations(text).length || modals(text).has('obligation') || warningCue(text)) return 'high';
  return wordCount < 3 ? 'low' : 'medium';
}

export async function detectHallucinations(
  ctx: Context,
  alignments: Alignment[],
  embed?: (texts: string[]) => Promise<Float32Array[]>,
): Promise<DetectedIssue[]> {
  const out: DetectedIssue[] = [];
  let unsupported = alignments.filter((a) => !a.verbatim && (a.support.length === 0 || a.covered < UNSUPPORTED_COVERAGE));
  if (embed && unsupported.length) unsupported = await semanticRescue(ctx, unsupported, embed);
  const stillUnsupported = new Set(unsupported.map((a) => a.seg));
  for (const a of alignments) {
    if (a.verbatim) {
      if (a.droppedNegation) {
        const seg = ctx.comp.segments[a.seg]!;
        out.push({
          type: 'hallucination', severity: 'high',
          description: `Flipped negation: the original says "${a.droppedNegation} …" before this text, which the compressed text drops: ${quote(seg.text)}`,
          location: compLocation(seg),
        });
      }
      continue;
    }
    const seg = ctx.comp.segments[a.seg]!;
    const words = wordTerms(ctx.compTerms[a.seg]!);
    if (stillUnsupported.has(a.seg)) {
      const raw = ctx.comp.raw.slice(seg.start, seg.end);
      if (words.length === 0 && numbers(seg.text).length === 0) continue;
      out.push({
        type: 'hallucination', severity: unsupportedSeverity(seg.text, raw, new Set(words).size),
        description: `Unsupported ${seg.kind === 'heading' ? 'heading' : 'statement'}: no passage of the original supports ${quote(seg.text)}` +
          (a.support.length ? ` (closest: ${origRef(ctx, a.support[0]!)}, ${Math.round(a.covered * 100)}% of its terms)` : ''),
        location: compLocation(seg),
      });
      continue;
    }
    compare(ctx, a, out);
  }
  return out;
}

/**
 * Optional embeddings hook: a lexically unsupported segment whose embedding is close to one of its
 * BM25 candidates (or, on small originals, any original segment) is re-aligned to it and then
 * feature-checked like any aligned segment. Returns the alignments that stay unsupported.
 */
async function semanticRescue(ctx: Context, list: Alignment[], embed: (texts: string[]) => Promise<Float32Array[]>): Promise<Alignment[]> {
  const texts: string[] = [];
  const idOf = new Map<string, number>();
  const add = (t: string) => {
    let i = idOf.get(t);
    if (i === undefined) idOf.set(t, (i = texts.push(t) - 1));
    return i;
  };
  const small = ctx.orig.segments.length <= 64;
  const plan = list.map((a) => {
    const seg = ctx.comp.segments[a.seg]!;
    const cands = small ? ctx.orig.segments.map((_, i) => i) : ctx.origIndex.search(ctx.compTerms[a.seg]!, 16).map((h) => h.doc);
    return { a, q: add(seg.text), cands: cands.map((c) => ({ c, t: add(ctx.orig.segments[c]!.text) })) };
  });
  let vecs: Float32Array[];
  try {
    vecs = await embed(texts);
  } catch {
    return list;
  }
  if (!Array.isArray(vecs) || vecs.length !== texts.length) return list;
  const rest: Alignment[] = [];
  for (const { a, q, cands } of plan) {
    let best = -1, bestSim = -1;
    for (const { c, t } of cands) {
      const s = cosine(vecs[q]!, vecs[t]!);
      if (s > bestSim) [best, bestSim] = [c, s];
    }
    if (best >= 0 && bestSim >= EMBED_SUPPORT) {
      a.support = [best];
      a.covered = Math.max(a.covered, UNSUPPORTED_COVERAGE);
      a.missing = [];
    } else rest.push(a);
  }
  return rest;
}

// get_evidence_stats: how much of the original supports each claim of a compressed text (an answer,
// a summary). The detection engine's own alignment (workers/detect) is reused as is: every compressed
// segment is aligned to its best-supporting original segments with an IDF-weighted term coverage.
import { SegmentIndex, wordTerms } from '../detect/align.js';
import { alignAll, UNSUPPORTED_COVERAGE, type Context } from '../detect/hallucination.js';
import { detectIssues } from '../detect/index.js';
import { segmentText } from '../detect/segment.js';

/** At or above this coverage a segment counts as supported (the engine's own partial-support line). */
export const SUPPORTED_COVERAGE = 0.7;

export type SupportLevel = 'verbatim' | 'supported' | 'partial' | 'unsupported';

export interface EvidenceInput {
  original_text: string;
  compressed_text: string;
  max_segments: number;
}

const cut = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export async function evidenceStats({ original_text, compressed_text, max_segments }: EvidenceInput) {
  const orig = segmentText(original_text);
  const comp = segmentText(compressed_text);
  const origIndex = new SegmentIndex(orig.segments.map((s) => s.text));
  const compIndex = new SegmentIndex(comp.segments.map((s) => s.text));
  const origByText = new Map<string, number>();
  orig.segments.forEach((s, i) => origByText.has(s.text) || origByText.set(s.text, i));
  const ctx: Context = { orig, comp, origIndex, compTerms: compIndex.docTerms, origByText };
  const alignments = alignAll(ctx);
  const claims = alignments
    .filter((a) => wordTerms(ctx.compTerms[a.seg]!).length > 0)
    .map((a) => {
      const seg = comp.segments[a.seg]!;
      const level: SupportLevel = a.verbatim ? 'verbatim' : a.support.length === 0 || a.covered < UNSUPPORTED_COVERAGE ? 'unsupported' : a.covered >= SUPPORTED_COVERAGE ? 'supported' : 'partial';
      return {
        segment: a.seg,
        line: seg.line,
        kind: seg.kind,
        text: cut(seg.text),
        support: level,
        coverage: Math.round((a.verbatim ? 1 : a.covered) * 1000) / 1000,
        evidence: level === 'unsupported' ? [] : a.support.map((i) => ({ line: orig.segments[i]!.line, text: cut(orig.segments[i]!.text) })),
        missing_terms: a.missing.slice(0, 8),
        _support: level === 'unsupported' ? [] : a.support,
      };
    });
  const count = (l: SupportLevel) => claims.filter((c) => c.support === l).length;
  const used = new Set(claims.flatMap((c) => c._support));
  const origContent = orig.segments.filter((s) => s.kind !== 'heading').length;
  const usedContent = [...used].filter((i) => orig.segments[i]!.kind !== 'heading').length;
  const detected = await detectIssues({ original_text, compressed_text, check_hallucination: true, check_blind_spots: true });
  const n = claims.length;
  return {
    claims_total: n,
    verbatim: count('verbatim'),
    supported: count('supported'),
    partial: count('partial'),
    unsupported: count('unsupported'),
    supported_share: n ? Math.round(((count('verbatim') + count('supported')) / n) * 1000) / 1000 : 1,
    mean_coverage: n ? Math.round((claims.reduce((s, c) => s + c.coverage, 0) / n) * 1000) / 1000 : 1,
    mean_evidence_per_claim: n ? Math.round((claims.reduce((s, c) => s + c._support.length, 0) / n) * 100) / 100 : 0,
    original_segments: orig.segments.length,
    evidence_segments_used: used.size,
    original_coverage: origContent ? Math.round((usedContent / origContent) * 1000) / 1000 : 0,
    quality_score: detected.quality_score,
    issues_found: detected.issues_found,
    issues: detected.issues.slice(0, 20),
    claims: claims.slice(0, max_segments).map(({ _support, ...c }) => c),
    claims_truncated: claims.length > max_segments,
  };
}

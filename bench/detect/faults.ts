// Known-fault injection into a compressed text, deterministic under a seeded RNG.
import { CODE_LIKE, identifiers, numbers, warningLevel } from '../../workers/detect/features.js';
import { segmentText } from '../../workers/detect/segment.js';
import type { Segment } from '../../workers/detect/segment.js';

export type FaultKind = 'changed_number' | 'flipped_negation' | 'swapped_identifier' | 'added_sentence' | 'deleted_warning';
export const FAULT_KINDS: FaultKind[] = ['changed_number', 'flipped_negation', 'swapped_identifier', 'added_sentence', 'deleted_warning'];

export interface Fault {
  kind: FaultKind;
  /** The faulty compressed text. */
  text: string;
  /** Hallucination faults: [start, end) of the changed text in the faulty compressed text. */
  span?: [number, number];
  /** deleted_warning: 1-based line of the deleted warning in the original. */
  originalLine?: number;
  note: string;
}

const pick = <T>(r: () => number, list: readonly T[]): T => list[Math.floor(r() * list.length)]!;

/** Off-topic claims no corpus document supports (mix of plain, numeric and identifier-bearing). */
export const UNSUPPORTED_POOL = [
  'The scheduler reserves twelve gigabytes of swap for every tenant on the cluster.',
  'All invoices are archived to cold storage after 90 days and then deleted.',
  'Our support team answers tickets within four business hours on weekdays.',
  'The mobile app stores the biometric template in the secure enclave of the phone.',
  'Payments above 5,000 euros require approval from two finance managers.',
  'The firmware update disables the bluetooth radio until the device reboots.',
  'Use `purgeTenantArchive()` to wipe every archived tenant snapshot.',
  'Each warehouse robot recharges its battery at the docking station overnight.',
  'The marketing dashboard refreshes campaign statistics every fifteen minutes.',
  'Employees must badge in at the lobby turnstile before entering the laboratory.',
  'The recipe calls for two cups of flour and a pinch of sea salt.',
  'Satellite imagery is resampled to a resolution of 30 meters per pixel.',
  'The election results were certified by the county clerk on Thursday.',
  'Set `LEGACY_BILLING_MODE=true` to route refunds through the old ledger.',
  'Patients should fast for eight hours before the blood glucose test.',
  'The orchestra rehearses the second movement at half tempo on Mondays.',
  'Customer loyalty points expire at the end of each calendar year.',
  'The bridge inspection found corrosion on three of the northern cables.',
  'Our data centre in Frankfurt runs entirely on hydroelectric power.',
  'The translation memory is synchronised with the vendor portal every night.',
];

const NEGATION_REMOVALS: [RegExp, string][] = [
  [/\b(is|are|was|were|do|does|did|can|could|should|must|will|would|may|has|have)\s+not\b/i, '$1'],
  [/\bcannot\b/i, 'can'],
  [/\b(is|are|was|were|do|does|did|could|should|would|has|have)n['’]t\b/i, '$1'],
  [/\bcan['’]t\b/i, 'can'],
  [/\bwon['’]t\b/i, 'will'],
  [/\bnever\b/i, 'always'],
];
const NEGATION_ADD = /\b(is|are|was|were|can|should|must|will|may|does|do)\b(?!\s+not\b|n['’]t)/i;

function proseSegments(comp: { segments: Segment[] }): Segment[] {
  return comp.segments.filter((s) => s.kind === 'prose' && s.text.split(' ').length >= 5);
}

/**
 * One fault of the kind, or null when the compression offers no place for it. A hallucination fault
 * must leave a claim: the changed segment has at least 5 words and is not itself text of the
 * original (a bare identifier line swapped for another line of the original is no hallucination).
 */
export function injectFault(kind: FaultKind, original: string, compressed: string, r: () => number): Fault | null {
  const origNorm = segmentText(original).norm;
  for (let attempt = 0; attempt < 8; attempt++) {
    const f = injectOnce(kind, original, compressed, r);
    if (!f || !f.span) return f;
    const seg = segmentText(f.text).segments.find((s) => s.start < f.span![1] && f.span![0] < s.end);
    if (seg && seg.text.split(' ').length >= 5 && !origNorm.includes(seg.text)) return f;
  }
  return null;
}

/** Identifier-shaped pool entries (a plain word or a phrase from a code span is not one). */
const IDENT_SHAPE = /^[\w.$/:@-]+(?:\(\))?$/;

function injectOnce(kind: FaultKind, original: string, compressed: string, r: () => number): Fault | null {
  const comp = segmentText(compressed);
  const orig = segmentText(original);
  const prose = proseSegments(comp);
  const splice = (start: number, end: number, repl: string, note: string): Fault => ({
    kind, text: compressed.slice(0, start) + repl + compressed.slice(end), span: [start, start + repl.length], note,
  });

  switch (kind) {
    case 'changed_number': {
      const cands: { seg: Segment; at: number; value: string }[] = [];
      for (const seg of comp.segments) {
        if (seg.kind === 'code' || seg.kind === 'heading') continue;
        const raw = compressed.slice(seg.start, seg.end);
        for (const m of raw.matchAll(/(?<![\p{L}\p{N}_.\-/#])\d+(?![\p{L}\p{N}_.]\d|\.\d)/gu)) cands.push({ seg, at: seg.start + m.index!, value: m[0] });
      }
      if (!cands.length) return null;
      const c = pick(r, cands);
      const segNums = new Set(numbers(c.seg.text).map((n) => n.value));
      let v = Number(c.value);
      let next = '';
      for (let tries = 0; tries < 20; tries++) {
        const cand = String(v < 10 ? v + 1 + Math.floor(r() * 8) : Math.round(v * (1.5 + r() * 2)));
        if (!segNums.has(cand) && cand !== c.value) {
          next = cand;
          break;
        }
        v++;
      }
      if (!next) return null;
      return splice(c.at, c.at + c.value.length, next, `${c.value} -> ${next}`);
    }
    case 'flipped_negation': {
      const cands: { seg: Segment; re: RegExp; repl: string; add: boolean }[] = [];
      for (const seg of prose) {
        const raw = compressed.slice(seg.start, seg.end);
        for (const [re, repl] of NEGATION_REMOVALS) if (re.test(raw)) cands.push({ seg, re, repl, add: false });
        if (NEGATION_ADD.test(raw)) cands.push({ seg, re: NEGATION_ADD, repl: '$1 not', add: true });
      }
      if (!cands.length) return null;
      // Prefer removals half the time when both exist, so both directions are exercised.
      const removals = cands.filter((c) => !c.add);
      const c = removals.length && r() < 0.5 ? pick(r, removals) : pick(r, cands);
      const raw = compressed.slice(c.seg.start, c.seg.end);
      const next = raw.replace(c.re, c.repl);
      return splice(c.seg.start, c.seg.end, next, `${c.add ? 'added' : 'removed'} negation`);
    }
    case 'swapped_identifier': {
      const pool = [...new Set(identifiers(original).filter((i) => CODE_LIKE.has(i.kind) && i.kind !== 'version' && i.text.length >= 3 && IDENT_SHAPE.test(i.text) && !/^[a-z]+$/i.test(i.text)).map((i) => i.text))];
      const cands: { seg: Segment; at: number; text: string }[] = [];
      for (const seg of comp.segments) {
        if (seg.kind === 'code' || seg.kind === 'heading') continue;
        const raw = compressed.slice(seg.start, seg.end);
        for (const id of identifiers(raw)) if (CODE_LIKE.has(id.kind) && id.kind !== 'version' && id.text.length >= 3) {
          const at = raw.indexOf(id.text);
          if (at >= 0) cands.push({ seg, at: seg.start + at, text: id.text });
        }
      }
      if (!cands.length || pool.length < 2) return null;
      const c = pick(r, cands);
      const raw = compressed.slice(c.seg.start, c.seg.end);
      const others = pool.filter((p) => p !== c.text && !raw.includes(p) && !p.includes(c.text) && !c.text.includes(p));
      if (!others.length) return null;
      const next = pick(r, others);
      return splice(c.at, c.at + c.text.length, next, `${c.text} -> ${next}`);
    }
    case 'added_sentence': {
      const sentence = pick(r, UNSUPPORTED_POOL);
      const anchors = prose.length ? prose : comp.segments;
      if (!anchors.length) return null;
      const a = pick(r, anchors);
      const insert = ' ' + sentence;
      return { kind, text: compressed.slice(0, a.end) + insert + compressed.slice(a.end), span: [a.end + 1, a.end + insert.length], note: sentence };
    }
    case 'deleted_warning': {
      // A warning of the original that the compression kept verbatim, deleted from the compressed text.
      const WARNING = /\b(?:warning|caution|danger|never|must not|do not|don['’]t|deprecated)\b/i;
      const kept = new Map(comp.segments.map((s) => [s.text, s] as const));
      const cands: { o: Segment; c: Segment }[] = [];
      for (const o of orig.segments) {
        if (o.kind !== 'prose' || !WARNING.test(o.text) || !warningLevel(o.text)) continue;
        const c = kept.get(o.text);
        // Only when the warning text occurs once in the original (so its line is unambiguous).
        if (c && c.kind === 'prose' && original.split(compressed.slice(c.start, c.end)).length === 2) cands.push({ o, c });
      }
      if (!cands.length) return null;
      const { o, c } = pick(r, cands);
      return { kind, text: compressed.slice(0, c.start) + compressed.slice(c.end), originalLine: o.line, note: o.text.slice(0, 80) };
    }
  }
}

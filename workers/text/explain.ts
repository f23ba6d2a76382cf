// explain_compression_decision: the text engine's own decision on a text, section by section: each
// unit's scores (centrality, structural prior, information density, the final priority the selection
// ranked by) and whether it was kept. The compression runs once, as /v1/compress would run it; the
// scores are the ones it chose by, not a re-derivation.
import type { Fidelity } from '../shared/fidelity.js';
import { WEIGHTS } from './score.js';
import { compressText, type CompressTextOptions, type CompressTrace } from './index.js';

export interface ExplainInput {
  text: string;
  fidelity: Fidelity;
  query?: string | null;
  model?: string | null;
  max_units_per_section: number;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;
const cut = (s: string, n = 120) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
};

function sectionTitle(text: string, t: CompressTrace, id: number, hasHeadings: boolean): string {
  if (id < 0) return hasHeadings ? '(before the first heading)' : '(document)';
  // JSON and YAML: each section is an opened value, named by its path.
  if (t.tree) return `${t.tree.format} ${t.tree.paths[id]}`;
  const b = t.blocks[id]!;
  const raw = text.slice(b.start, b.end);
  return hasHeadings ? cut(raw.replace(/^\s*#{1,6}\s*/, '').replace(/\n[=-]+\s*$/, ''), 80) : `${b.kind} at character ${b.start}: ${cut(raw, 50)}`;
}

export async function explainCompression(input: ExplainInput, options: CompressTextOptions = {}) {
  let trace: CompressTrace | null = null;
  // With marker ids, as the served compressions run: the same output, and its markers expand.
  const out = await compressText({ text: input.text, fidelity: input.fidelity, query: input.query, model: input.model, markerIds: true }, { ...options, onTrace: (t) => (trace = t) });
  const base = {
    fidelity: out.fidelity,
    mode: out.mode,
    original_tokens: out.original_tokens,
    compressed_tokens: out.compressed_tokens,
    units_total: out.units_total,
    units_kept: out.units_kept,
    score_weights: WEIGHTS,
    compressed_text: out.compressed_text,
    markers: out.markers,
  };
  const t = trace as CompressTrace | null;
  if (!t) return { ...base, budget_tokens: out.original_tokens, all_kept: input.fidelity === 'raw' ? 'raw' : 'empty', cutoff_priority: null, sections: [] };
  const n = t.units.length;
  const order = [...Array(n).keys()].sort((x, y) => t.priority[y]! - t.priority[x]!);
  const rank = new Int32Array(n);
  order.forEach((u, r) => (rank[u] = r + 1));
  // Units kept only because a kept unit needs them (its heading, a table header, a code head).
  const neededBy = new Map<number, number>();
  for (let i = 0; i < n; i++) if (t.kept[i]) for (const d of t.deps[i]!) if (!neededBy.has(d)) neededBy.set(d, i);
  let cutoff = Infinity;
  for (let i = 0; i < n; i++) if (t.kept[i] && !neededBy.has(i)) cutoff = Math.min(cutoff, t.priority[i]!);
  const hasHeadings = t.blocks.some((b) => b.kind === 'heading');
  const groups = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const s = t.section[i]!;
    if (!groups.has(s)) groups.set(s, []);
    groups.get(s)!.push(i);
  }
  const reason = (i: number): string => {
    if (t.all_kept === 'fits_budget') return `the whole input fits the ${t.budget}-token budget`;
    if (t.all_kept === 'not_shorter') return 'the skeleton came out no shorter than the input, so the input is returned as is';
    if (t.kept[i]) {
      if (neededBy.has(i) && t.priority[i]! < cutoff) return `kept because unit ${neededBy.get(i)} needs it (${t.units[i]!.kind === 'heading' ? 'its heading' : 'its header'})`;
      return `kept: rank ${rank[i]} of ${n} by priority`;
    }
    if (t.priority[i]! < cutoff) return `elided: priority ${r3(t.priority[i]!)} is below the lowest kept (${r3(cutoff)})`;
    return `elided despite rank ${rank[i]}: it did not fit the remaining budget, or repeats content already kept (diversity penalty)`;
  };
  const sections = [...groups.entries()].map(([id, members]) => {
    const kept = members.filter((i) => t.kept[i]);
    const tokens = members.reduce((s, i) => s + t.tokens[i]!, 0);
    const keptTokens = kept.reduce((s, i) => s + t.tokens[i]!, 0);
    const decision = kept.length === members.length ? 'kept' : kept.length === 0 ? 'elided' : 'partly_kept';
    const best = members.reduce((b, i) => (t.priority[i]! > t.priority[b]! ? i : b), members[0]!);
    const units = members
      .map((i) => ({
        unit: i,
        kind: t.units[i]!.kind,
        text: cut(t.text.slice(t.units[i]!.start, t.units[i]!.end)),
        char_offset: t.units[i]!.start,
        tokens: t.tokens[i]!,
        kept: t.kept[i] === 1,
        rank: rank[i]!,
        scores: {
          centrality: r3(t.parts.centrality[i]!),
          prior: r3(t.parts.prior[i]!),
          density: r3(t.parts.density[i]!),
          plain: r3(t.plain[i]!),
          priority: r3(t.priority[i]!),
        },
        reason: reason(i),
      }))
      .sort((x, y) => x.rank - y.rank)
      .slice(0, input.max_units_per_section);
    return {
      section: sectionTitle(t.text, t, id, hasHeadings),
      decision,
      units_total: members.length,
      units_kept: kept.length,
      tokens,
      tokens_kept: keptTokens,
      best_priority: r3(t.priority[best]!),
      mean_priority: r3(members.reduce((s, i) => s + t.priority[i]!, 0) / members.length),
      why:
        decision === 'kept'
          ? t.all_kept ? reason(members[0]!) : 'every unit ranked high enough to fit the budget'
          : decision === 'elided'
            ? `no unit reached the cutoff: the best priority here (${r3(t.priority[best]!)}) is below the lowest kept (${r3(cutoff)}) or did not fit`
            : `${kept.length} of ${members.length} units kept: the highest-ranked ones that fit`,
      units,
    };
  });
  return { ...base, budget_tokens: t.budget, all_kept: t.all_kept, cutoff_priority: Number.isFinite(cutoff) ? r3(cutoff) : null, sections };
}

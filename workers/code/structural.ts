import { FIDELITY_BUDGET, isFidelity, type Fidelity } from '../shared/fidelity.js';
import { countTokens, tokenizerFor } from '../shared/tokens.js';
import { tokenStats } from '../shared/stats.js';
import { analyzeFiles } from './analyze.js';
import { bm25Search, words } from './bm25.js';
import { CodeIndex } from './codeindex.js';
import { BlastRadiusInputError, CodeInputError } from './errors.js';
import { renderBudget, renderWhole, type Tier } from './render.js';
import { reciprocalRankFusion } from '../shared/rrf.js';
import type { BlastRadius, FileAnalysis, RankedUnit, StructuralInput, StructuralOptions, StructuralResult } from './types.js';

/** Default budget: the fidelity's share of the input, clamped so a whole repository still fits a prompt. */
const MIN_BUDGET = 256;
const MAX_DEFAULT_BUDGET = 32_000;
/** `ranking` lists rendered units plus at least this many of the next ones. */
const RANKING_MIN = 50;

/** Per-unit BM25 document as raw words: identifiers, the qualified name (twice: it is the strongest cue), doc words, path. */
function unitWords(index: CodeIndex, i: number, pathWords: Map<number, string[]>): string[] {
  const u = index.units[i]!;
  const name = words(u.qualified);
  const out = [...u.identifiers, ...name, ...name];
  if (u.doc) out.push(...words(u.doc.length > 2000 ? u.doc.slice(0, 2000) : u.doc));
  const f = index.table.fileOf[i]!;
  let p = pathWords.get(f);
  if (!p) pathWords.set(f, (p = words(index.paths[f]!)));
  out.push(...p);
  return out;
}

/** Rank and render from per-file analyses (the analyses may come from many pool workers). */
export function structuralFromAnalyses(analyses: FileAnalysis[], opts: StructuralOptions = {}): StructuralResult {
  const fidelity: Fidelity = opts.fidelity ?? 'balanced';
  if (!isFidelity(fidelity)) throw new CodeInputError(`unknown fidelity: ${String(fidelity)}`);
  const index0 = performance.now();
  const index = new CodeIndex(analyses);
  // The caller sent these files: one of them comes back bare when whole (its path is the caller's own).
  return structuralFromIndex(index, { ...opts, bareSingleFile: true }, index0);
}

/**
 * Rank and render over an index built elsewhere (the code-intelligence index held in memory).
 * `rank` replaces the index's PageRank as the centrality signal (a personalised PageRank for a repo map).
 */
export function structuralFromIndex(
  index: CodeIndex,
  opts: StructuralOptions & { rank?: Float64Array; bareSingleFile?: boolean } = {},
  index0 = performance.now(),
): StructuralResult {
  const fidelity: Fidelity = opts.fidelity ?? 'balanced';
  if (!isFidelity(fidelity)) throw new CodeInputError(`unknown fidelity: ${String(fidelity)}`);
  const analyses = index.analyses;
  const focus = (opts.focus_symbols ?? []).map((s) => s.trim()).filter(Boolean);
  const rank = opts.rank ?? index.rank;
  const t1 = performance.now();
  const n = index.units.length;

  // Signal 1: graph centrality.
  const prOrder = Array.from({ length: n }, (_, i) => i).sort((a, b) => rank[b]! - rank[a]!);
  const prRank = new Int32Array(n);
  prOrder.forEach((u, r) => (prRank[u] = r + 1));

  // Signal 2: BM25 over identifiers, docs and paths.
  const query = opts.query?.trim() || null;
  const bm25Score = new Map<number, number>();
  let bm25Order: number[] = [];
  if (query) {
    const pathWords = new Map<number, string[]>();
    const hits = bm25Search(Array.from({ length: n }, (_, i) => unitWords(index, i, pathWords)), query);
    hits.forEach(([d, s]) => bm25Score.set(d, s));
    bm25Order = hits.map(([d]) => d);
  }

  // Signal 3: blast radius around the focus symbols, both directions, decayed by distance.
  let blast: BlastRadius | null = null;
  const blastScore = new Map<number, number>();
  let blastOrder: number[] = [];
  if (opts.blast_radius || focus.length > 0) {
    blast = index.blastRadius(focus); // throws BlastRadiusInputError when focus is empty
    const idOf = new Map(index.units.map((u, i) => [u.id, i]));
    for (const ids of Object.values(blast.resolved)) for (const id of ids) blastScore.set(idOf.get(id)!, 1);
    // The ranking signal is what depends on the focus (upstream); dependencies are reported, not boosted,
    // or central utilities the focus happens to call (re.compile, socket) would crowd the top.
    for (const e of blast.dependents) {
      const i = idOf.get(e.id)!;
      blastScore.set(i, Math.max(blastScore.get(i) ?? 0, e.score));
    }
    blastOrder = [...blastScore].sort((a, b) => b[1] - a[1] || rank[b[0]]! - rank[a[0]]!).map(([i]) => i);
  }

  const fused = reciprocalRankFusion([prOrder, bm25Order, blastOrder].filter((r) => r.length > 0), n);
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => fused[b]! - fused[a]! || rank[b]! - rank[a]!);
  const t2 = performance.now();

  const tokenizer = tokenizerFor(opts.model);
  const original_tokens = tokenizer === 'o200k_base' ? analyses.reduce((s, a) => s + a.tokens, 0) : analyses.reduce((s, a) => s + countTokens(a.content, tokenizer), 0);
  const token_budget = Math.max(1, Math.floor(opts.token_budget ?? Math.min(MAX_DEFAULT_BUDGET, Math.max(MIN_BUDGET, Math.round(original_tokens * FIDELITY_BUDGET[fidelity])))));
  // Nothing to save when the budget covers the input, and a rendering that would outgrow it is no
  // compression: either way the answer is the input itself, whole. One file sent by the caller comes
  // back bare (its path is the request's own, and a header line would make a tiny input grow); several
  // files, or a map of an indexed repository, keep their path lines, and those lines count as input.
  const single = analyses.length === 1 && opts.bareSingleFile === true;
  const pathTokens = single ? 0 : analyses.reduce((s, a) => s + countTokens(`--- ${a.path} ---\n`, tokenizer), 0);
  // raw is the source itself, whatever the size: no budget applies.
  const whole = fidelity === 'raw' || original_tokens + pathTokens <= token_budget;
  let { output, tiers, marks } = whole ? { output: '', tiers: new Map<number, Tier>(), marks: undefined } : renderBudget(index, order, token_budget, tokenizer, opts.markerIds === true);
  let compressed_tokens = output ? countTokens(output, tokenizer) : Infinity;
  let inputTokens = original_tokens + pathTokens;
  if (compressed_tokens >= inputTokens) {
    output = single ? analyses[0]!.content : renderWhole(index);
    compressed_tokens = single ? original_tokens : (inputTokens = countTokens(output, tokenizer));
    tiers = new Map(index.units.map((_, i) => [i, 'full' as Tier]));
    marks = undefined;
  }
  const t3 = performance.now();

  const bmRank = new Map(bm25Order.map((u, r) => [u, r + 1]));
  const blRank = new Map(blastOrder.map((u, r) => [u, r + 1]));
  const listed = Math.min(n, Math.max(RANKING_MIN, order.findLastIndex((i) => tiers.has(i)) + 1));
  const ranking: RankedUnit[] = order.slice(0, listed).map((i, r) => {
    const u = index.units[i]!;
    return {
      id: u.id,
      path: index.paths[index.table.fileOf[i]!]!,
      kind: u.kind,
      name: u.qualified,
      container: u.container,
      start_line: u.startLine,
      end_line: u.endLine,
      rank: r + 1,
      score: Number(fused[i]!.toFixed(6)),
      rendered: tiers.get(i) ?? 'omitted',
      signals: { bm25: bm25Score.has(i) ? Number(bm25Score.get(i)!.toFixed(4)) : null, blast: blastScore.get(i) ?? null, pagerank: Number(rank[i]!.toExponential(4)) },
      signal_ranks: { bm25: bmRank.get(i) ?? null, blast: blRank.get(i) ?? null, pagerank: prRank[i]! },
    };
  });

  const languages: Record<string, number> = {};
  const parsers: Record<string, number> = {};
  for (const a of analyses) {
    languages[a.language] = (languages[a.language] ?? 0) + 1;
    parsers[a.parser] = (parsers[a.parser] ?? 0) + 1;
  }
  const stats = tokenStats(inputTokens, compressed_tokens);
  return {
    output,
    files: analyses.length,
    units: n,
    edges: index.edges.length,
    languages,
    parsers,
    ...stats,
    token_budget,
    tokenizer,
    fidelity,
    query,
    ranking,
    blast_radius: blast,
    result_incomplete: blast?.result_incomplete ?? false,
    not_found: blast?.not_found ?? [],
    file_imports: index.imports.perFile,
    timings_ms: { graph: Math.round(t1 - index0), rank: Math.round(t2 - t1), render: Math.round(t3 - t2) },
    ...(marks?.length ? { markers: marks } : {}),
  };
}

/** Convenience: analyze and rank in one thread (small inputs, tests). */
export function compressStructural(input: StructuralInput): StructuralResult {
  if (!Array.isArray(input.files)) throw new CodeInputError('files must be an array of {path, content}');
  // Fail fast on a missing focus before parsing anything.
  if (input.blast_radius && !(input.focus_symbols ?? []).some((s) => s.trim())) throw new BlastRadiusInputError();
  return structuralFromAnalyses(analyzeFiles(input.files), input);
}

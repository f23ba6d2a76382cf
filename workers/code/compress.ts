import { FIDELITY_BUDGET, isFidelity } from '../shared/fidelity.js';
import { countTokens, tokenizerFor } from '../shared/tokens.js';
import { tokenStats } from '../shared/stats.js';
import { analyzeInternal } from './analyze.js';
import { CodeInputError } from './errors.js';
import { adjacency, buildEdges, CODE_PAGERANK, unitTable } from './graph.js';
import { pagerank } from '../shared/pagerank.js';
import { markerRef, REF_PLACEHOLDER, textHashOf, type MarkerLayout } from '../text/markers.js';
import { codeLabels, originalSpans } from './markers.js';
import { renderAbstract, renderSkeleton } from './skeleton.js';
import type { CompressCodeInput, CompressCodeResult, DependencyGraph, ImportanceEntry } from './types.js';

/** Exact-count rounds when the estimated body costs overshoot the budget. */
const MAX_FIT_ROUNDS = 6;

/** Single-file path: skeleton at the requested fidelity, in-file dependency graph, PageRank importance. */
export function compressCode(input: CompressCodeInput): CompressCodeResult {
  if (!isFidelity(input.fidelity)) throw new CodeInputError(`unknown fidelity: ${String(input.fidelity)}`);
  const { analysis, extraction } = analyzeInternal({ path: input.filename ?? '', content: input.code, language: input.language }, input.filename, false);
  const tokenizer = tokenizerFor(input.model);
  const { units, content } = analysis;

  const table = unitTable([analysis]);
  const edges = buildEdges(table, null);
  const rank = pagerank(adjacency(units.length, edges), CODE_PAGERANK);
  const order = units.map((_, i) => i).sort((a, b) => rank[b]! - rank[a]! || units[a]!.start - units[b]!.start);
  const importance: ImportanceEntry[] = order.map((i) => ({
    id: units[i]!.id,
    kind: units[i]!.kind,
    name: units[i]!.qualified,
    container: units[i]!.container,
    start_line: units[i]!.startLine,
    end_line: units[i]!.endLine,
    score: Number(rank[i]!.toFixed(6)),
  }));
  const dependency_graph: DependencyGraph = {
    nodes: units.map((u) => ({ id: u.id, kind: u.kind, name: u.qualified, container: u.container, start_line: u.startLine, end_line: u.endLine })),
    edges: edges.map((e) => ({ from: units[e.from]!.id, to: units[e.to]!.id, kind: e.kind })),
  };

  const original = input.code;
  const original_tokens = countTokens(original, tokenizer);
  const count = (text: string) => (text === original ? original_tokens : countTokens(text, tokenizer));
  // Served skeletons (markerIds) price their markers with the placeholder ref while they choose, then
  // the chosen one is rendered again with its real ref (a hash of the original and the hidden spans).
  const labels = input.markerIds ? codeLabels(content, tokenizer) : null;
  const placeholder = labels?.(REF_PLACEHOLDER);
  type Args = [level: 'detailed' | 'balanced' | 'outline', keep: Set<number> | undefined, trimDocs: boolean | undefined];
  const rendered = new Map<string, { args: Args; spans: number[] }>();
  const render = (...args: Args): string => {
    const spans: number[] = [];
    const text = renderSkeleton(content, extraction, args[0], args[1], args[2], placeholder, spans);
    if (placeholder) rendered.set(text, { args, spans });
    return text;
  };
  /**
   * The level's skeleton plus the bodies of the most central units (PageRank order) while the whole
   * stays within the level's share of the input (the text levels' shares, without the text floors: a
   * code skeleton always keeps its signatures, so no level comes back empty). Signatures are never
   * cut: a file whose bare skeleton passes the budget gets the bare skeleton.
   */
  const budgetOf = (level: 'balanced' | 'detailed') => Math.floor(original_tokens * FIDELITY_BUDGET[level]);
  const filled = (level: 'balanced' | 'detailed', trimDocs: boolean): string => {
    const budget = budgetOf(level);
    const base = render(level, undefined, trimDocs);
    let used = count(base);
    // Detailed always shows at least one body, so it keeps more than balanced on any file with bodies.
    const atLeast = level === 'detailed' ? 1 : 0;
    if (used >= budget && !atLeast) return base;
    const elided = new Set(extraction.bodies.map((b) => b.unit));
    const added: number[] = [];
    let cheapest: [number, number] | null = null;
    for (const i of order) {
      const u = units[i]!;
      if (!elided.has(i) || u.bodyStart === null || u.bodyEnd === null) continue;
      const extra = countTokens(content.slice(u.bodyStart, u.bodyEnd), tokenizer);
      if (used + extra > budget) {
        if (!cheapest || extra < cheapest[1]) cheapest = [i, extra];
        continue;
      }
      added.push(i);
      used += extra;
    }
    // Nothing fits: detailed passes its budget by the smallest body rather than equal balanced.
    if (added.length < atLeast && cheapest) added.push(cheapest[0]);
    // Body costs are estimates (the elision text they replace, docstrings): count exactly, drop the last few if over.
    for (let round = 0; round < MAX_FIT_ROUNDS; round++) {
      const out = render(level, new Set(added), trimDocs);
      if (count(out) <= budget || added.length <= atLeast) return out;
      added.splice(Math.max(atLeast, added.length - (1 << round)));
    }
    return base;
  };
  let skeleton: string;
  switch (input.fidelity) {
    case 'raw':
      skeleton = original;
      break;
    case 'abstract':
      skeleton = renderAbstract(units, analysis.imports, analysis.language);
      break;
    case 'outline':
      skeleton = render('outline', undefined, undefined);
      break;
    case 'balanced':
      skeleton = filled('balanced', true);
      break;
    case 'detailed': {
      // Docs whole when they fit the budget with the signatures, else cut to their first sentence as at
      // balanced; never less than balanced keeps (source form can be shorter than balanced's compaction).
      const whole = render('detailed', undefined, false);
      const floor = count(filled('balanced', true));
      const candidates = [count(whole) > budgetOf('detailed') ? filled('detailed', true) : filled('detailed', false), whole];
      skeleton = candidates.find((c) => count(c) > floor) ?? filled('balanced', true);
      break;
    }
  }
  let compressed_tokens = count(skeleton);
  // Never longer than the input: tiny files can grow by an elision marker.
  if (compressed_tokens > original_tokens || skeleton.length > original.length) {
    skeleton = original;
    compressed_tokens = original_tokens;
  }
  let markers: MarkerLayout | undefined;
  const chosen = labels ? rendered.get(skeleton) : undefined;
  if (labels && chosen?.spans.length) {
    const spans = originalSpans(original, content, chosen.spans);
    const textHash = textHashOf(original);
    const ref = markerRef(textHash, spans);
    skeleton = renderSkeleton(content, extraction, chosen.args[0], chosen.args[1], chosen.args[2], labels(ref));
    compressed_tokens = count(skeleton);
    markers = { ref, textHash, spans };
  }
  return {
    skeleton,
    language: analysis.language,
    parser: analysis.parser,
    imports: analysis.imports,
    dependency_graph,
    importance,
    ...tokenStats(original_tokens, compressed_tokens),
    fidelity: input.fidelity,
    tokenizer,
    parse_errors: analysis.parseErrors,
    ...(markers ? { markers } : {}),
  };
}

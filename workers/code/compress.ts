import { FIDELITY_BUDGET, isFidelity } from '../shared/fidelity.js';
import { countTokens, tokenizerFor } from '../shared/tokens.js';
import { tokenStats } from '../shared/stats.js';
import { analyzeInternal } from './analyze.js';
import { CodeInputError } from './errors.js';
import { adjacency, buildEdges, CODE_PAGERANK, unitTable } from './graph.js';
import { pagerank } from '../shared/pagerank.js';
import { renderAbstract, renderSkeleton } from './skeleton.js';
import type { CompressCodeInput, CompressCodeResult, DependencyGraph, ImportanceEntry } from './types.js';

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
  let skeleton: string;
  switch (input.fidelity) {
    case 'raw':
      skeleton = original;
      break;
    case 'abstract':
      skeleton = renderAbstract(units, analysis.imports, analysis.language);
      break;
    case 'outline':
      skeleton = renderSkeleton(content, extraction, 'outline');
      break;
    case 'balanced':
      skeleton = renderSkeleton(content, extraction, 'balanced');
      break;
    case 'detailed': {
      // Bodies of the most important units (PageRank order) up to the detailed share of all body text.
      let bodyTotal = 0;
      for (const u of units) if (u.bodyStart !== null && u.bodyEnd !== null) bodyTotal += u.bodyEnd - u.bodyStart;
      const allowance = bodyTotal * FIDELITY_BUDGET.detailed;
      const keep = new Set<number>();
      let used = 0;
      for (const i of order) {
        const u = units[i]!;
        if (u.bodyStart === null || u.bodyEnd === null) continue;
        const extra = u.bodyEnd - u.bodyStart;
        if (keep.size > 0 && used + extra > allowance) continue;
        keep.add(i);
        used += extra;
      }
      skeleton = renderSkeleton(content, extraction, 'detailed', keep);
      break;
    }
  }
  const original_tokens = countTokens(original, tokenizer);
  let compressed_tokens = skeleton === original ? original_tokens : countTokens(skeleton, tokenizer);
  // Never longer than the input: tiny files can grow by an elision marker.
  if (compressed_tokens > original_tokens || skeleton.length > original.length) {
    skeleton = original;
    compressed_tokens = original_tokens;
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
  };
}

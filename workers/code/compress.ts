import { FIDELITY_BUDGET, isFidelity, type Fidelity } from '../shared/fidelity.js';
import { countTokens, tokenizerFor } from '../shared/tokens.js';
import { tokenStats } from '../shared/stats.js';
import { analyzeInternal } from './analyze.js';
import { CodeInputError } from './errors.js';
import { adjacency, buildEdges, CODE_PAGERANK, unitTable } from './graph.js';
import { pagerank } from '../shared/pagerank.js';
import { markerRef, REF_PLACEHOLDER, textHashOf, type MarkerLayout } from '../text/markers.js';
import { codeLabels, originalSpans } from './markers.js';
import { balancedItems, cloneChoice, detailedItems, fill, type Filled, type LadderContext } from './ladder.js';
import { levelChoice, renderAbstract, renderSkeleton, type LadderChoice } from './skeleton.js';
import type { CodeOverBudget, CompressCodeInput, CompressCodeResult, DependencyGraph, ImportanceEntry } from './types.js';

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
  const render = (choice: LadderChoice): string => renderSkeleton(content, extraction, choice, placeholder);
  const ladder: LadderContext = {
    source: content,
    ex: extraction,
    order,
    tokens: (text) => countTokens(text, tokenizer),
    labelCost: placeholder ? countTokens(` 100 tokens #${REF_PLACEHOLDER}.10`, tokenizer) : 0,
    render,
    count,
  };
  // The level's share of the input, without the text levels' floors: a skeleton's signatures are its floor
  // (never cut), and a share of a tiny file is smaller than any body.
  const budgetOf = (level: Fidelity) => Math.floor(original_tokens * FIDELITY_BUDGET[level]);
  const token_budget = budgetOf(input.fidelity);
  let skeleton: string;
  let chosen: LadderChoice | null = null;
  let reason: string | null = null;
  // The same vocabulary as the text engine's over_budget: the level's floor, or an input a skeleton cannot shorten.
  let why: CodeOverBudget = 'floor';
  if (input.fidelity === 'raw') skeleton = original;
  else if (input.fidelity === 'abstract') {
    skeleton = renderAbstract(units, analysis.imports, analysis.language);
    reason = 'the names of the units and imports are the abstract, never cut';
  } else {
    const outline = levelChoice(extraction, 'outline');
    const level = input.fidelity;
    let filled: Filled = { choice: outline, text: render(outline), tokens: 0 };
    filled.tokens = count(filled.text);
    if (level !== 'outline') {
      filled = fill(ladder, outline, balancedItems(ladder), budgetOf('balanced'));
      if (level === 'detailed') {
        // Source form (no C-family compaction) when it fits; each level starts from what the one below chose.
        const source = { ...cloneChoice(filled.choice), source: true };
        const start = (extraction.compact.length === 0 && !extraction.scaffolding) || count(render(source)) <= token_budget ? source : filled.choice;
        filled = fill(ladder, start, detailedItems(ladder), token_budget);
      }
    }
    skeleton = filled.text;
    chosen = skeleton === original ? null : filled.choice;
    reason = 'the signatures, imports and shapes (with their elision markers) are never cut';
  }
  let compressed_tokens = count(skeleton);
  // Never longer than the input: tiny files can grow by an elision marker.
  if (compressed_tokens > original_tokens || skeleton.length > original.length) {
    skeleton = original;
    compressed_tokens = original_tokens;
    chosen = null;
    reason = 'a skeleton would not be shorter than the input, so the input is returned as sent';
    why = 'not_shorter';
  }
  let markers: MarkerLayout | undefined;
  if (labels && chosen) {
    const spans: number[] = [];
    renderSkeleton(content, extraction, chosen, placeholder, spans);
    if (spans.length > 0) {
      const originals = originalSpans(original, content, spans);
      const textHash = textHashOf(original);
      const ref = markerRef(textHash, originals);
      skeleton = renderSkeleton(content, extraction, chosen, labels(ref));
      compressed_tokens = count(skeleton);
      markers = { ref, textHash, spans: originals };
    }
  }
  const over = input.fidelity !== 'raw' && compressed_tokens > token_budget;
  const budget_note = over ? `${compressed_tokens} tokens against a ${input.fidelity} budget of ${token_budget}: ${reason}` : null;
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
    token_budget: input.fidelity === 'raw' ? original_tokens : token_budget,
    budget_note,
    ...(over ? { over_budget: why } : {}),
    ...(markers ? { markers } : {}),
  };
}

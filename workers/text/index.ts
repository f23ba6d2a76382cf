// Text compression engine: parse -> units -> score (-> query fusion) -> budgeted selection -> render.
import { FIDELITIES, FIDELITY_FLOOR, budgetFor, isFidelity } from '../shared/fidelity.js';
import type { Fidelity } from '../shared/fidelity.js';
import { countTokens, tokenizerFor } from '../shared/tokens.js';
import type { TokenizerName } from '../shared/tokens.js';
import { tokenStats, type TokenStats } from '../shared/stats.js';
import { parseBlocks } from '../shared/markdown.js';
import type { Block } from '../shared/markdown.js';
import { buildUnits } from './units.js';
import { structuredUnits } from './structured.js';
import type { Unit } from './units.js';
import type { TreeLayout } from './tree.js';
import { terms, Vocabulary } from './terms.js';
import { similarityGraph } from './graph.js';
import type { SimilarityGraph } from './graph.js';
import { leadUnit, plainScores, type ScoreParts } from './score.js';
import { queryPriority } from './query.js';
import { selectUnits } from './select.js';
import { actionableCounts, unitDetails } from './details.js';
import { releaseRanks } from './releases.js';
import { setupPieces } from './setup.js';
import { hiddenRuns, markerFor, renderSkeleton, renderWithIds, type HiddenRun, type Skeleton } from './render.js';
import { REF_PLACEHOLDER, markerRef, textHashOf, type MarkerLayout } from './markers.js';
import type { Unescaped } from '../shared/ansi.js';
import { textAsRead } from './asRead.js';
import { ALERT } from '../shared/alerts.js';
import type { RenderStats } from './render.js';
import { countSpans, fastCount } from './tokencount.js';
import { MODEL_CONTEXT_WINDOWS, contextWindowFor, recommendForTokens } from './recommend.js';

export { MODEL_CONTEXT_WINDOWS };

export interface CompressTextInput {
  text: string;
  fidelity: Fidelity;
  query?: string | null;
  model?: string | null;
  /** A firm token budget instead of the fidelity's (prune_by_relevance): no floor, no small-input rules. */
  budgetTokens?: number | null;
  /** Markers carry ids and the result their layout, for a host that stores it (docs/markers.md). */
  markerIds?: boolean;
}
/** Optional semantic relevance hook for query-guided mode; fused by RRF when present. */
export interface CompressTextOptions {
  embed?: (texts: string[]) => Promise<Float32Array[]>;
  /** Told the engine's per-unit scores and choice (explain_compression_decision); absent for raw or empty input. */
  onTrace?: (trace: CompressTrace) => void;
}

/** What the engine decided and why: every unit with its scores and whether it was kept. */
export interface CompressTrace {
  /** The text the offsets below refer to: the text sent, without its terminal escapes if it had any. */
  text: string;
  blocks: Block[];
  units: Unit[];
  tokens: Int32Array;
  section: Int32Array;
  deps: number[][];
  plain: Float64Array;
  parts: ScoreParts;
  /** Final priority the selection ranked by (plain, length-adjusted; or fused with the query). */
  priority: Float64Array;
  kept: Uint8Array;
  budget: number;
  original: number;
  /** Everything kept: the input fits the budget, or the skeleton came out no shorter than the input. */
  all_kept: 'fits_budget' | 'not_shorter' | null;
  /** JSON, YAML or XML: the tree of values the units were cut from (its paths name the sections). */
  tree: TreeLayout | null;
}
export interface CompressTextResult extends TokenStats {
  compressed_text: string;
  fidelity: Fidelity;
  mode: 'plain' | 'query-guided';
  tokenizer: TokenizerName;
  units_total: number;
  units_kept: number;
  /** With markerIds, when the output has markers: what expands them. */
  markers?: MarkerLayout;
  /** The level's token budget (budgetFor, or the firm budget asked for); absent for raw. */
  budget_tokens?: number;
  /** Why the output passes budget_tokens, when it does (docs/text-engine.md, "Levels nest"). */
  over_budget?: OverBudget;
}

/**
 * Why an output may pass its level's budget: `short_input`, the kept text must outweigh its markers
 * and the budget holds too little of it; `not_shorter`, no skeleton within the budget is shorter than
 * the input, so the input is returned.
 */
export type OverBudget = 'short_input' | 'not_shorter';
export interface RecommendInput {
  text: string;
  model?: string | null;
  context_window?: number | null;
}
export interface RecommendResult {
  recommended_fidelity: Fidelity;
  original_tokens: number;
  estimated_compressed_tokens: number;
  context_window: number | null;
  tokenizer: TokenizerName;
  reason: string;
}

/** Share of the budget headings may take when chosen for themselves (outline), by mode. */
const HEADING_SHARE = { plain: 0.3, 'query-guided': 0.15 } as const;
const MMR_LAMBDA = 0.3;
/**
 * Plain mode: priority a unit gains per detail (name, number, code span) no kept unit holds yet, over
 * cost^DETAIL_EXPONENT; without it a level kept about a third of a document's details (issue 23).
 */
const DETAIL_WEIGHT = 10;
const DETAIL_EXPONENT = 0.9;
/** Plain mode: priority added to the document's lead sentence (score.ts leadUnit) when it costs at most LEAD_SHARE of the budget. */
const LEAD_BONUS = 5;
const LEAD_SHARE = 0.15;
/**
 * Plain mode, changelogs (releases.ts): the newest releases' units gain up to RECENCY_BONUS, falling
 * to 0 as the releases before them fill RECENCY_SHARE of the budget; older releases compete on
 * details, and the markers that hide them name their versions.
 */
const RECENCY_BONUS = 2;
const RECENCY_SHARE = 0.6;
/**
 * Plain mode, JSON and XML: a record that reports an error, failure or warning (shared/alerts.ts) gains
 * ALERT_BONUS. In a JSON log the error entries are near-copies of each other, so without it the
 * detail and diversity terms kept the first and passed over the rest for routine entries.
 */
const ALERT_BONUS = 2;
const MAX_FIX_ROUNDS = 8;
/** Most of a balanced or detailed budget the document's title, lead and setup examples may take (setup.ts). */
const SETUP_SHARE = 0.35;
const AIM_ROUNDS = 4;

const markerCostCache = new Map<string, number>();
function markerCost(tokenizer: TokenizerName, ref: string | null): number {
  let c = markerCostCache.get(`${tokenizer}:${!!ref}`);
  if (c === undefined) {
    c = countTokens(ref ? `\n\n[… Setup, Usage +2 more: 345 tokens #${ref}.1]` : '\n\n[… 1 heading, 12 sentences, 345 tokens]', tokenizer);
    markerCostCache.set(`${tokenizer}:${!!ref}`, c);
  }
  return c;
}

export { budgetFor };

interface Analysis extends Skeleton {
  total: number;
  blocks: Block[];
  units: Unit[];
  tokens: Int32Array;
  gaps: Int32Array;
  unitTerms: number[][];
  vocab: Vocabulary;
  graph: SimilarityGraph;
  plain: Float64Array;
  deps: number[][];
  section: Int32Array;
  parts: ScoreParts;
}

/** `clauses`: sentences are cut into clauses (plain mode; units.ts buildUnits). */
function analyse(text: string, tokenizer: TokenizerName, clauses: boolean): Analysis {
  // Structured text (JSON, YAML, XML) is cut into whole values (tree.ts), anything else into Markdown blocks and sentences.
  const tree = structuredUnits(text);
  const blocks = tree ? tree.blocks : parseBlocks(text);
  const units = tree ? tree.units : buildUnits(text, blocks, clauses);
  const n = units.length;
  // Tree markers count the tokens of whatever span they hide, structure included: from piece offsets.
  const { total, perSpan: tokens, gaps } = countSpans(text, units, tokenizer, tree?.layout.pieces);
  // A unit inside one pre-tokenizer piece that began before it (`[[[[…` of a deeply nested JSON
  // value) was attributed nothing: it is counted on its own, or it would be hidden as free.
  for (let i = 0; i < units.length; i++) if (tokens[i] === 0 && units[i]!.end > units[i]!.start) tokens[i] = fastCount(text.slice(units[i]!.start, units[i]!.end), tokenizer);
  const vocab = new Vocabulary();
  const unitTerms: number[][] = new Array(n);
  for (let i = 0; i < n; i++) unitTerms[i] = vocab.encodeSpan(text, units[i]!.start, units[i]!.end);
  const graph = similarityGraph(unitTerms, vocab.size);
  const parts: ScoreParts = { centrality: new Float64Array(n), prior: new Float64Array(n), density: new Float64Array(n) };
  const plain = plainScores(text, blocks, units, graph, parts);
  const headingUnit = new Map<number, number>();
  units.forEach((u, i) => u.kind === 'heading' && headingUnit.set(u.block, i));
  const hasHeadings = headingUnit.size > 0;
  const section = new Int32Array(n);
  const deps = units.map((u, i) => {
    const chain = blocks[u.block]!.headings;
    section[i] = hasHeadings ? (chain.length ? chain[chain.length - 1]! : -1) : u.block;
    // Requirements are followed through (a row needs its table's header, which needs the first row).
    const d = new Set<number>(u.requires);
    for (const r of d) for (const rr of units[r]!.requires) if (rr !== i) d.add(rr);
    for (const h of chain) {
      const hu = headingUnit.get(h);
      if (hu !== undefined && hu !== i) d.add(hu);
    }
    return [...d];
  });
  return { text, total, blocks, units, tokens, gaps, unitTerms, vocab, graph, plain, deps, section, parts, tree: tree?.layout ?? null };
}

/** Mildly favour compact units so one long sentence does not eat a small budget. */
function lengthAdjusted(scores: Float64Array, tokens: Int32Array): Float64Array {
  const sorted = tokens.slice().sort();
  const median = Math.max(8, sorted[sorted.length >> 1] ?? 8);
  return scores.map((s, i) => s * Math.min(1.25, Math.max(0.6, Math.pow(median / Math.max(1, tokens[i]!), 0.25))));
}

/** Adds the changelog recency bonus (RECENCY_BONUS, RECENCY_SHARE) to `priority` in place. */
function recencyBonus(priority: Float64Array, releases: Int32Array, cost: Int32Array, budget: number): void {
  const releaseTokens: number[] = [];
  for (let i = 0; i < releases.length; i++) if (releases[i]! >= 0) releaseTokens[releases[i]!] = (releaseTokens[releases[i]!] ?? 0) + cost[i]!;
  const window = budget * RECENCY_SHARE;
  const bonus: number[] = [];
  let before = 0;
  for (let r = 0; r < releaseTokens.length; r++) {
    bonus[r] = before < window ? RECENCY_BONUS * (1 - before / window) : 0;
    before += releaseTokens[r] ?? 0;
  }
  for (let i = 0; i < releases.length; i++) if (releases[i]! >= 0) priority[i] = priority[i]! + bonus[releases[i]!]!;
}

/** Adds ALERT_BONUS to the priority of every JSON or XML record that reports an error or warning, in place. */
function alertBonus(priority: Float64Array, text: string, units: Unit[]): void {
  for (let i = 0; i < units.length; i++) {
    const u = units[i]!;
    if (u.kind === 'value' && ALERT.test(text.slice(u.start, u.end))) priority[i] = priority[i]! + ALERT_BONUS;
  }
}

/**
 * A compression of the text without its terminal escapes, told in the terms of the text as sent: its
 * tokens, and marker spans as offsets into it (what the store keeps and ids expand, escapes included).
 * The ref is the sent text's too: two texts that differ only in their escapes must not share ids.
 */
function asSent(r: CompressTextResult, sent: string, u: Unescaped, tokenizer: TokenizerName): CompressTextResult {
  if (!r.markers) return { ...r, ...tokenStats(fastCount(sent, tokenizer), r.compressed_tokens) };
  const textHash = textHashOf(sent);
  const spans = r.markers.spans.map(u.originalOffset);
  const ref = markerRef(textHash, spans);
  // Refs are digits of one length, so the new one costs the same tokens (recounted anyway).
  const text = r.compressed_text.split(`#${r.markers.ref}.`).join(`#${ref}.`);
  return { ...r, compressed_text: text, ...tokenStats(fastCount(sent, tokenizer), fastCount(text, tokenizer)), markers: { ref, textHash, spans } };
}

function result(
  text: string,
  original: number,
  compressed: number,
  fidelity: Fidelity,
  mode: CompressTextResult['mode'],
  tokenizer: TokenizerName,
  unitsTotal: number,
  unitsKept: number,
): CompressTextResult {
  return {
    compressed_text: text,
    ...tokenStats(original, compressed),
    fidelity,
    mode,
    tokenizer,
    units_total: unitsTotal,
    units_kept: unitsKept,
  };
}

export async function compressText(input: CompressTextInput, options: CompressTextOptions = {}): Promise<CompressTextResult> {
  // The HTTP layer validates requests; this keeps a bad direct call from producing NaN budgets.
  if (!isFidelity(input.fidelity)) throw new TypeError(`invalid fidelity: ${String(input.fidelity)}`);
  if (input.text != null && typeof input.text !== 'string') throw new TypeError('text must be a string');
  const text = input.text ?? '';
  const { tokenizer, mode } = readRequest(input);
  if (input.fidelity === 'raw' || text.trim() === '') {
    const t = fastCount(text, tokenizer);
    return result(text, t, t, input.fidelity, mode, tokenizer, 0, 0);
  }
  // Terminal output: the escapes cost tokens and show nothing; the text without them is compressed.
  // An HTML page likewise: its text, Markdown-shaped, is compressed (html.ts); ids expand to the page's
  // bytes. The derived text is compressed as it is, never derived again (a page showing HTML source).
  const derived = textAsRead(text);
  if (derived) return asSent(await compressSource({ ...input, text: derived.text }, options), text, derived, tokenizer);
  return compressSource(input, options);
}

/** What a compression reads from its request besides the text: the tokenizer, the query (trimmed, or null), the mode. */
function readRequest(input: CompressTextInput): { tokenizer: TokenizerName; query: string | null; mode: CompressTextResult['mode'] } {
  const query = input.query?.trim() ? input.query.trim() : null;
  return { tokenizer: tokenizerFor(input.model), query, mode: query ? 'query-guided' : 'plain' };
}

/** compressText on a text taken as it is (no terminal escapes or page markup to remove first). */
async function compressSource(input: CompressTextInput, options: CompressTextOptions): Promise<CompressTextResult> {
  const text = input.text ?? '';
  const { tokenizer, query, mode } = readRequest(input);
  if (text.trim() === '') return result(text, 0, 0, input.fidelity, mode, tokenizer, 0, 0);
  const a = analyse(text, tokenizer, !query);
  const ref = input.markerIds ? REF_PLACEHOLDER : null;
  const original = a.total;
  const n = a.units.length;
  const firm = input.budgetTokens != null && input.budgetTokens > 0;
  const budget = firm ? Math.min(original, Math.floor(input.budgetTokens!)) : budgetFor(original, input.fidelity);
  const cost = a.tokens; // attributed pieces already carry the trailing punctuation/newlines
  let total = 0;
  for (let i = 0; i < n; i++) total += cost[i]!;
  const trace = (priority: Float64Array, kept: Uint8Array, allKept: CompressTrace['all_kept']) =>
    options.onTrace?.({ text: a.text, blocks: a.blocks, units: a.units, tokens: a.tokens, section: a.section, deps: a.deps, plain: a.plain, parts: a.parts, priority, kept, budget, original, all_kept: allKept, tree: a.tree ?? null });
  /** The result with its budget, and why it passes it when it does. */
  const finish = (r: CompressTextResult, why?: OverBudget): CompressTextResult =>
    r.compressed_tokens > budget ? { ...r, budget_tokens: budget, over_budget: why ?? 'not_shorter' } : { ...r, budget_tokens: budget };
  if (total <= budget || n === 0) {
    trace(a.plain, new Uint8Array(n).fill(1), 'fits_budget');
    return finish(result(text, original, original, input.fidelity, mode, tokenizer, n, n));
  }

  let base = a.plain;
  if (query) {
    const queryTerms = [...new Set(terms(query))].map((t) => a.vocab.lookup(t)).filter((t): t is number => t !== undefined);
    base = await queryPriority({
      unitTerms: a.unitTerms, section: a.section, block: a.units.map((u) => u.block), isHeading: a.units.map((u) => u.kind === 'heading'), queryTerms, plain: a.plain, query,
      unitText: (i) => text.slice(a.units[i]!.start, a.units[i]!.end), embed: options.embed,
    });
  }
  // Plain mode only: in query mode the fused rank already decides, and short generic units must not outrank the match.
  if (!query) base = lengthAdjusted(base, a.tokens);
  const lead = query ? -1 : leadUnit(text, a.blocks, a.units);
  const releases = query ? null : releaseRanks(text, a.blocks, a.units);
  const priorities = new Map<number, Float64Array>();
  /** The priority one level's budget ranks by: the same for a level whether it is asked for or built on. */
  const priorityAt = (levelBudget: number): Float64Array => {
    if (query) return base;
    let p = priorities.get(levelBudget);
    if (p) return p;
    p = base.slice();
    if (lead >= 0 && cost[lead]! <= levelBudget * LEAD_SHARE) p[lead] = p[lead]! + LEAD_BONUS;
    if (releases) recencyBonus(p, releases, cost, levelBudget);
    if (a.tree && a.tree.format !== 'yaml') alertBonus(p, text, a.units);
    priorities.set(levelBudget, p);
    return p;
  };
  const priority = priorityAt(budget);
  const capped = a.units.map((u) => u.kind === 'heading');
  const details = query ? undefined : unitDetails(text, a.units);
  const detailScale = query || a.tree ? undefined : actionableScale(text, a.units);
  const select = (b: number, levelPriority: Float64Array, seed?: Uint8Array, allowed?: Uint8Array) =>
    selectUnits({ seed, allowed,
      cost, priority: levelPriority, deps: a.deps, neighbors: a.graph.neighbors, similarity: a.graph.weights, budget: b,
      markerCost: markerCost(tokenizer, ref), capped,
      capTokens: b * HEADING_SHARE[mode], lambda: MMR_LAMBDA,
      details, detailWeight: DETAIL_WEIGHT, detailExponent: DETAIL_EXPONENT, detailScale,
    });

  const setup = query ? [] : setupPieces(text, a.blocks, a.units, cost);
  /**
   * Balanced and detailed without a query keep the document's title, lead and first install and usage
   * examples (setup.ts) while they cost at most SETUP_SHARE of the budget, dropping the last pieces first.
   */
  const setupSeed = (levelBudget: number, fidelity: Fidelity): Uint8Array | undefined => {
    if (!setup.length || (fidelity !== 'balanced' && fidelity !== 'detailed')) return undefined;
    for (let count = setup.length; count > 0; count--) {
      const seed = new Uint8Array(n);
      for (const piece of setup.slice(0, count)) for (const i of piece) {
        seed[i] = 1;
        for (const d of a.deps[i]!) seed[d] = 1;
      }
      let used = 0;
      for (let i = 0; i < n; i++) if (seed[i]) used += cost[i]!;
      if (used <= levelBudget * SETUP_SHARE) return seed;
    }
    return undefined;
  };
  /** One level's output; `whole` when it is the input itself (no shorter skeleton), `why` when it passes its budget. */
  type Choice = { out: string; tokens: number; kept: Uint8Array; whole?: boolean; why?: OverBudget };
  /** The units one level keeps at its budget. */
  const chooseAt = (budget: number, fidelity: Fidelity, allowed?: Uint8Array): Choice => {
    const priority = priorityAt(budget);
    const seed = setupSeed(budget, fidelity);
    // Selection prices tokens per unit; the rendered text is counted exactly and the effective
    // budget re-aimed (proportionally) so the output lands just under the real budget.
    let best: Choice | null = null;
    let target = budget;
    // The estimate overstates the exact count by a steady few per cent (separators and pieces merge
    // when joined); the ratio seen at the last exact count corrects it, and the targets already tried
    // bracket the next one, so aiming settles in one or two selections instead of oscillating.
    let ratio = 1;
    let fits = 0;
    let over = Infinity;
    for (let round = 0; round < AIM_ROUNDS; round++) {
      const kept = select(target, priority, seed, allowed);
      const stats: RenderStats = { markers: [], pieces: 0 };
      const out = renderSkeleton(a, kept, stats, ref);
      // Cheap estimate first (kept unit tokens + markers + separators); the exact count of the
      // whole output is only paid for when the estimate says it may fit.
      let estimate = stats.pieces;
      for (let i = 0; i < n; i++) if (kept[i]) estimate += a.tokens[i]!;
      for (const m of stats.markers) estimate += fastCount(m, tokenizer);
      const exact = estimate * ratio <= budget * 1.03;
      const outTokens = exact ? fastCount(out, tokenizer) : Math.ceil(estimate * ratio);
      if (exact && estimate > 0) ratio = outTokens / estimate;
      if (exact && outTokens <= budget && (!best || outTokens > best.tokens)) best = { out, tokens: outTokens, kept };
      if (exact && outTokens <= budget && outTokens >= budget * 0.95) break;
      if (outTokens <= budget) fits = Math.max(fits, target);
      else over = Math.min(over, target);
      // Aimed a little under the budget (further under after an overshoot) so a miss is rare.
      const scale = budget / Math.max(1, outTokens);
      let next = Math.floor(target * scale * (outTokens > budget ? 0.98 : 0.99));
      if (next <= fits || next >= over) next = Math.floor((fits + Math.min(over, 2 * target)) / 2);
      if (next === target || next <= fits || next >= over) break;
      target = next;
    }
    if (!best) {
      // Last resort: drop the lowest-priority free units until the exact count fits.
      const kept = select(Math.floor(target * 0.8), priority, seed, allowed);
      let out = renderSkeleton(a, kept, undefined, ref);
      let outTokens = fastCount(out, tokenizer);
      for (let round = 0; round < MAX_FIX_ROUNDS && outTokens > budget; round++) {
        const needed = (outTokens - budget) * (1 + round * 0.5);
        const required = new Uint8Array(n);
        for (let i = 0; i < n; i++) if (kept[i]) for (const d of a.deps[i]!) required[d] = 1;
        const victims = [];
        for (let i = 0; i < n; i++) if (kept[i] && !required[i] && !seed?.[i]) victims.push(i);
        victims.sort((x, y) => priority[x]! - priority[y]!);
        let freed = 0;
        for (const v of victims) {
          if (freed >= needed) break;
          kept[v] = 0;
          freed += cost[v]!;
        }
        if (freed === 0) {
          if (seed) break; // what the level below keeps stays
          kept.fill(0);
        }
        out = renderSkeleton(a, kept, undefined, ref);
        outTokens = fastCount(out, tokenizer);
      }
      best = { out, tokens: outTokens, kept };
    }
    return settle(a, best.kept, priority, tokenizer, budget, fidelity, firm, ref, allowed) ?? best;
  };
  /**
   * Levels nest (issue 48): each level chooses only among the units the level above it keeps, so
   * abstract keeps a subset of outline, outline of balanced, balanced of detailed, for every input and
   * query; the most detailed level chooses freely. A level above whose output is the input itself
   * (it fits, or no skeleton is shorter) leaves the level below free.
   */
  const levels = new Map<Fidelity, Choice>();
  const chooseLevel = (fidelity: Fidelity): Choice => {
    const known = levels.get(fidelity);
    if (known) return known;
    const upper = FIDELITIES[FIDELITIES.indexOf(fidelity) + 1];
    const above = upper && upper !== 'raw' ? chooseLevel(upper) : null;
    const levelBudget = budgetFor(original, fidelity);
    let own: Choice;
    if (total <= levelBudget) own = { out: text, tokens: original, kept: new Uint8Array(n).fill(1), whole: true };
    else {
      own = chooseAt(levelBudget, fidelity, above && !above.whole ? above.kept : undefined);
      if (own.tokens >= original) own = { ...own, whole: true, why: 'not_shorter' };
      else if (own.tokens > levelBudget && !own.why) own = { ...own, why: 'short_input' };
    }
    levels.set(fidelity, own);
    return own;
  };
  const best = firm ? chooseAt(budget, input.fidelity) : chooseLevel(input.fidelity);
  const { out, tokens: outTokens, kept } = best;
  let unitsKept = 0;
  for (let i = 0; i < n; i++) unitsKept += kept[i]!;
  // Never longer than the input: fall back to the original itself.
  if (outTokens >= original) {
    trace(priority, new Uint8Array(n).fill(1), 'not_shorter');
    return finish(result(text, original, original, input.fidelity, mode, tokenizer, n, n));
  }
  trace(priority, kept, null);
  if (ref) {
    // The layout is final: the real ref replaces the placeholder (same token cost, recounted anyway).
    const ided = renderWithIds(a, kept);
    if (ided) return finish({ ...result(ided.out, original, fastCount(ided.out, tokenizer), input.fidelity, mode, tokenizer, n, unitsKept), markers: ided.layout }, best.why ?? 'short_input');
  }
  return finish(result(out, original, outTokens, input.fidelity, mode, tokenizer, n, unitsKept), best.why ?? 'short_input');
}

/** Most units added so that kept text outweighs its markers (small inputs only ever need one or two). */
const MAX_SUBSTANCE_ADDS = 4;

/**
 * Two rules the budgeted selection cannot see, applied to its choice:
 * - substance (small budgets only, under twice the level's floor): the kept text must outweigh its
 *   elision markers. A short input at a small budget would otherwise come back as a heading or a lead
 *   word and a marker, "saving" everything while keeping nothing; units are added (the best that fits,
 *   else the smallest, so a level passes its budget by as little as it can). Long inputs keep their
 *   budget exactly.
 * - no marker costs more than it hides: a dropped run whose tokens are no more than its marker's is
 *   kept instead, unless the exact count then passes the budget.
 * Returns null when the selection already obeys both.
 */
function settle(a: Analysis, chosen: Uint8Array, priority: Float64Array, tokenizer: TokenizerName, budget: number, fidelity: Fidelity, firm = false, ref: string | null = null, allowed?: Uint8Array) {
  const n = a.units.length;
  const kept = chosen.slice();
  const keep = (into: Uint8Array, i: number) => {
    into[i] = 1;
    for (const d of a.deps[i]!) into[d] = 1;
  };
  let substance = false;
  if (!firm && budget < 2 * FIDELITY_FLOOR[fidelity]) {
    const order = [...priority.keys()].filter((i) => a.units[i]!.kind !== 'heading' && (!allowed || allowed[i])).sort((x, y) => priority[y]! - priority[x]!);
    for (let round = 0; round < MAX_SUBSTANCE_ADDS; round++) {
      const stats: RenderStats = { markers: [], pieces: 0 };
      renderSkeleton(a, kept, stats); // plain spelling: an id is navigation, not noise the content must outweigh
      let content = 0;
      for (let i = 0; i < n; i++) if (kept[i] && a.units[i]!.kind !== 'heading') content += a.tokens[i]!;
      let markers = 0;
      for (const m of stats.markers) markers += fastCount(m, tokenizer);
      if (content >= markers) break;
      // Past the budget by as little as possible: the best unit that still fits, else the smallest.
      let used = markers;
      for (let i = 0; i < n; i++) if (kept[i]) used += a.tokens[i]!;
      const open = order.filter((i) => !kept[i]);
      const next = open.find((i) => used + a.tokens[i]! <= budget) ?? open.sort((x, y) => a.tokens[x]! - a.tokens[y]!)[0];
      if (next === undefined) break;
      keep(kept, next);
      substance = true;
    }
  }
  const filled = kept.slice();
  let cheap = false;
  // The runs the renderer will mark (render.ts hiddenRuns: a run may end before a closing fence).
  const runs = a.tree ? treeRuns(kept) : hiddenRuns(a, kept);
  for (const r of runs) {
    // Levels nest: a run the level above hides (in part) stays hidden here.
    if (allowed && !allowedRun(allowed, r)) continue;
    let hidden = 0;
    if (!a.tree && r.end < a.units[r.to]!.end) hidden = fastCount(a.text.slice(r.start, r.end), tokenizer);
    else for (let k = r.from; k <= r.to; k++) hidden += a.tokens[k]! + (k > r.from ? a.gaps[k]! : 0);
    const marker = markerFor(a, r.from, r.to, ref);
    // A structured marker announces the exact count of its span (structure included): that is what it must not outcost.
    if (a.tree) hidden = Number(/(\d+) tokens?(?= #|\])/.exec(marker)?.[1] ?? hidden);
    if (hidden <= fastCount(marker, tokenizer)) {
      for (let k = r.from; k <= r.to; k++) keep(filled, k);
      cheap = true;
    }
  }
  if (!substance && !cheap) return null;
  const render = (k: Uint8Array) => {
    const out = renderSkeleton(a, k, undefined, ref);
    return { out, tokens: fastCount(out, tokenizer), kept: k };
  };
  if (cheap) {
    const withFill = render(filled);
    if (substance || withFill.tokens <= budget) return withFill;
  }
  return substance ? render(kept) : null;
}

function allowedRun(allowed: Uint8Array, r: HiddenRun): boolean {
  for (let k = r.from; k <= r.to; k++) if (!allowed[k]) return false;
  return true;
}

/**
 * Markdown, plain mode: the detail gain of a unit that states actionable facts (details.ts ACTIONABLE:
 * numbers with units, endpoints, status codes, settings, flags, defaults) is raised by ACTIONABLE_GAIN
 * per fact (at most ACTIONABLE_MAX of them); code units gain CODE_DETAIL_SCALE of theirs, their names
 * being many and cheap to find again in the expansion.
 */
const ACTIONABLE_GAIN = 3;
const ACTIONABLE_MAX = 4;
const CODE_DETAIL_SCALE = 0.6;
function actionableScale(text: string, units: Unit[]): Float64Array {
  const counts = actionableCounts(text, units);
  return Float64Array.from(units, (u, i) =>
    u.kind === 'code' || u.kind === 'code-body' || u.kind === 'code-head' ? CODE_DETAIL_SCALE : 1 + ACTIONABLE_GAIN * Math.min(ACTIONABLE_MAX, counts[i]!),
  );
}

/** Maximal runs of hidden units, as settle prices them for structured text (treeRender draws its own). */
function treeRuns(kept: Uint8Array): HiddenRun[] {
  const runs: HiddenRun[] = [];
  for (let i = 0; i < kept.length; ) {
    if (kept[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < kept.length && !kept[j + 1]) j++;
    runs.push({ from: i, to: j, start: -1, end: -1 });
    i = j + 1;
  }
  return runs;
}

export function recommendFidelity(input: RecommendInput): RecommendResult {
  const tokenizer = tokenizerFor(input.model);
  const tokens = fastCount(input.text ?? '', tokenizer);
  const window = input.context_window && input.context_window > 0 ? input.context_window : contextWindowFor(input.model);
  const rule = recommendForTokens(tokens, window);
  return {
    recommended_fidelity: rule.fidelity,
    original_tokens: tokens,
    estimated_compressed_tokens: rule.estimated,
    context_window: window,
    tokenizer,
    reason: rule.reason,
  };
}

export { recommendForTokens, fidelityForSize, contextWindowFor } from './recommend.js';
export { splitSentences, sentences } from './sentences.js';

/**
 * The code fidelity ladder's budgeted choice (docs/code-engine.md, "Fidelity"). Docs and bodies are
 * items with a token cost; each level starts from what the level below chose and adds items in
 * priority order while the rendering stays within its budget, so what outline shows is in balanced
 * and what balanced shows is in detailed. Until 2026-12-03 every doc was cut (balanced) or whole
 * (detailed) whatever it cost, and detailed always added a body: rxjs's `timeout.ts` kept 76.9% at
 * detailed, `Subscriber.ts` 54% at balanced, and a file of one function came back whole at detailed.
 */
import { DOC_CUT, DOC_DROPPED, DOC_WHOLE, type LadderChoice } from './skeleton.js';
import type { BodyElision, Extraction } from './units.js';

/** Exact-count rounds when the estimated costs overshoot the budget. */
const MAX_FIT_ROUNDS = 6;

export interface LadderContext {
  source: string;
  ex: Extraction;
  /** Units, most central first (PageRank): their docs and bodies are offered in this order. */
  order: number[];
  /** Tokens of a text (estimates of what an item adds). */
  tokens: (text: string) => number;
  /** Tokens of one elision marker's label (0 when the output has no ids). */
  labelCost: number;
  /** The rendering of a choice and its exact token count. */
  render: (choice: LadderChoice) => string;
  count: (text: string) => number;
}

type Item = { doc: number; state: typeof DOC_CUT | typeof DOC_WHOLE } | { body: number };

export interface Filled {
  choice: LadderChoice;
  text: string;
  tokens: number;
}

export function cloneChoice(c: LadderChoice): LadderChoice {
  return { docs: c.docs.slice(), bodies: new Set(c.bodies), source: c.source };
}

/** Balanced: first sentences of the docs, most central units first, then the central units' bodies. */
export function balancedItems(ctx: LadderContext): Item[] {
  const items: Item[] = docOrder(ctx).map((doc) => ({ doc, state: DOC_CUT }));
  for (const u of bodyOrder(ctx)) items.push({ body: u });
  return items;
}

/** Detailed: the first sentences balanced could not fit, then per unit (most central first) its body and its docs whole. */
export function detailedItems(ctx: LadderContext): Item[] {
  const docs = docOrder(ctx);
  const items: Item[] = docs.map((doc) => ({ doc, state: DOC_CUT }));
  const byUnit = new Map<number, number[]>();
  for (const d of docs) {
    const u = ctx.ex.docs[d]!.unit;
    let list = byUnit.get(u);
    if (!list) byUnit.set(u, (list = []));
    list.push(d);
  }
  const bodies = new Set(bodyOrder(ctx));
  // The module's own doc first (as in docOrder), then each unit's body and whole docs, then the rest.
  const lead = byUnit.get(-1)?.filter((d) => isLead(ctx, d)) ?? [];
  for (const d of lead) items.push({ doc: d, state: DOC_WHOLE });
  for (const u of ctx.order) {
    if (bodies.has(u)) items.push({ body: u });
    for (const d of byUnit.get(u) ?? []) items.push({ doc: d, state: DOC_WHOLE });
  }
  for (const d of byUnit.get(-1) ?? []) if (!lead.includes(d)) items.push({ doc: d, state: DOC_WHOLE });
  return items;
}

/**
 * Add items to `start` in order while the estimate stays within `budget`, then count exactly and take
 * back the last ones added if the rendering is over. The result always contains `start`.
 */
export function fill(ctx: LadderContext, start: LadderChoice, items: Item[], budget: number): Filled {
  const base = ctx.render(start);
  const baseTokens = ctx.count(base);
  if (baseTokens >= budget) return { choice: start, text: base, tokens: baseTokens };
  const choice = cloneChoice(start);
  const added: Item[] = [];
  let used = baseTokens;
  for (const item of items) {
    const cost = costOf(ctx, choice, item);
    if (cost === null || used + cost > budget) continue;
    apply(choice, item);
    added.push(item);
    used += cost;
  }
  for (let round = 0; round < MAX_FIT_ROUNDS && added.length > 0; round++) {
    const chosen = cloneChoice(start);
    for (const item of added) apply(chosen, item);
    const text = ctx.render(chosen);
    const tokens = ctx.count(text);
    if (tokens <= budget) return { choice: chosen, text, tokens };
    added.splice(Math.max(0, added.length - (1 << round)));
  }
  if (added.length > 0) {
    const chosen = cloneChoice(start);
    for (const item of added) apply(chosen, item);
    const text = ctx.render(chosen);
    const tokens = ctx.count(text);
    if (tokens <= budget) return { choice: chosen, text, tokens };
  }
  return { choice: start, text: base, tokens: baseTokens };
}

function apply(choice: LadderChoice, item: Item): void {
  if ('body' in item) choice.bodies.add(item.body);
  else if (choice.docs[item.doc]! < item.state) choice.docs[item.doc] = item.state;
}

/** What an item adds to the current choice, in tokens (an estimate), or null when it adds nothing. */
function costOf(ctx: LadderContext, choice: LadderChoice, item: Item): number | null {
  const { ex, source } = ctx;
  if ('body' in item) {
    if (choice.bodies.has(item.body)) return null;
    const body = prepared(ctx).bodyOf.get(item.body);
    if (!body) return null;
    const state = body.doc === undefined ? DOC_WHOLE : choice.docs[body.doc]!;
    const edits = state === DOC_DROPPED ? body.noDoc : state === DOC_CUT ? (body.summaryDoc ?? body.keepDoc) : body.keepDoc;
    return edits.reduce((sum, e) => sum + shown(ctx, source.slice(e.start, e.end)) - shown(ctx, e.text) - (e.mark ? ctx.labelCost : 0), 0);
  }
  const doc = ex.docs[item.doc]!;
  const current = choice.docs[item.doc]!;
  if (current >= item.state) return null;
  // A doc inside a folded run (C macros) shows only in the source form.
  if (!choice.source && prepared(ctx).folded.has(item.doc)) return 0;
  const whole = shown(ctx, source.slice(doc.start, doc.end)) + 1;
  const cut = doc.trim ? shown(ctx, doc.trim.text) + ctx.labelCost + 1 : whole;
  if (item.state === DOC_CUT) return cut;
  // Whole: nothing more to show when the doc is one sentence already.
  if (!doc.trim && current === DOC_CUT) return null;
  return current === DOC_CUT ? whole - cut : whole;
}

interface Prepared {
  bodyOf: Map<number, BodyElision>;
  costs: Map<string, number>;
  /** Docs inside a compaction edit (a folded macro run hides them unless the rendering is in source form). */
  folded: Set<number>;
}
const preparedFor = new WeakMap<LadderContext, Prepared>();

function prepared(ctx: LadderContext): Prepared {
  let p = preparedFor.get(ctx);
  if (!p) {
    const bodyOf = new Map<number, BodyElision>();
    for (const b of ctx.ex.bodies) if (b.unit >= 0) bodyOf.set(b.unit, b);
    const folded = new Set<number>();
    if (ctx.ex.compact.length > 0) {
      const spans = ctx.ex.compact.map((e) => [e.start, e.end] as const).sort((a, b) => a[0] - b[0]);
      ctx.ex.docs.forEach((d, i) => {
        if (spans.some(([s, e]) => s <= d.start && d.end <= e)) folded.add(i);
      });
    }
    preparedFor.set(ctx, (p = { bodyOf, costs: new Map(), folded }));
  }
  return p;
}

/** Token estimate of a text, remembered per rendering context. */
function shown(ctx: LadderContext, text: string): number {
  if (text.length === 0) return 0;
  const cache = prepared(ctx).costs;
  let n = cache.get(text);
  if (n === undefined) cache.set(text, (n = ctx.tokens(text)));
  return n;
}

/** Docs in priority order: the module's docstring, then by their unit's centrality, then the docs of no unit. */
function docOrder(ctx: LadderContext): number[] {
  const rankOf = new Map(ctx.order.map((u, r) => [u, r]));
  const priority = (d: number): number => {
    const unit = ctx.ex.docs[d]!.unit;
    if (unit >= 0) return rankOf.get(unit) ?? ctx.order.length;
    return isLead(ctx, d) ? -1 : ctx.order.length + 1;
  };
  return ctx.ex.docs.map((_, d) => d).sort((a, b) => priority(a) - priority(b) || ctx.ex.docs[a]!.start - ctx.ex.docs[b]!.start);
}

/** The module's docstring (Python): offered first. */
function isLead(ctx: LadderContext, d: number): boolean {
  return ctx.ex.docs[d]!.lead === true;
}

/** Units whose body can be shown, most central first. */
function bodyOrder(ctx: LadderContext): number[] {
  const elided = new Set(ctx.ex.bodies.filter((b) => b.unit >= 0 && b.noDoc.length > 0).map((b) => b.unit));
  return ctx.order.filter((u) => elided.has(u));
}

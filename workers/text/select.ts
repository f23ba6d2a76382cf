// Budgeted greedy selection with MMR-style redundancy control and elision-marker costs.

export interface SelectInput {
  /** Token cost of each unit when rendered (text + separator). */
  cost: ArrayLike<number>;
  /** Higher is better. */
  priority: ArrayLike<number>;
  /** Units that must be kept together with unit i (heading chain, table header, code head). */
  deps: readonly (readonly number[])[];
  /** Sparse similarity neighbours for redundancy (MMR). */
  neighbors: readonly (readonly number[])[];
  similarity: readonly (readonly number[])[];
  budget: number;
  /** Tokens one elision marker costs. */
  markerCost: number;
  /** Units that may be chosen for themselves only while their total stays under `capTokens` (headings). */
  capped?: ArrayLike<boolean>;
  capTokens?: number;
  /** Redundancy weight (lambda in MMR). */
  lambda?: number;
  /** Detail ids per unit (names, numbers, code spans): a unit gains for each one no kept unit holds yet. */
  details?: readonly (readonly number[])[];
  /** Priority gained per new detail, divided by cost^detailExponent so dense units buy the most details per token. */
  detailWeight?: number;
  detailExponent?: number;
  /** Per-unit factor on the detail gain (prose stating actionable facts above code full of names); absent: 1. */
  detailScale?: ArrayLike<number>;
  /** Units kept before anything is chosen (a document's lead and setup); they count against the budget. */
  seed?: ArrayLike<number>;
  /** Only these units may be chosen (the level above's choice, so levels nest); absent: any. */
  allowed?: ArrayLike<number>;
}

/** Binary max-heap of [value, id]. */
class Heap {
  private v: number[] = [];
  private id: number[] = [];
  get size() {
    return this.v.length;
  }
  push(value: number, id: number) {
    const v = this.v, ids = this.id;
    let i = v.length;
    v.push(value);
    ids.push(id);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (v[p]! >= value) break;
      v[i] = v[p]!;
      ids[i] = ids[p]!;
      i = p;
    }
    v[i] = value;
    ids[i] = id;
  }
  /** Value of the entry the last pop returned (no tuple per pop). */
  topValue = 0;
  pop(): number {
    const v = this.v, ids = this.id;
    this.topValue = v[0]!;
    const top = ids[0]!;
    const lv = v.pop()!, lid = ids.pop()!;
    if (v.length) {
      let i = 0;
      const n = v.length;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const c = l + 1 < n && v[l + 1]! > v[l]! ? l + 1 : l;
        if (v[c]! <= lv) break;
        v[i] = v[c]!;
        ids[i] = ids[c]!;
        i = c;
      }
      v[i] = lv;
      ids[i] = lid;
    }
    return top;
  }
}

/** Returns a 0/1 keep flag per unit. Units are assumed to be in document order (for marker counting). */
export function selectUnits(input: SelectInput): Uint8Array {
  const n = input.cost.length;
  const kept = new Uint8Array(n);
  const lambda = input.lambda ?? 0.5;
  const redundancy = new Float64Array(n);
  const heap = new Heap();
  const details = input.details;
  const dw = details ? input.detailWeight ?? 0 : 0;
  const dexp = input.detailExponent ?? 0.5;
  const covered = new Set<number>();
  let used = 0;
  let cappedUsed = 0;
  let runs = n > 0 ? 1 : 0; // everything starts as one elided run
  const isDropped = (j: number) => j >= 0 && j < n && kept[j] === 0;
  // Marker-run delta of flipping j to kept.
  const runDelta = (j: number) => {
    const l = isDropped(j - 1), r = isDropped(j + 1);
    return l && r ? 1 : !l && !r ? -1 : 0;
  };
  const group: number[] = []; // reused: one array per pop was most of the loop's cost
  /**
   * Priority plus the value of the unit's details not yet covered, per token it really costs: its own
   * tokens and the marker it adds (next to kept text) or saves (filling a gap).
   */
  const valueOf = (i: number) => {
    let v = input.priority[i]! - lambda * redundancy[i]!;
    if (dw) {
      // The unit comes with its requirements not kept yet (a sentence's first clause, a table's
      // header): their details count with it, and their tokens are paid with it.
      let fresh = 0;
      let cost = input.cost[i]! + runDelta(i) * input.markerCost;
      for (const d of details![i]!) if (!covered.has(d)) fresh++;
      for (const r of input.deps[i]!) {
        if (kept[r]) continue;
        cost += input.cost[r]!;
        for (const d of details![r]!) if (!covered.has(d) && !details![i]!.includes(d)) fresh++;
      }
      if (fresh) v += (fresh * dw * (input.detailScale?.[i] ?? 1)) / Math.pow(Math.max(1, cost), dexp);
    }
    return v;
  };
  // Units that require unit g: their value rises when g is kept (queued again then).
  const dependents: number[][] = dw ? Array.from({ length: n }, () => []) : [];
  if (dw) for (let i = 0; i < n; i++) for (const r of input.deps[i]!) dependents[r]!.push(i);
  if (input.seed) {
    for (let i = 0; i < n; i++) {
      if (!input.seed[i]) continue;
      runs += runDelta(i);
      kept[i] = 1;
      used += input.cost[i]!;
      if (input.capped?.[i]) cappedUsed += input.cost[i]!;
      if (dw) for (const d of details![i]!) covered.add(d);
      const nb = input.neighbors[i]!;
      const sim = input.similarity[i]!;
      for (let k = 0; k < nb.length; k++) if (sim[k]! > redundancy[nb[k]!]!) redundancy[nb[k]!] = sim[k]!;
    }
  }
  const allowed = input.allowed;
  for (let i = 0; i < n; i++) if (!kept[i] && (!allowed || allowed[i])) heap.push(valueOf(i), i);
  while (heap.size) {
    const i = heap.pop();
    const value = heap.topValue;
    if (kept[i]) continue;
    const current = valueOf(i);
    if (current < value - 1e-12) {
      heap.push(current, i); // stale entry: redundancy or cover grew since it was queued
      continue;
    }
    // Requirements are transitive: a row needs its table header, which needs the first row.
    group.length = 0;
    group.push(i);
    for (let k = 0; k < group.length; k++) for (const d of input.deps[group[k]!]!) if (!kept[d] && !group.includes(d)) group.push(d);
    if (input.capped?.[i] && input.capTokens !== undefined && cappedUsed + input.cost[i]! > input.capTokens) continue;
    // Tentatively keep the group to price its tokens and marker changes exactly.
    let extra = 0;
    let dRuns = 0;
    for (const g of group) {
      if (kept[g]) continue;
      dRuns += runDelta(g);
      kept[g] = 1;
      extra += input.cost[g]!;
    }
    if (used + extra + (runs + dRuns) * input.markerCost > input.budget) {
      for (const g of group) kept[g] = 0; // group held only units that were not kept before
      continue;
    }
    used += extra;
    runs += dRuns;
    if (input.capped?.[i]) cappedUsed += input.cost[i]!;
    for (const g of group) {
      if (dw) for (const d of details![g]!) covered.add(d);
      const nb = input.neighbors[g]!;
      const sim = input.similarity[g]!;
      for (let k = 0; k < nb.length; k++) if (sim[k]! > redundancy[nb[k]!]!) redundancy[nb[k]!] = sim[k]!;
    }
    // A neighbour of kept text got cheaper (it now saves or adds no marker): queue its new value.
    if (dw) for (const g of group) for (const j of [g - 1, g + 1, ...dependents[g]!]) if (isDropped(j) && (!allowed || allowed[j])) heap.push(valueOf(j), j);
  }
  return kept;
}

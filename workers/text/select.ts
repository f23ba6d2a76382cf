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
  for (let i = 0; i < n; i++) heap.push(input.priority[i]!, i);
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
  while (heap.size) {
    const i = heap.pop();
    const value = heap.topValue;
    if (kept[i]) continue;
    const current = input.priority[i]! - lambda * redundancy[i]!;
    if (current < value - 1e-12) {
      heap.push(current, i); // stale entry: redundancy grew since it was queued
      continue;
    }
    group.length = 0;
    group.push(i);
    for (const d of input.deps[i]!) if (!kept[d]) group.push(d);
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
      const nb = input.neighbors[g]!;
      const sim = input.similarity[g]!;
      for (let k = 0; k < nb.length; k++) if (sim[k]! > redundancy[nb[k]!]!) redundancy[nb[k]!] = sim[k]!;
    }
  }
  return kept;
}

// Exact byte-pair merging in O(n log n) for long pieces. The tokenizer library merges a piece by
// scanning every pair for the lowest rank after each merge, which is quadratic: a 80,000-character
// run without whitespace (one pre-tokenizer piece) took seconds. A heap ordered by (rank, position)
// with lazy invalidation makes the same choices (lowest rank, leftmost on ties), so counts are
// identical; test/core/bpe-linear.test.ts checks it against the library on many inputs.

/** Rank of the bytes [start, end) of the piece in the encoding, or undefined when they are not a token. */
export type RankOfRange = (start: number, end: number) => number | undefined;

/** A binary min-heap of (rank, start) pairs packed into parallel arrays. */
class PairHeap {
  private ranks: number[] = [];
  private starts: number[] = [];

  get size(): number {
    return this.ranks.length;
  }

  private less(a: number, b: number): boolean {
    const ra = this.ranks[a]!;
    const rb = this.ranks[b]!;
    return ra < rb || (ra === rb && this.starts[a]! < this.starts[b]!);
  }

  private swap(a: number, b: number): void {
    const rank = this.ranks[a]!;
    const start = this.starts[a]!;
    this.ranks[a] = this.ranks[b]!;
    this.starts[a] = this.starts[b]!;
    this.ranks[b] = rank;
    this.starts[b] = start;
  }

  push(rank: number, start: number): void {
    this.ranks.push(rank);
    this.starts.push(start);
    let i = this.ranks.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  /** Removes the minimum and returns [rank, start]. */
  pop(): [number, number] {
    const top: [number, number] = [this.ranks[0]!, this.starts[0]!];
    const lastRank = this.ranks.pop()!;
    const lastStart = this.starts.pop()!;
    if (this.ranks.length > 0) {
      this.ranks[0] = lastRank;
      this.starts[0] = lastStart;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < this.ranks.length && this.less(l, m)) m = l;
        if (r < this.ranks.length && this.less(r, m)) m = r;
        if (m === i) break;
        this.swap(i, m);
        i = m;
      }
    }
    return top;
  }
}

/**
 * Number of tokens the byte-pair merge of a piece of `n` bytes yields. Parts are kept as a linked list of start
 * offsets; each live pair (part, next part) sits in the heap with the rank it had when pushed, and a
 * popped entry whose rank no longer matches its pair is stale and skipped.
 */
export function mergeCount(n: number, rankOf: RankOfRange): number {
  if (n <= 1) return n;
  const next = new Int32Array(n + 1);
  const prev = new Int32Array(n + 1);
  const pairRank = new Float64Array(n);
  for (let i = 0; i <= n; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
  }
  // The rank of the pair starting at part `start`, or Infinity (no pair, or not a token).
  const rankAt = (start: number): number => {
    const mid = next[start]!;
    if (mid >= n) return Infinity;
    return rankOf(start, next[mid]!) ?? Infinity;
  };
  const heap = new PairHeap();
  for (let i = 0; i < n - 1; i++) {
    pairRank[i] = rankAt(i);
    if (pairRank[i] !== Infinity) heap.push(pairRank[i]!, i);
  }
  let parts = n;
  const dead = new Uint8Array(n);
  while (heap.size > 0) {
    const [rank, start] = heap.pop();
    if (dead[start] || pairRank[start] !== rank) continue;
    // Merge the part at `start` with the one after it.
    const gone = next[start]!;
    dead[gone] = 1;
    next[start] = next[gone]!;
    prev[next[gone]!] = start;
    parts--;
    pairRank[start] = rankAt(start);
    if (pairRank[start] !== Infinity) heap.push(pairRank[start]!, start);
    const before = prev[start]!;
    if (before >= 0) {
      pairRank[before] = rankAt(before);
      if (pairRank[before] !== Infinity) heap.push(pairRank[before]!, before);
    }
  }
  return parts;
}

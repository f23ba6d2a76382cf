// Binary search over sorted offsets, shared by the texts that keep a way back to what was sent
// (terminal escapes removed: ansi.ts; an HTML page read as text: ../text/html.ts).

/** How many values of the ascending `sorted` are below `k`. */
export function countBelow(sorted: ArrayLike<number>, k: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Line-based unified diff (Myers' O(ND) algorithm), as `diff -u` prints it.

type Op = { kind: ' ' | '-' | '+'; line: string; a: number; b: number };

/** Beyond this edit distance the diff degrades to "replace everything" (bounded time and memory). */
const MAX_EDIT_DISTANCE = 4000;

export function splitLines(s: string): string[] {
  if (s === '') return [];
  const lines = s.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

export function editScript(a: string[], b: string[]): Op[] {
  // Trim the common prefix and suffix first: edits are usually local.
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const A = a.slice(pre, a.length - suf);
  const B = b.slice(pre, b.length - suf);
  const mid = myers(A, B) ?? [...A.map((line) => ({ kind: '-' as const, line })), ...B.map((line) => ({ kind: '+' as const, line }))];
  const ops: Op[] = [];
  let ia = 0, ib = 0;
  for (let i = 0; i < pre; i++) ops.push({ kind: ' ', line: a[i]!, a: ia++, b: ib++ });
  for (const m of mid) {
    if (m.kind === ' ') ops.push({ kind: ' ', line: m.line, a: ia++, b: ib++ });
    else if (m.kind === '-') ops.push({ kind: '-', line: m.line, a: ia++, b: ib });
    else ops.push({ kind: '+', line: m.line, a: ia, b: ib++ });
  }
  for (let i = a.length - suf; i < a.length; i++) ops.push({ kind: ' ', line: a[i]!, a: ia++, b: ib++ });
  return ops;
}

function myers(a: string[], b: string[]): { kind: ' ' | '-' | '+'; line: string }[] | null {
  const n = a.length, m = b.length;
  const max = n + m;
  if (max === 0) return [];
  const offset = max + 1;
  let v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    if (d > MAX_EDIT_DISTANCE) return null;
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        trace.push(v.slice());
        return backtrack(trace, a, b, offset, d);
      }
    }
  }
  return null;
}

function backtrack(trace: Int32Array[], a: string[], b: string[], offset: number, dEnd: number) {
  const out: { kind: ' ' | '-' | '+'; line: string }[] = [];
  let x = a.length, y = b.length;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d]!; // state before step d (trace[d] was pushed at the start of iteration d)
    const k = x - y;
    const prevK = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? k + 1 : k - 1;
    const prevX = v[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) out.push({ kind: ' ', line: a[--x]! }), y--;
    if (x === prevX) out.push({ kind: '+', line: b[--y]! });
    else out.push({ kind: '-', line: a[--x]! });
  }
  while (x > 0 && y > 0) out.push({ kind: ' ', line: a[--x]! }), y--;
  return out.reverse();
}

export interface DiffInput {
  from: string;
  to: string;
  fromLabel?: string;
  toLabel?: string;
  context?: number;
}

export interface DiffResult {
  unified_diff: string;
  added_lines: number;
  removed_lines: number;
}

export function unifiedDiff(input: DiffInput): DiffResult {
  const context = input.context ?? 3;
  const a = splitLines(input.from);
  const b = splitLines(input.to);
  const ops = editScript(a, b);
  const added = ops.filter((o) => o.kind === '+').length;
  const removed = ops.filter((o) => o.kind === '-').length;
  if (added === 0 && removed === 0) return { unified_diff: '', added_lines: 0, removed_lines: 0 };
  const lines: string[] = [`--- ${input.fromLabel ?? 'a'}`, `+++ ${input.toLabel ?? 'b'}`];
  let i = 0;
  while (i < ops.length) {
    if (ops[i]!.kind === ' ') {
      i++;
      continue;
    }
    // Hunk: from `context` lines before this change to `context` after the last change that is
    // within 2*context lines of the previous one.
    let start = Math.max(0, i - context);
    let end = i;
    while (end < ops.length) {
      if (ops[end]!.kind !== ' ') {
        end++;
        continue;
      }
      let run = 0;
      while (end + run < ops.length && ops[end + run]!.kind === ' ') run++;
      if (end + run >= ops.length || run > 2 * context) {
        end = Math.min(ops.length, end + context);
        break;
      }
      end += run;
    }
    const hunk = ops.slice(start, end);
    const aStart = hunk[0]!.a, bStart = hunk[0]!.b;
    const aLen = hunk.filter((o) => o.kind !== '+').length;
    const bLen = hunk.filter((o) => o.kind !== '-').length;
    const range = (s: number, l: number) => (l === 1 ? `${s + 1}` : `${l === 0 ? s : s + 1},${l}`);
    lines.push(`@@ -${range(aStart, aLen)} +${range(bStart, bLen)} @@`);
    for (const o of hunk) lines.push(o.kind + o.line);
    i = end;
  }
  return { unified_diff: lines.join('\n') + '\n', added_lines: added, removed_lines: removed };
}

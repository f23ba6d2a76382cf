// Plan proposals: a unified diff against a pinned base, applied strictly (no fuzz: the base is a fixed
// version, so every context and removed line must match where the hunk says), and line blame over a
// plan's versions. Pure functions; the pool runs them (planPropose, planApply, planBlame).
import { editScript, splitLines, unifiedDiff } from '../kb/diff.js';

export type PatchOutcome = { ok: true; content: string; added_lines: number; removed_lines: number } | { ok: false; reason: string };

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

/** Joins lines back into a text; the base's final newline is kept (a unified diff does not carry it here). */
function join(lines: string[], base: string): string {
  if (lines.length === 0) return '';
  return lines.join('\n') + (base === '' || base.endsWith('\n') ? '\n' : '');
}

/** Applies a unified diff to base exactly; the reason names the first hunk that does not fit. */
export function applyPatch(base: string, diff: string): PatchOutcome {
  const a = splitLines(base);
  const out: string[] = [];
  const lines = diff.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let cursor = 0;
  let added = 0;
  let removed = 0;
  let hunks = 0;
  let i = 0;
  while (i < lines.length && !HUNK.test(lines[i]!)) {
    const l = lines[i]!;
    if (!(l.startsWith('--- ') || l.startsWith('+++ ') || l.startsWith('diff ') || l.startsWith('index ') || l.trim() === '')) {
      return { ok: false, reason: `line ${i + 1}: expected a hunk header (@@ -a,b +c,d @@)` };
    }
    i++;
  }
  while (i < lines.length) {
    const m = HUNK.exec(lines[i]!);
    if (!m) return { ok: false, reason: `line ${i + 1}: expected a hunk header` };
    hunks++;
    const oldStart = Number(m[1]);
    const oldLen = m[2] === undefined ? 1 : Number(m[2]);
    const newLen = m[4] === undefined ? 1 : Number(m[4]);
    const at = oldLen === 0 ? oldStart : oldStart - 1;
    if (at < cursor || at > a.length) return { ok: false, reason: `hunk ${hunks}: starts at line ${oldStart}, out of order or past the end of the base` };
    while (cursor < at) out.push(a[cursor++]!);
    let oldSeen = 0;
    let newSeen = 0;
    i++;
    while (i < lines.length && !HUNK.test(lines[i]!)) {
      const l = lines[i]!;
      const kind = l === '' ? ' ' : l[0];
      const text = l === '' ? '' : l.slice(1);
      if (kind === '\\') {
        i++;
        continue;
      }
      if (kind === ' ' || kind === '-') {
        if (a[cursor] !== text) return { ok: false, reason: `hunk ${hunks}: line ${cursor + 1} of the base is not ${JSON.stringify(text.slice(0, 80))}` };
        cursor++;
        oldSeen++;
        if (kind === ' ') {
          out.push(text);
          newSeen++;
        } else removed++;
      } else if (kind === '+') {
        out.push(text);
        newSeen++;
        added++;
      } else {
        return { ok: false, reason: `line ${i + 1}: a hunk line starts with ' ', '-' or '+'` };
      }
      i++;
    }
    if (oldSeen !== oldLen || newSeen !== newLen) return { ok: false, reason: `hunk ${hunks}: header says -${oldLen} +${newLen}, body has -${oldSeen} +${newSeen}` };
  }
  if (hunks === 0) return { ok: false, reason: 'the diff has no hunks' };
  while (cursor < a.length) out.push(a[cursor++]!);
  return { ok: true, content: join(out, base), added_lines: added, removed_lines: removed };
}

export const planTasks = {
  /** A proposal from full content (the diff is computed) or from a diff (it must apply to the base). */
  planPropose: (input: { base: string; content?: string | null; diff?: string | null; label?: string }): PatchOutcome & { diff?: string } => {
    if (typeof input.content === 'string') {
      const d = unifiedDiff({ from: input.base, to: input.content, fromLabel: `${input.label ?? 'plan'} (base)`, toLabel: `${input.label ?? 'plan'} (proposed)` });
      if (!d.unified_diff) return { ok: false, reason: 'the proposal changes nothing' };
      const check = applyPatch(input.base, d.unified_diff);
      return check.ok ? { ...check, diff: d.unified_diff } : check;
    }
    const applied = applyPatch(input.base, input.diff ?? '');
    if (applied.ok && applied.added_lines === 0 && applied.removed_lines === 0) return { ok: false, reason: 'the proposal changes nothing' };
    return applied.ok ? { ...applied, diff: input.diff! } : applied;
  },
  planApply: (input: { base: string; diff: string }): PatchOutcome => applyPatch(input.base, input.diff),
  /** For each line of the last version, the index of the version that introduced it. */
  planBlame: (input: { versions: string[] }): { origins: number[]; lines: string[] } => {
    let prev: string[] = [];
    let origins: number[] = [];
    input.versions.forEach((content, v) => {
      const cur = splitLines(content);
      const next: number[] = [];
      for (const op of editScript(prev, cur)) {
        if (op.kind === ' ') next.push(origins[op.a]!);
        else if (op.kind === '+') next.push(v);
      }
      prev = cur;
      origins = next;
    });
    return { origins, lines: prev };
  },
};

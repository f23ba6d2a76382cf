// Where a name is mentioned in a unit's or a file's module-level text, line by line: whole words,
// outside comments and nested definitions, optionally only through a receiver (`x.name`).
import type { IndexStore } from './store.js';

/** Whether the match at `at` sits in a comment line (`//`, `#`, `*`, `/*` before it on its line). */
export function inComment(text: string, at: number): boolean {
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  const before = text.slice(lineStart, at);
  const t = before.trimStart();
  return t.startsWith('*') || t.startsWith('/*') || before.includes('//') || /^#(?![[!])/.test(t) || (t.startsWith('#') && !t.startsWith('#include') && !t.startsWith('#define'));
}

/** Whether the match at `at` is reached through a receiver: `.name`, `::name`, `->name`. */
export function viaReceiver(text: string, at: number): boolean {
  let i = at - 1;
  while (i >= 0 && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '?' || text[i] === '!')) i--;
  // `...f(x)`: a spread, not a receiver.
  if (text[i] === '.' && text[i - 1] === '.') return false;
  // `/re/g.test(…)`: a regular expression literal's method, not one of ours.
  if (text[i] === '.' && /\/[dgimsuy]*$/.test(text.slice(Math.max(0, i - 8), i)) && /[^\s*]\/[dgimsuy]*$/.test(text.slice(Math.max(0, i - 9), i))) return false;
  return text[i] === '.' || (text[i] === ':' && text[i - 1] === ':') || (text[i] === '>' && text[i - 1] === '-');
}

/** A further test of one match (a `new` before it, not a property key, …). */
type Accept = (text: string, at: number) => boolean;

/** `name` as a whole word (identifier characters on neither side). */
function wholeWord(name: string): RegExp {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![A-Za-z0-9_$])${escaped}(?![A-Za-z0-9_$])`, 'g');
}

/** Whether the match at `at` is no use: in a comment, without the receiver asked for, or refused by `accept`. */
function rejected(text: string, at: number, receiverOnly: boolean, accept: Accept | undefined): boolean {
  return inComment(text, at) || (receiverOnly && !viaReceiver(text, at)) || (accept !== undefined && !accept(text, at));
}

/** Lines of unit i that mention `name` as a whole word, outside its nested definitions. */
export function mentionLines(ix: IndexStore, i: number, name: string, max = 20, receiverOnly = false, accept?: Accept): number[] {
  const u = ix.code.units[i]!;
  const f = ix.code.table.fileOf[i]!;
  const text = ix.code.analyses[f]!.content;
  const skip = ix.look.childrenOf(i).map((c) => [ix.code.units[c]!.start, ix.code.units[c]!.end] as const);
  const out: number[] = [];
  const re = wholeWord(name);
  // A unit that shares the name (an override, a wrapper method) names itself in its header: not a use.
  re.lastIndex = u.name === name && u.bodyStart !== null ? u.bodyStart : u.start;
  for (let m = re.exec(text); m && m.index < u.end; m = re.exec(text)) {
    if (skip.some(([s, e]) => m!.index >= s && m!.index < e)) continue;
    if (rejected(text, m.index, receiverOnly, accept)) continue;
    const line = ix.look.lineAt(f, m.index);
    if (out[out.length - 1] !== line) out.push(line);
    if (out.length >= max) break;
  }
  return out;
}

/** Lines of module-level code (outside definitions and imports) of file f that mention `name`. */
export function moduleLines(ix: IndexStore, f: number, name: string, max = 20, receiverOnly = false, accept?: Accept): number[] {
  const a = ix.code.analyses[f]!;
  const re = wholeWord(name);
  const out: number[] = [];
  for (const [s, e] of ix.look.gapsOf(f)) {
    re.lastIndex = s;
    for (let m = re.exec(a.content); m && m.index < e; m = re.exec(a.content)) {
      if (rejected(a.content, m.index, receiverOnly, accept)) continue;
      const line = ix.look.lineAt(f, m.index);
      if (out[out.length - 1] !== line) out.push(line);
      if (out.length >= max) return out;
    }
  }
  return out;
}

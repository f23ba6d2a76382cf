import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { splitSentences } from '../../workers/text/index.js';

export const MARKER = /\[… [^\]]*tokens?(?: #\d+\.\d+)?\]/g; // served markers carry an expand id

/** A realistic multi-thousand-token Markdown document nobody here wrote (installed dependency docs). */
export function realDoc(path = 'node_modules/postgres/README.md'): string {
  return readFileSync(resolve(process.cwd(), path), 'utf8');
}

/** Every piece of output text (markers removed, split into lines and sentences) is verbatim input. */
export function nonVerbatimFragments(input: string, output: string): string[] {
  const bad: string[] = [];
  for (const chunk of output.split(MARKER)) {
    for (const line of chunk.split('\n')) {
      const l = line.replace(/^\s*(?:[-*+•]|\d{1,3}[.)]|>)\s+/, '').trim();
      if (!l) continue;
      for (const s of splitSentences(l)) {
        const frag = l.slice(s.start, s.end);
        if (!input.includes(frag)) bad.push(frag);
      }
    }
  }
  return bad;
}

/** Positions of output lines in the input must increase (original order). */
export function orderViolations(input: string, output: string): string[] {
  const bad: string[] = [];
  let at = 0;
  for (const chunk of output.split(MARKER)) {
    for (const line of chunk.split('\n')) {
      const l = line.replace(/^\s*(?:[-*+•]|\d{1,3}[.)]|>)\s+/, '').trim();
      if (l.length < 12 || /^(`{3,}|~{3,})/.test(l)) continue; // short lines (fences, "---") recur everywhere
      const pos = input.indexOf(l, at);
      if (pos < 0) bad.push(l);
      else at = pos + 1;
    }
  }
  return bad;
}

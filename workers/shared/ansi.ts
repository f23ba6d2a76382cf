// Terminal escape sequences (colours, cursor moves, OSC titles and links): noise that costs tokens and
// that no reader of a compressed text sees. One pattern for every engine that cleans terminal output.

import { countBelow } from './sorted.js';

export const ANSI = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*(?:\x07|\x1b\\)/g;

/** A text without its escape sequences, and the way back to offsets in the text as sent. */
export interface Unescaped {
  text: string;
  /** Offset in the original of offset `k` of `text`, with the escapes right before `k` on the original's side. */
  originalOffset: (k: number) => number;
}

/** `text` without ANSI escapes; null when it has none. */
export function withoutAnsi(text: string): Unescaped | null {
  if (!text.includes('\x1b')) return null;
  // Removed sequences: where each one stood in the cleaned text, and how many characters had gone by then.
  const at: number[] = [];
  const removedBefore: number[] = []; // characters removed before and including sequence i
  const pieces: string[] = [];
  let removed = 0;
  let last = 0;
  ANSI.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = ANSI.exec(text))) {
    pieces.push(text.slice(last, m.index));
    at.push(m.index - removed);
    removed += m[0].length;
    removedBefore.push(removed);
    last = m.index + m[0].length;
  }
  if (!at.length) return null;
  pieces.push(text.slice(last));
  const clean = pieces.join('');
  return {
    text: clean,
    originalOffset: (k) => {
      // Sequences removed strictly before cleaned offset k.
      const before = countBelow(at, k);
      return k + (before > 0 ? removedBefore[before - 1]! : 0);
    },
  };
}

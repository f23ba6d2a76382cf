import { tidy } from './text.js';

/**
 * Preprocessor scaffolding that says little about an API (C-family balanced and outline): the
 * include guard, `#pragma once`, the `#ifdef __cplusplus` / `extern "C" {` / `#endif` wrappers
 * (and their closing `}` twins), and the conditional-compilation lines themselves (`#if`, `#ifdef`,
 * `#else`, `#endif` …): the declarations of every branch stay, the conditions are left to detailed.
 * Applied to the rendered text: these span tree nodes that the parser splits at the braces, while
 * the lines themselves are fixed idioms.
 */

const CPLUSPLUS = /^[ \t]*#[ \t]*ifdef[ \t]+__cplusplus[ \t]*\n[ \t]*(?:extern[ \t]+"C"[ \t]*\{|\})[ \t]*(?:\/\/[^\n]*|\/\*[^\n]*\*\/)?[ \t]*\n[ \t]*#[ \t]*endif\b[^\n]*(?:\n|$)/gm;
const PRAGMA_ONCE = /^[ \t]*#[ \t]*pragma[ \t]+once[ \t]*(?:\n|$)/gm;
const GUARD_OPEN = /^[ \t]*#[ \t]*(?:ifndef[ \t]+(\w+)|if[ \t]+!defined[ \t]*\(?[ \t]*(\w+)[ \t]*\)?)[ \t]*$/;
const ENDIF = /^[ \t]*#[ \t]*endif\b/;
// A conditional directive with its `\` continuation lines and a one-line trailing comment.
const CONDITIONAL = /^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b(?:[^\n]*\\\n)*(?:[^\n/]|\/(?!\*)|\/\*[^\n]*?\*\/)*(?:\n|$)/gm;

/** First line index that is neither blank nor comment, or -1. */
function firstCode(lines: string[]): number {
  let open = false;
  for (let i = 0; i < lines.length; i++) {
    const t = lines[i]!.trim();
    if (open) {
      if (t.includes('*/')) open = false;
      continue;
    }
    if (t === '' || t.startsWith('//')) continue;
    if (t.startsWith('/*')) {
      open = !t.includes('*/');
      continue;
    }
    return i;
  }
  return -1;
}

export function tidyPreprocessor(text: string): string {
  return tidy(stripGuard(text).replace(CONDITIONAL, ''));
}

function stripGuard(text: string): string {
  const out = tidy(text.replace(CPLUSPLUS, '').replace(PRAGMA_ONCE, ''));
  const lines = out.split('\n');
  // Include guard: `#ifndef X` + `#define X` first, the matching `#endif` last.
  const i = firstCode(lines);
  const m = i >= 0 ? GUARD_OPEN.exec(lines[i]!) : null;
  if (!m) return out;
  const name = m[1] ?? m[2]!;
  if (!new RegExp(`^[ \\t]*#[ \\t]*define[ \\t]+${name}[ \\t]*$`).test(lines[i + 1] ?? '')) return out;
  let last = lines.length - 1;
  while (last > i && lines[last]!.trim() === '') last--;
  if (last <= i + 1 || !ENDIF.test(lines[last]!)) return out;
  lines.splice(last, 1);
  lines.splice(i, 2);
  return tidy(lines.join('\n'));
}

// Details a reader acts on (names, numbers, code spans), per unit, as ids shared across the document.
import { IDENT, NUMBER } from './score.js';
import { HTML_COMMENT, LINK_TARGET } from './links.js';
import type { Unit } from './units.js';

/** Class and exception names with an inner capital (`ValueError`, `AbortController`); score.ts's IDENT leaves them out. */
const PASCAL = /\b[A-Z][a-z0-9]+[A-Z]\w*\b/g;

/** Distinct detail ids per unit; the same name or number in two units gets one id. */
export function unitDetails(text: string, units: readonly Unit[]): number[][] {
  const ids = new Map<string, number>();
  return units.map((u) => {
    let s = text.slice(u.start, u.end);
    if (s.includes('](') || s.includes(']:') || s.includes('="')) s = s.replace(LINK_TARGET, ' ');
    // An HTML comment is a note to the file's editors, not shown to readers (`<!-- This file is
    // auto-generated from README_js.md -->` opens uuid's README): its names are no details.
    if (s.includes('<!--')) s = s.replace(HTML_COMMENT, ' ');
    const own = new Set<number>();
    for (const re of [IDENT, NUMBER, PASCAL]) {
      for (const m of s.matchAll(re)) {
        // "--flag" counts; the tail of a hyphenated word ("renew-ticket") does not.
        if (m[0][0] === '-' && m.index! > 0 && /\w/.test(s[m.index! - 1]!)) continue;
        let id = ids.get(m[0]);
        if (id === undefined) ids.set(m[0], (id = ids.size));
        own.add(id);
      }
    }
    return [...own];
  });
}

// Details a reader acts on (names, numbers, code spans), per unit, as ids shared across the document.
import { IDENT, NUMBER } from './score.js';
import type { Unit } from './units.js';

/** Distinct detail ids per unit; the same name or number in two units gets one id. */
export function unitDetails(text: string, units: readonly Unit[]): number[][] {
  const ids = new Map<string, number>();
  return units.map((u) => {
    const s = text.slice(u.start, u.end);
    const own = new Set<number>();
    for (const re of [IDENT, NUMBER]) {
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

// Details a reader acts on (names, numbers, code spans), per unit, as ids shared across the document.
import { IDENT, NUMBER } from './score.js';
import type { Unit } from './units.js';

/** Class and exception names with an inner capital (`ValueError`, `AbortController`); score.ts's IDENT leaves them out. */
const PASCAL = /\b[A-Z][a-z0-9]+[A-Z]\w*\b/g;

/** Distinct detail ids per unit; the same name or number in two units gets one id. */
export function unitDetails(text: string, units: readonly Unit[]): number[][] {
  const ids = new Map<string, number>();
  return units.map((u) => {
    const s = text.slice(u.start, u.end);
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

/** A name a marker can show: a code-like word, no characters markers are parsed by, not too long. */
const SHOWABLE = /^[A-Za-z_$-][\w$.\-/]*$/;
const MAX_SHOWN_CHARS = 24;

/**
 * Code-like names per unit that a marker may show for the units it hides (`maxAge`, `sql.begin`,
 * `--port`), backticks and call parentheses removed, and how many units hold each name.
 */
export interface UnitNames {
  perUnit: string[][];
  units: Map<string, number>;
}

export function unitNames(text: string, units: readonly Unit[]): UnitNames {
  const count = new Map<string, number>();
  const perUnit = units.map((u) => {
    if (u.kind === 'heading') return [];
    const s = text.slice(u.start, u.end);
    const own = new Set<string>();
    for (const re of [IDENT, PASCAL]) {
      for (const m of s.matchAll(re)) {
        if (m[0][0] === '-' && m.index! > 0 && /\w/.test(s[m.index! - 1]!)) continue;
        const name = m[0].replace(/^`|`$/g, '').replace(/\(\)$/, '');
        if (name.length > MAX_SHOWN_CHARS || !SHOWABLE.test(name) || !/[A-Za-z]/.test(name) || /\.$/.test(name)) continue;
        own.add(process.env.FID_BT === '1' && m[0][0] === '`' ? `\`${name}\`` : name);
      }
    }
    for (const n of own) count.set(n, (count.get(n) ?? 0) + 1);
    return [...own];
  });
  return { perUnit, units: count };
}

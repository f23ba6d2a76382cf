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

/**
 * What a reader acts on, beyond a name: a number with its unit (`25 MB`, `every 5 seconds`, `port
 * 8420`), an HTTP status or method with a path, an environment variable, a command-line flag, a
 * default. Counted per unit (issue 48) to weigh a prose sentence that states one above a block of
 * code full of names.
 */
const ACTIONABLE = new RegExp(
  [
    String.raw`\b\d[\d,.]*\s?(?:ms|s|sec(?:onds?)?|min(?:utes?)?|hours?|days?|weeks?|KB|MB|GB|TB|KiB|MiB|GiB|bytes?|%|requests?|events?|entries|items|connections?|partitions?|cores?|nodes?|hosts?|servers?|workers?|instances?|threads?|users?|tokens?|lines?|rows?|files?|characters?|attempts?|times|retries|grams?|per (?:second|minute|hour|day))\b`,
    String.raw`\bport \d+|\b(?:GET|POST|PUT|PATCH|DELETE|HEAD) \/\S*`,
    String.raw`\b[1-5]\d\d\b(?= [A-Z][a-z]|\s*(?:Gone|Not|Too|Unauthorized|Forbidden)|\b)(?<=\b(?:HTTP |status |with |answers? |returns? )\d{3})`,
    String.raw`\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|(?<![\w-])--?[a-z][\w-]*`,
    String.raw`\bdefaults? (?:to|is)\b|\bat (?:most|least) \d|\bup to \d|\blimit(?:ed)? to\b`,
  ].join('|'),
  'g',
);

/** Actionable facts per unit (ACTIONABLE matches); code units count none, their names are details already. */
export function actionableCounts(text: string, units: readonly Unit[]): Int32Array {
  const counts = new Int32Array(units.length);
  units.forEach((u, i) => {
    if (u.kind !== 'sentence' && u.kind !== 'row') return;
    counts[i] = text.slice(u.start, u.end).match(ACTIONABLE)?.length ?? 0;
  });
  return counts;
}

import { invalidInput } from '../domain/errors.js';
import { needsStoring, storableText } from '../lib/text.js';

/** Deepest nesting a request body may have (objects and arrays); deeper bodies answer 422. */
export const MAX_JSON_DEPTH = 64;

const DROPPED_KEYS = new Set(['__proto__']);
/** A JSON `\u` escape, the only way U+0000 or an unpaired surrogate gets into a parsed string. */
const ESCAPE = Buffer.from('\\u');

/**
 * Request bodies at the boundary, for REST and MCP alike: JSON only, nested at most MAX_JSON_DEPTH
 * levels, and every string (keys included) storable: U+0000 removed and unpaired surrogates replaced
 * by U+FFFD (docs/decisions.md, "Text at the boundary"); `__proto__` keys are dropped. Cost is one
 * walk over the parsed nodes, so a large text field is one native scan.
 */
export function parseJsonBody(raw: Buffer, where = 'body'): unknown {
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch (err) {
    // A RangeError here is V8's own nesting limit: far deeper than ours, same answer.
    throw invalidInput('Body is not JSON', [{ loc: [where], msg: `JSON decode error: ${(err as Error).message}`, type: 'json_invalid' }]);
  }
  // U+0000 and unpaired surrogates can only come from \u escapes: JSON refuses a raw control character
  // in a string, and decoding turns invalid UTF-8 (encoded surrogates included) into U+FFFD. Without
  // one, no string needs scanning (two passes over each large text, ~50 µs for 40 KB of non-ASCII).
  return clean(value, [where], 0, raw.includes(ESCAPE));
}


function clean(value: unknown, loc: (string | number)[], depth: number, scan: boolean): unknown {
  if (typeof value === 'string') return scan && needsStoring(value) ? storableText(value) : value;
  if (value === null || typeof value !== 'object') return value;
  if (depth >= MAX_JSON_DEPTH) {
    throw invalidInput(`JSON nests deeper than ${MAX_JSON_DEPTH} levels`, [
      { loc, msg: `nesting deeper than ${MAX_JSON_DEPTH} levels`, type: 'value_error.too_deep' },
    ]);
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = clean(value[i], loc.length < 8 ? [...loc, i] : loc, depth + 1, scan);
    return value;
  }
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    const child = clean(object[key], loc.length < 8 ? [...loc, key] : loc, depth + 1, scan);
    if (DROPPED_KEYS.has(key) || (scan && needsStoring(key))) {
      delete object[key];
      if (!DROPPED_KEYS.has(key)) object[storableText(key)] = child;
    } else if (child !== object[key]) {
      object[key] = child;
    }
  }
  return object;
}

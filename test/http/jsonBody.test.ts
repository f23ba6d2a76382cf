import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonBody } from '../../src/http/jsonBody.js';

/** Every string in a parsed value, keys included. */
function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) {
    out.push(k);
    strings(x, out);
  }
  return out;
}
const storable = (s: string) => !s.includes('\u0000') && s.isWellFormed();

describe('parseJsonBody', () => {
  it('every string it returns is storable, whether the body escapes it or carries raw bytes', () => {
    // Strings of any UTF-16 code units (lone surrogates and U+0000 included), serialised with \u escapes.
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary', maxDepth: 4 }), (v) => {
        for (const s of strings(parseJsonBody(Buffer.from(JSON.stringify(v))))) expect(storable(s)).toBe(true);
      }),
      { numRuns: 500 },
    );
    // Raw bytes inside a JSON string, valid UTF-8 or not (encoded surrogates included), with no escape at all.
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const safe = bytes.filter((b) => b >= 0x20 && b !== 0x22 && b !== 0x5c);
        const body = Buffer.concat([Buffer.from('{"text":"'), Buffer.from(safe), Buffer.from('","k":[1,"x"]}')]);
        for (const s of strings(parseJsonBody(body))) expect(storable(s)).toBe(true);
      }),
      { numRuns: 500 },
    );
    expect(strings(parseJsonBody(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22])))).toEqual(['\ufffd\ufffd\ufffd']);
  });

  it('cleans escaped U+0000 and lone surrogates in values and keys, and drops __proto__', () => {
    const out = parseJsonBody(Buffer.from('{"a\\u0000b":"x\\u0000y\\ud800z","__proto__":{"p":1},"n":[{"m":"\\udfff"}]}')) as Record<string, unknown>;
    expect(out).toEqual({ ab: 'xy\ufffdz', n: [{ m: '\ufffd' }] });
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});

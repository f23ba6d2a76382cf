import cl100k from 'gpt-tokenizer/encoding/cl100k_base';
import o200k from 'gpt-tokenizer/encoding/o200k_base';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { auditPrompt } from '../../workers/cache/audit.js';
import { diffPrompts } from '../../workers/cache/diff.js';
import { charsOfTokens, tokenIndexAt } from '../../workers/cache/tokens.js';

const AS_TEXT = { disallowedSpecial: new Set<string>() };
const LIB = { o200k_base: o200k, cl100k_base: cl100k } as const;

function firstDiff(a: string, b: string, t: keyof typeof LIB): number {
  const x = LIB[t].encode(a, AS_TEXT);
  const y = LIB[t].encode(b, AS_TEXT);
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  return i;
}

// Text from a small alphabet that exercises the pre-tokenizer: words, digits, spaces, newlines, accents, CJK.
const piece = fc.constantFrom('the', ' cache', ' 12345', '  ', '\n', '\n\n', 'é', 'naïve', '日本', 'x', '-', '_id', ' 2026-11-26', 'ABC', "'s");
const text = fc.array(piece, { maxLength: 40 }).map((p) => p.join(''));

describe('prompt-cache token positions (workers/cache)', () => {
  it('first differing token equals a full tokenisation of both prompts', () => {
    for (const t of ['o200k_base', 'cl100k_base'] as const) {
      fc.assert(
        fc.property(text, text, text, (shared, restA, restB) => {
          const a = shared + restA;
          const b = shared + restB;
          const d = diffPrompts({ a, b, tokenizer: t, context: 4 });
          expect(d.first_diff_token).toBe(firstDiff(a, b, t));
          expect(d.tokens_a).toBe(LIB[t].encode(a, AS_TEXT).length);
          expect(d.identical).toBe(a === b);
        }),
        { numRuns: 300, seed: 22 },
      );
    }
  });

  it('token index of a character and the n-token prefix agree with the library', () => {
    fc.assert(
      fc.property(text, fc.nat(), (s, k) => {
        const ids = o200k.encode(s, AS_TEXT);
        const n = ids.length ? k % (ids.length + 1) : 0;
        const cut = charsOfTokens(s, n, 'o200k_base');
        expect(cut.tokens).toBe(n);
        expect(cut.total).toBe(ids.length);
        // The cut sits where the n-th token of the whole text ends (re-encoding the cut text alone may
        // split differently at its end, so the reference is the decoded first n tokens).
        const head = o200k.decode(ids.slice(0, n));
        if (s.startsWith(head)) expect(cut.chars).toBe(head.length);
        if (s.length) {
          const at = k % s.length;
          const { indexes } = tokenIndexAt(s, [at], 'o200k_base');
          // Tokens before the one holding the character cover less than `at` characters.
          expect(o200k.decode(ids.slice(0, indexes[0]!)).length).toBeLessThanOrEqual(at);
        }
      }),
      { numRuns: 300, seed: 7 },
    );
  });

  it('a piece too long to encode gives its start, marked approximate', () => {
    const run = 'x'.repeat(5000);
    const d = diffPrompts({ a: `hello world ${run}a`, b: `hello world ${run}b`, tokenizer: 'o200k_base', context: 2 });
    expect(d.approximate).toBe(true);
    expect(d.first_diff_token).toBe(o200k.encode('hello world').length);
  });

  it('audit finds each volatile kind once, in order, and not words that merely look like ids', () => {
    const s = 'at 2026-11-26T09:30:12Z id 3f2b8c1e-1234-4abc-9def-0123456789ab trace_id=ab12cd34ef epoch 1764149412 sha deadbeef0123456789ab seed 123456789012 on 2026-11-26 at 10:15:00; session-summary-notes';
    const r = auditPrompt({ text: s, tokenizer: 'o200k_base', max: 50 });
    expect(r.spans.map((x) => x.kind)).toEqual(['timestamp', 'uuid', 'request_id', 'unix_epoch', 'hex_id', 'long_number', 'date', 'time']);
    for (const x of r.spans) expect(s.slice(x.char, x.char + x.length)).toBe(x.text);
    expect(r.found).toBe(8);
  });
});

// The contract suite's field checker catches what it should (a checker that passes everything would
// make the whole suite vacuous).
import { describe, expect, it } from 'vitest';
import { checkFields, parsePath } from './check.js';
import { t } from './contract.js';

describe('contract field checker', () => {
  it('parses nested, element and quoted paths', () => {
    expect(parsePath('a.b')).toEqual([{ key: 'a' }, { key: 'b' }]);
    expect(parsePath('items[].name')).toEqual([{ key: 'items', index: 'each' }, { key: 'name' }]);
    expect(parsePath('results[1].error')).toEqual([{ key: 'results', index: 1 }, { key: 'error' }]);
    expect(parsePath('buckets.free["<1h"]')).toEqual([{ key: 'buckets' }, { key: 'free' }, { key: '<1h' }]);
    expect(() => parsePath('a..b')).toThrow();
    expect(() => parsePath('[]')).toThrow();
  });

  it('accepts a conforming body', () => {
    const body = {
      id: '6f1d8a52-3c1e-4e0b-9d0a-7b6f2f3c9e11',
      n: 3,
      ratio: 0.5,
      at: '2026-01-02T03:04:05.678Z',
      quota: null,
      kind: 'hallucination',
      items: [{ name: 'a' }, { name: 'b' }],
      buckets: { free: { '<1h': 0 } },
    };
    expect(
      checkFields(body, {
        id: t.uuid,
        n: t.integer,
        ratio: t.number,
        at: t.timestamp,
        quota: t.nullable(t.integer),
        kind: t.enum('hallucination', 'blind_spot'),
        'items[].name': t.string,
        'buckets.free["<1h"]': t.integer,
        absent: t.optional(t.string),
      }),
    ).toEqual([]);
  });

  it('reports missing fields, wrong types, values outside an enum, patterns, and empty arrays', () => {
    const problems = checkFields(
      { n: 1.5, kind: 'other', key: 'gc_xyz', items: [], list: [{ a: 1 }, {}], at: 'yesterday', id: 'not-a-uuid', nil: 0 },
      {
        missing: t.string,
        n: t.integer,
        kind: t.enum('a', 'b'),
        key: t.pattern(/^gc_[0-9a-f]{32}$/),
        'items[].name': t.string,
        'list[].a': t.integer,
        at: t.timestamp,
        id: t.uuid,
        nil: t.null,
        'results[0].error': t.string,
      },
    );
    expect(problems).toHaveLength(10);
    expect(problems.join('\n')).toMatch(/missing: missing/);
    expect(problems.join('\n')).toMatch(/list\[1\]\.a: missing/);
    expect(problems.join('\n')).toMatch(/items: empty array/);
  });
});

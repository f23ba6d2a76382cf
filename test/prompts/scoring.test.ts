// The pool-side scorers and bootstrap, called directly (the tools test them end to end).
import { describe, expect, it } from 'vitest';
import { bootstrapMean, checkSchema, scoreCell } from '../../workers/prompts/scoring.js';
import { passages, salientTerms } from '../../workers/prompts/synthetic.js';
import { analyzeTemplate, renderTemplate } from '../../workers/prompts/templates.js';

describe('experiment scoring', () => {
  const schema = { type: 'object', required: ['answer'], properties: { answer: { type: 'string' }, score: { type: 'number', minimum: 0 } } };

  it('scores exact match, contains and JSON-schema validity (fenced JSON accepted)', () => {
    expect(scoreCell('  Paris ', { expected: 'Paris' }).exact_match).toBe(1);
    expect(scoreCell('Paris, France', { expected: 'Paris' }).exact_match).toBe(0);
    expect(scoreCell('The Moon pulls the sea', { contains: ['moon', 'SEA', 'sun'] }).contains).toBeCloseTo(2 / 3, 12);
    expect(scoreCell('Here:\n```json\n{"answer": "yes", "score": 1}\n```', { json_schema: schema }).json_valid).toBe(1);
    const bad = scoreCell('{"score": -1}', { json_schema: schema });
    expect(bad.json_valid).toBe(0);
    expect(bad.json_errors!.join(' ')).toMatch(/answer/);
    expect(scoreCell('not json', { json_schema: schema })).toMatchObject({ json_valid: 0, json_errors: ['output is not JSON'] });
    expect(scoreCell('anything', {})).toEqual({ exact_match: null, contains: null, json_valid: null });
    expect(checkSchema(schema)).toBeNull();
    expect(checkSchema({ type: 'nonsense' })).toMatch(/type/);
  });

  it('bootstraps a repeatable interval that covers the mean and narrows with more cases', () => {
    const small = Array.from({ length: 10 }, (_, i) => (i % 3 === 0 ? 0 : 0.5));
    const large = Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? 0 : 0.5));
    const a = bootstrapMean(small, 2000, 0.95, 7);
    expect(bootstrapMean(small, 2000, 0.95, 7)).toEqual(a);
    expect(a.ci_low).toBeLessThanOrEqual(a.mean_difference);
    expect(a.ci_high).toBeGreaterThanOrEqual(a.mean_difference);
    const b = bootstrapMean(large, 2000, 0.95, 7);
    expect(b.ci_high - b.ci_low).toBeLessThan(a.ci_high - a.ci_low);
    expect(bootstrapMean([], 2000, 0.95, 1)).toMatchObject({ n: 0, mean_difference: 0 });
  });
});

describe('templates and synthetic cases', () => {
  it('tells top-level variables from section item fields', () => {
    const a = analyzeTemplate('{{greeting}} {{user.name}}{{#items}}- {{title}} {{greeting}}{{/items}}{{^items}}none for {{who}}{{/items}}{{! note}}');
    expect(a.ok && a.analysis).toEqual({
      variables: [
        { name: 'greeting', type: 'scalar' },
        { name: 'items', type: 'any' },
        { name: 'user', type: 'object' },
        { name: 'who', type: 'scalar' },
      ],
      section_fields: ['title'],
    });
    expect(analyzeTemplate('{{#a}}x').ok).toBe(false);
    // A value is only looked up, never called or evaluated.
    const r = renderTemplate('{{x}}', [{ name: 'x', type: 'any', required: true }], { x: '{{y}} <script>' });
    expect(r).toEqual({ ok: true, text: '{{y}} <script>' });
  });

  it('cuts passages and picks their salient terms', () => {
    const doc = 'Glaciers form from compacted snow. Glaciers flow slowly downhill.\n\nShort.\n\nVolcanoes erupt when magma rises; magma carries dissolved gases that drive eruptions.';
    const p = passages(doc, 5);
    expect(p).toHaveLength(2);
    expect(salientTerms(p[0]!, 2)).toEqual(['glaciers', 'form']);
    expect(salientTerms(p[1]!, 1)).toEqual(['magma']);
  });
});

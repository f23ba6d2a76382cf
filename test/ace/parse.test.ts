// The model-facing parsing of ACE without a server: JSON replies (the path a real model takes), the
// free-text fallback's candidate sentences, and the near-duplicate arithmetic the pool runs.
import { describe, expect, it } from 'vitest';
import { parseOps } from '../../src/domain/ace/curate.js';
import { extractJson, totalCost } from '../../src/domain/ace/llm.js';
import type { BulletRow } from '../../src/domain/ace/playbooks.js';
import { parseReflection } from '../../src/domain/ace/reflect.js';
import { candidateInsights, sectionFor } from '../../workers/ace/candidates.js';
import { clusters, matchCandidates } from '../../workers/ace/dedup.js';

const bullet = (seq: number): BulletRow => ({
  id: `00000000-0000-4000-8000-00000000000${seq}`, seq, section: 'strategies', content: `rule ${seq}`, helpful_count: 0, harmful_count: 0, tokens: 3, version: 1, created_at: '', updated_at: '',
});

describe('ACE model replies', () => {
  it('finds JSON whole, fenced, or inside prose; null when there is none', () => {
    expect(extractJson('{"a":1}')).toEqual({ a: 1 });
    expect(extractJson('Here you go:\n```json\n{"a":[1,2]}\n```\nDone.')).toEqual({ a: [1, 2] });
    expect(extractJson('Sure! {"operations": []} hope that helps')).toEqual({ operations: [] });
    expect(extractJson('[{"content":"x"}]')).toEqual([{ content: 'x' }]);
    expect(extractJson('[gc-local] Read 12 words (digest abc). Parse the dates')).toBeNull();
    expect(extractJson('{"broken": ')).toBeNull();
  });

  it('reads a JSON reflection: insights with sections, tags by label or id, untagged used bullets neutral', () => {
    const used = [bullet(1), bullet(2), bullet(3)];
    const r = parseReflection(
      JSON.stringify({
        insights: [{ section: 'Pitfalls', content: ' Do not  trust client time zones. ' }, 'Check the totals against the ledger.', { content: '' }],
        bullet_tags: [{ label: 'b1', tag: 'helpful' }, { id: used[1]!.id, tag: 'HARMFUL' }, { label: 'b9', tag: 'helpful' }, { label: 'b3', tag: 'great' }],
      }),
      used,
    )!;
    expect(r.insights).toEqual([
      { section: 'pitfalls', content: 'Do not trust client time zones.' },
      { section: 'strategies', content: 'Check the totals against the ledger.' },
    ]);
    expect(r.tags).toEqual([
      { bullet_id: used[0]!.id, label: 'b1', tag: 'helpful' },
      { bullet_id: used[1]!.id, label: 'b2', tag: 'harmful' },
      { bullet_id: used[2]!.id, label: 'b3', tag: 'neutral' },
    ]);
    expect(parseReflection('no json here', used)).toBeNull();
    expect(parseReflection('{"insights": "not a list"}', used)).toBeNull();
  });

  it('reads curator operations: ADDs only, sections normalised, bad sections inferred', () => {
    expect(parseOps('{"operations":[{"type":"ADD","section":"Tools/APIs","content":"Use the bulk endpoint."},{"type":"REMOVE","content":"x"},{"type":"add","section":"<b>","content":"Never retry a 400."}]}')).toEqual([
      { section: 'tools/apis', content: 'Use the bulk endpoint.' },
      { section: 'pitfalls', content: 'Never retry a 400.' },
    ]);
    expect(parseOps('[{"content":"Sort before grouping."}]')).toEqual([{ section: 'strategies', content: 'Sort before grouping.' }]);
    expect(parseOps('{"operations":[]}')).toEqual([]);
    expect(parseOps('I would add a bullet about time zones.')).toBeNull();
  });

  it('fallback candidates: grounded sentences only, labels and tags stripped, cut-offs dropped', () => {
    const text = '[gc-local] Read 64 words (digest 6b21e39b0ee7). Feedback: Parse ISO dates as UTC before grouping by month. Sure, here is my analysis. Outcome: failure. Task: Parse the …\n- Group the CSV amounts by month after parsing dates.';
    const out = candidateInsights(text, 'Parse the ISO dates in the CSV export and sum the amounts per month. Feedback: use UTC.', 10);
    expect(out.map((o) => o.content)).toEqual(['Parse ISO dates as UTC before grouping by month.', 'Group the CSV amounts by month after parsing dates.']);
    expect(sectionFor('Never parse dates in local time.')).toBe('pitfalls');
    expect(sectionFor('Call the bulk endpoint of the billing API.')).toBe('tools/apis');
    expect(sectionFor('Sum per month after grouping.')).toBe('strategies');
    expect(candidateInsights(text, 'gardening tomatoes', 10)).toEqual([]);
  });

  it('total cost: the sum of the known costs, null when none is known', () => {
    expect(totalCost([10, null, 5])).toBe(15);
    expect(totalCost([null, undefined])).toBeNull();
  });
});

describe('near-duplicate arithmetic', () => {
  const unit = (...v: number[]) => {
    const n = Math.hypot(...v);
    return Float32Array.from(v.map((x) => x / n));
  };
  const flat = (vs: Float32Array[]) => Float32Array.from(vs.flatMap((v) => [...v]));

  it('matches candidates to the nearest corpus vector and to earlier candidates over the threshold', () => {
    const corpus = flat([unit(1, 0, 0), unit(0, 1, 0)]);
    const m = matchCandidates([unit(0.99, 0.1, 0), unit(0, 0, 1), unit(0, 0.05, 1)], corpus, 2, 3, 0.9);
    expect(m[0]).toMatchObject({ corpus: 0, candidate: null });
    expect(m[0]!.corpus_similarity).toBeGreaterThan(0.99);
    expect(m[1]).toMatchObject({ corpus_similarity: 0, candidate: null });
    expect(m[2]).toMatchObject({ candidate: 1 });
    expect(matchCandidates([unit(1, 0, 0)], new Float32Array(0), 0, 3, 0.9)[0]).toMatchObject({ corpus: null, corpus_similarity: 0 });
  });

  it('groups by similarity to the earliest bullet, without chaining', () => {
    // a ~ b (0.95), b ~ c (0.95), a vs c below 0.9: c is not pulled in through b.
    const a = unit(1, 0);
    const b = unit(Math.cos(0.3), Math.sin(0.3));
    const c = unit(Math.cos(0.6), Math.sin(0.6));
    const d = unit(Math.cos(0.62), Math.sin(0.62));
    const groups = clusters(flat([a, b, c, d]), 4, 2, 0.95);
    expect(groups.map((g) => [g.keep, g.merged.map((m) => m.index)])).toEqual([[0, [1]], [2, [3]]]);
  });
});

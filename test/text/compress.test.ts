import { describe, expect, it } from 'vitest';
import { compressText } from '../../workers/text/index.js';
import { countTokens } from '../../workers/shared/tokens.js';
import { FIDELITY_BUDGET } from '../../workers/shared/fidelity.js';
import type { Fidelity } from '../../workers/shared/fidelity.js';
import { MARKER, nonVerbatimFragments, orderViolations, realDoc } from './helpers.js';

const LEVELS: Fidelity[] = ['abstract', 'outline', 'balanced', 'detailed'];
const DOCS = ['node_modules/postgres/README.md', 'node_modules/piscina/README.md'];

describe('fidelity budgets on real documents', () => {
  for (const path of DOCS) {
    const text = realDoc(path);
    for (const fidelity of LEVELS) {
      it(`${path.split('/')[1]} at ${fidelity} keeps ~${FIDELITY_BUDGET[fidelity] * 100}% of tokens`, async () => {
        const r = await compressText({ text, fidelity });
        const share = FIDELITY_BUDGET[fidelity];
        expect(r.original_tokens).toBe(countTokens(text));
        expect(r.compressed_tokens).toBe(countTokens(r.compressed_text));
        expect(r.ratio).toBeLessThanOrEqual(share + 0.001);
        expect(r.ratio).toBeGreaterThanOrEqual(share * 0.85);
        expect(r.tokens_saved).toBe(r.original_tokens - r.compressed_tokens);
        expect(r.savings_percent).toBeCloseTo((100 * r.tokens_saved) / r.original_tokens, 1);
        expect(r.mode).toBe('plain');
        expect(r.tokenizer).toBe('o200k_base');
        expect(r.units_kept).toBeGreaterThan(0);
        expect(r.units_kept).toBeLessThan(r.units_total);
      });
    }
  }

  it('more fidelity never keeps less', async () => {
    const text = realDoc();
    const sizes = [];
    for (const fidelity of LEVELS) sizes.push((await compressText({ text, fidelity })).compressed_tokens);
    expect([...sizes].sort((a, b) => a - b)).toEqual(sizes);
  });
});

describe('faithful skeleton', () => {
  const text = realDoc();
  for (const fidelity of ['outline', 'balanced', 'detailed'] as Fidelity[]) {
    it(`kept text is verbatim and in original order at ${fidelity}`, async () => {
      const r = await compressText({ text, fidelity });
      expect(nonVerbatimFragments(text, r.compressed_text)).toEqual([]);
      expect(orderViolations(text, r.compressed_text)).toEqual([]);
    });
  }

  it('marks elisions with sentence and token counts', async () => {
    const r = await compressText({ text, fidelity: 'balanced' });
    const markers = r.compressed_text.match(MARKER) ?? [];
    expect(markers.length).toBeGreaterThan(0);
    for (const m of markers) expect(m).toMatch(/^\[… (\d+ [a-z ]+, )*\d+ tokens?\]$/);
    // Marker token counts add up to (about) what was dropped.
    const dropped = markers.reduce((s, m) => s + Number(/(\d+) tokens?\]$/.exec(m)![1]), 0);
    expect(dropped).toBeGreaterThan(r.tokens_saved * 0.8);
  });

  it('keeps headings as the outline', async () => {
    const r = await compressText({ text, fidelity: 'outline' });
    expect(r.compressed_text).toContain('## Connection');
    expect(r.compressed_text.split('\n').filter((l) => /^#{1,6} /.test(l)).length).toBeGreaterThan(5);
  });

  it('summarises fenced code by its first line and keeps fences balanced', async () => {
    const r = await compressText({ text, fidelity: 'balanced' });
    // CommonMark: a backtick fence's info string holds no backtick ("```sql``.simple()```. That…" is inline code).
    const fences = r.compressed_text.split('\n').filter((l) => /^\s*```[^`]*$/.test(l));
    expect(fences.length % 2).toBe(0);
  });

  it('keeps a table header with any kept row', async () => {
    const table = ['# Limits', '', 'The service has limits.', '', '| Limit | Value |', '|---|---|', ...Array.from({ length: 60 }, (_, i) => `| limit number ${i} for widgets | ${i * 7} |`), '| maximum kerberos tickets per zebra | 42 |', '', 'End of the document.'].join('\n');
    const r = await compressText({ text: table, fidelity: 'balanced', query: 'maximum kerberos tickets per zebra' });
    expect(r.compressed_text).toContain('| maximum kerberos tickets per zebra | 42 |');
    expect(r.compressed_text).toContain('| Limit | Value |\n|---|---|');
  });
});

describe('edge cases: never longer than the input', () => {
  const inputs: [string, string][] = [
    ['empty', ''],
    ['whitespace only', '   \n\n\t  \n'],
    ['single word', 'Hello'],
    ['single sentence', 'The quick brown fox jumps over the lazy dog.'],
    ['tiny doc', '# Title\n\nOne. Two. Three.'],
    ['huge single line', Array.from({ length: 6000 }, (_, i) => `token${i % 97}`).join(' ')],
    ['huge single sentence with punctuation', 'Alpha, beta; gamma: delta '.repeat(2000)],
    ['only code', '```\n' + Array.from({ length: 300 }, (_, i) => `line ${i}();`).join('\n') + '\n```'],
    ['unicode', 'Ünïcödé tëxt. 日本語の文章です。 Emoji 🎉 here! '.repeat(50)],
  ];
  for (const [name, text] of inputs) {
    for (const fidelity of [...LEVELS, 'raw'] as Fidelity[]) {
      it(`${name} at ${fidelity}`, async () => {
        const r = await compressText({ text, fidelity });
        expect(r.compressed_tokens).toBeLessThanOrEqual(r.original_tokens);
        expect(countTokens(r.compressed_text)).toBe(r.compressed_tokens);
        // compressed / original to four places; 1 for an empty input.
        expect(r.ratio).toBe(r.original_tokens > 0 ? Math.round((r.compressed_tokens / r.original_tokens) * 10000) / 10000 : 1);
        expect(r.ratio).toBeLessThanOrEqual(1);
        if (text.trim() === '') expect(r.compressed_text).toBe(text);
      });
    }
  }

  it('empty text reports ratio 1', async () => {
    const r = await compressText({ text: '', fidelity: 'balanced' });
    expect(r).toMatchObject({ original_tokens: 0, compressed_tokens: 0, ratio: 1, savings_percent: 0 });
  });

  it('huge single line still compresses at balanced', async () => {
    const text = Array.from({ length: 6000 }, (_, i) => `token${i % 97}`).join(' ');
    const r = await compressText({ text, fidelity: 'balanced' });
    expect(r.ratio).toBeLessThanOrEqual(0.2);
    expect(r.ratio).toBeGreaterThan(0.1);
  });
});

describe('raw and tokenizer choice', () => {
  const text = realDoc();
  it('raw returns the text unchanged', async () => {
    const r = await compressText({ text, fidelity: 'raw' });
    expect(r.compressed_text).toBe(text);
    expect(r.ratio).toBe(1);
    expect(r.tokens_saved).toBe(0);
  });

  it('uses cl100k_base for models that need it and reports it', async () => {
    const r = await compressText({ text, fidelity: 'balanced', model: 'gpt-3.5-turbo' });
    expect(r.tokenizer).toBe('cl100k_base');
    expect(r.original_tokens).toBe(countTokens(text, 'cl100k_base'));
    expect(r.compressed_tokens).toBe(countTokens(r.compressed_text, 'cl100k_base'));
  });

  it('is deterministic', async () => {
    const a = await compressText({ text, fidelity: 'outline', query: 'connection timeout' });
    const b = await compressText({ text, fidelity: 'outline', query: 'connection timeout' });
    expect(a).toEqual(b);
  });
});

describe('special-token text', () => {
  it('counts "<|endoftext|>" as plain text instead of throwing', async () => {
    const text = 'Intro <|endoftext|> text. ' + 'Some sentence about things here. '.repeat(200);
    const r = await compressText({ text, fidelity: 'balanced' });
    expect(r.original_tokens).toBeGreaterThan(1000);
    expect(r.compressed_tokens).toBeLessThanOrEqual(r.original_tokens * 0.2);
    const raw = await compressText({ text, fidelity: 'raw' });
    expect(raw.compressed_text).toBe(text);
  });
});

describe('input validation', () => {
  it('rejects an unknown fidelity instead of producing NaN budgets', async () => {
    await expect(compressText({ text: 'Hello there.', fidelity: 'huge' as Fidelity })).rejects.toThrow(/invalid fidelity/);
  });
});

import { describe, expect, it } from 'vitest';
import { MODEL_CONTEXT_WINDOWS, contextWindowFor, fidelityForSize, recommendFidelity, recommendForTokens } from '../../workers/text/index.js';
import { countTokens } from '../../workers/shared/tokens.js';

/** Text of exactly n o200k tokens: "a" then " a" repeated (each " a" is one pre-token and one token). */
function textOfTokens(n: number): string {
  return n === 0 ? '' : 'a' + ' a'.repeat(n - 1);
}

describe('recommend: size rule boundaries', () => {
  const cases: [number, string][] = [
    [1, 'detailed'],
    [499, 'detailed'],
    [500, 'balanced'],
    [2000, 'balanced'],
    [2001, 'outline'],
    [10000, 'outline'],
    [10001, 'abstract'],
    [1_000_000, 'abstract'],
  ];
  for (const [tokens, expected] of cases) {
    it(`${tokens} tokens -> ${expected}`, () => {
      expect(fidelityForSize(tokens)).toBe(expected);
      expect(recommendForTokens(tokens, null).fidelity).toBe(expected);
    });
  }

  it('counts real tokens of the text at the boundaries', () => {
    for (const [n, expected] of [[499, 'detailed'], [500, 'balanced'], [2000, 'balanced'], [2001, 'outline'], [10000, 'outline'], [10001, 'abstract']] as const) {
      const text = textOfTokens(n);
      expect(countTokens(text)).toBe(n);
      const r = recommendFidelity({ text });
      expect(r.original_tokens).toBe(n);
      expect(r.recommended_fidelity).toBe(expected);
      expect(r.context_window).toBeNull();
      expect(r.tokenizer).toBe('o200k_base');
    }
  });
});

describe('recommend: 70% context-window step-up', () => {
  it('steps up one level when the estimate exceeds 70% of the window', () => {
    // 1,000 tokens -> balanced (~200); 70% of 250 = 175 < 200 -> outline (~100).
    const r = recommendForTokens(1000, 250);
    expect(r.fidelity).toBe('outline');
    expect(r.estimated).toBe(100);
  });

  it('stays when the estimate fits exactly at 70%', () => {
    // 1,000 tokens balanced -> 200; 70% of 286 = 200.2 -> floor 200 fits.
    expect(recommendForTokens(1000, 286).fidelity).toBe('balanced');
    expect(recommendForTokens(1000, 285).fidelity).toBe('outline');
  });

  it('repeats until it fits', () => {
    // 400 tokens -> detailed (160); window 50 -> limit 35: balanced 80, outline 40, abstract 20.
    expect(recommendForTokens(400, 50).fidelity).toBe('abstract');
    expect(recommendForTokens(400, 130).fidelity).toBe('balanced'); // limit 91: detailed 160 > 91, balanced 80 fits
  });

  it('stops at abstract even when it still does not fit', () => {
    const r = recommendForTokens(1_000_000, 8192);
    expect(r.fidelity).toBe('abstract');
    expect(r.reason).toMatch(/still over/);
  });

  it('uses the model table when no context_window is given', () => {
    const text = textOfTokens(9000); // outline, ~900 tokens
    expect(recommendFidelity({ text, model: 'gpt-4o' }).recommended_fidelity).toBe('outline');
    const small = recommendFidelity({ text, context_window: 1000 }); // limit 700 < 900 -> abstract (450)
    expect(small.recommended_fidelity).toBe('abstract');
    expect(small.context_window).toBe(1000);
    expect(small.estimated_compressed_tokens).toBe(450);
  });

  it('context_window overrides the model', () => {
    const r = recommendFidelity({ text: textOfTokens(9000), model: 'gpt-4.1', context_window: 1000 });
    expect(r.context_window).toBe(1000);
    expect(r.recommended_fidelity).toBe('abstract');
  });
});

describe('model context windows', () => {
  it('has the common models', () => {
    expect(MODEL_CONTEXT_WINDOWS['gpt-4o']).toBe(128_000);
    expect(MODEL_CONTEXT_WINDOWS['gpt-3.5-turbo']).toBe(16_385);
    expect(MODEL_CONTEXT_WINDOWS['llama-3']).toBe(8_192);
    expect(MODEL_CONTEXT_WINDOWS['gpt-4.1']).toBeGreaterThan(1_000_000);
  });

  it('matches versioned and provider-prefixed names by longest prefix', () => {
    expect(contextWindowFor('gpt-4o-2024-08-06')).toBe(128_000);
    expect(contextWindowFor('gpt-4o-mini')).toBe(128_000);
    expect(contextWindowFor('gpt-4')).toBe(8_192);
    expect(contextWindowFor('gpt-4-turbo-preview')).toBe(128_000);
    expect(contextWindowFor('claude-3-5-sonnet-20241022')).toBe(200_000);
    expect(contextWindowFor('claude-sonnet-4-5')).toBe(200_000);
    expect(contextWindowFor('meta-llama/Meta-Llama-3-8B-Instruct')).toBe(8_192);
    expect(contextWindowFor('llama-3.1-70b')).toBe(131_072);
    expect(contextWindowFor('unknown-model')).toBeNull();
    expect(contextWindowFor(null)).toBeNull();
  });

  it('picks cl100k_base for older OpenAI models', () => {
    expect(recommendFidelity({ text: 'hello world', model: 'gpt-4' }).tokenizer).toBe('cl100k_base');
  });
});

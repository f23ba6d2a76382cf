import type uWS from 'uWebSockets.js';
import { describe, expect, it } from 'vitest';
import { BodyBudget, BodyReader } from '../../src/http/io.js';

/** A stand-in response that hands the test its onData callback. */
function socket() {
  let onData!: (chunk: ArrayBuffer, isLast: boolean) => void;
  const res = { onData: (f: typeof onData) => (onData = f), pause() {}, resume() {} } as unknown as uWS.HttpResponse;
  const chunk = (text: string, isLast = false) => onData(new TextEncoder().encode(text).buffer as ArrayBuffer, isLast);
  return { res, chunk };
}

describe('BodyReader', () => {
  it('gives every byte back to the budget when answered before the body was read, even bytes that arrive later', () => {
    const budget = new BodyBudget(1000);
    const { res, chunk } = socket();
    const reader = new BodyReader(res, 10_000, budget, 300);
    chunk('a'.repeat(100));
    expect(budget.inUse).toBe(100);
    reader.release(); // answered (e.g. 401) before read()
    expect(budget.inUse).toBe(0);
    chunk('b'.repeat(100));
    chunk('c'.repeat(100), true);
    expect(budget.inUse).toBe(0);
    expect(reader.complete).toBe(true);
  });

  it('a body read in full is held until released', async () => {
    const budget = new BodyBudget(1000);
    const { res, chunk } = socket();
    const reader = new BodyReader(res, 10_000, budget, 6);
    chunk('abc');
    chunk('def', true);
    expect((await reader.read()).toString()).toBe('abcdef');
    expect(budget.inUse).toBe(6);
    reader.release();
    expect(budget.inUse).toBe(0);
  });
});

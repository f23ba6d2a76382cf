import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cosine, getEmbedder, modelDir, type Embedder } from '../../workers/embed/index.js';
import { embedTasks } from '../../workers/embed/tasks.js';
import type { Manifest } from '../../workers/embed/manifest.js';

const dir = modelDir();
const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
const norm = (v: Float32Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

describe('shipped static model', () => {
  let e: Embedder;
  beforeAll(async () => {
    delete process.env.EMBEDDING_MODEL_DIR;
    e = await getEmbedder();
  });

  it('loads with the manifest dims and id', () => {
    expect(e.dims).toBe(manifest.dims);
    expect(e.modelId).toBe(manifest.id);
  });

  it('manifest sha256 matches the committed files', () => {
    for (const [file, sum] of Object.entries(manifest.sha256 ?? {})) {
      expect(createHash('sha256').update(readFileSync(join(dir, file))).digest('hex'), file).toBe(sum);
    }
    expect(Object.keys(manifest.sha256 ?? {})).toEqual(expect.arrayContaining(['model.onnx', 'vocab.txt']));
  });

  it('returns one L2-normalised vector per text', async () => {
    const v = await e.embed(['The cat sat on the mat.', 'Deploy the service to production.']);
    expect(v).toHaveLength(2);
    for (const x of v) {
      expect(x).toBeInstanceOf(Float32Array);
      expect(x.length).toBe(e.dims);
      expect(norm(x)).toBeCloseTo(1, 4);
    }
  });

  it('is deterministic', async () => {
    const [a] = await e.embed(['Deterministic output, please.']);
    const [b] = await e.embed(['Deterministic output, please.']);
    expect(Array.from(a!)).toEqual(Array.from(b!));
  });

  it('puts paraphrases closer than unrelated sentences', async () => {
    const cases: [string, string, string][] = [
      ['A man is playing the guitar.', 'Someone is strumming a guitar.', 'The stock market fell sharply today.'],
      ['How do I reset my password?', 'What is the procedure for changing a forgotten password?', 'The river flooded the village.'],
      ['The server crashed because it ran out of memory.', 'An out-of-memory error brought the server down.', 'She bought a new car last week.'],
      ['The meeting has been moved to Thursday.', 'We rescheduled the meeting for Thursday.', 'Water boils at one hundred degrees.'],
    ];
    for (const [a, p, u] of cases) {
      const [va, vp, vu] = await e.embed([a, p, u]);
      expect(cosine(va!, vp!), `${a} / ${p}`).toBeGreaterThan(cosine(va!, vu!) + 0.2);
    }
  });

  it('handles unknown words: misspellings land near the word, nonsense still gets a unit vector', async () => {
    const [typo, right, other] = await e.embed(['definately', 'definitely', 'refrigerator']);
    expect(cosine(typo!, right!)).toBeGreaterThan(cosine(typo!, other!));
    const [nonsense] = await e.embed(['zorblaxification']);
    expect(norm(nonsense!)).toBeCloseTo(1, 4);
    // identifiers are split into known words
    const [ident, words] = await e.embed(['getUserName', 'get user name']);
    expect(cosine(ident!, words!)).toBeGreaterThan(0.99);
  });

  it('maps empty or symbol-only text to a zero vector of the right width', async () => {
    const [empty, symbols, text] = await e.embed(['', '  ;;; ', 'hello']);
    expect(empty!.length).toBe(e.dims);
    expect(norm(empty!)).toBe(0);
    expect(norm(symbols!)).toBe(0);
    expect(norm(text!)).toBeCloseTo(1, 4);
    expect(await e.embed([])).toEqual([]);
  });

  it('gives the same vectors batched as one by one', async () => {
    const texts = ['short', 'a somewhat longer sentence about databases and indexes', '', 'Tokyo is the capital of Japan.', 'x'.repeat(50)];
    const batch = await e.embed(texts);
    for (let i = 0; i < texts.length; i++) {
      const [single] = await e.embed([texts[i]!]);
      for (let d = 0; d < e.dims; d++) expect(batch[i]![d]).toBeCloseTo(single![d]!, 5);
    }
  });

  it('handles a large batch with mixed lengths', async () => {
    const texts = Array.from({ length: 3000 }, (_, i) => 'word '.repeat(i % 97) + `item ${i}`);
    const v = await e.embed(texts);
    expect(v).toHaveLength(3000);
    expect(norm(v[2999]!)).toBeCloseTo(1, 4);
  });

  it('serves the pool task shape', async () => {
    const r = await embedTasks.embed({ texts: ['one', 'two'] });
    expect(r.dims).toBe(e.dims);
    expect(r.model).toBe(e.modelId);
    expect(r.vectors).toHaveLength(2);
    expect(structuredClone(r).vectors[0]).toBeInstanceOf(Float32Array);
  });
});

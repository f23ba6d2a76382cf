// Shape of the embeddings benchmark's labelled queries (bench/embeddings/queries.json): a fixed
// dev/test split recorded per query, derived from the query text as the file's note describes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fnv1a } from '../../workers/embed/tokenizer-static.js';

interface Q {
  q: string;
  contains: string | string[];
  split: 'dev' | 'test';
}
const file = JSON.parse(readFileSync(join(__dirname, '..', '..', 'bench', 'embeddings', 'queries.json'), 'utf8')) as { split: string; queries: Q[] };

describe('bench/embeddings queries', () => {
  it('has at least 150 distinct labelled queries, each with a non-empty label', () => {
    expect(file.queries.length).toBeGreaterThanOrEqual(150);
    expect(new Set(file.queries.map((x) => x.q)).size).toBe(file.queries.length);
    for (const x of file.queries) {
      const labels = Array.isArray(x.contains) ? x.contains : [x.contains];
      expect(labels.length).toBeGreaterThan(0);
      for (const l of labels) expect(l.length).toBeGreaterThan(8);
    }
  });

  it('records the split the note describes (FNV-1a of the query: even dev, odd test)', () => {
    expect(file.split).toMatch(/FNV-1a/);
    for (const x of file.queries) expect(x.split).toBe(fnv1a(x.q) % 2 === 0 ? 'dev' : 'test');
    const dev = file.queries.filter((x) => x.split === 'dev').length;
    expect(dev).toBeGreaterThan(60);
    expect(file.queries.length - dev).toBeGreaterThan(60);
  });
});

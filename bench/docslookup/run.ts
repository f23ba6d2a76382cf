// Documentation lookup benchmark (`npm run bench:docslookup`): recall@5 and MRR@5 of the labelled
// questions (bench/docslookup/questions.json) on the dev and test splits, a sweep of the fusion
// settings on dev only (`--sweep`), and search latency: in-process (the worker's own work) and
// through the compute pool (the round trip a tool call pays), with the load average.
import { loadavg } from 'node:os';
import { ComputePool } from '../../src/pool/pool.js';
import { DOCS_SEARCH, DocsIndex } from '../../workers/docs/index.js';
import { measure } from '../lib/latency.js';
import { deadLabels, evaluate, loadQuestions } from './eval.js';
import { sized } from '../lib/smoke.js';

const K = 5;
const LATENCY_RUNS = Number(process.env.BENCH_DOCS_RUNS ?? sized(2000, 2));

async function main(): Promise<void> {
  const t0 = performance.now();
  const index = await DocsIndex.load();
  console.log(`index: ${index.file.frameworks.length} frameworks, ${index.file.pages.length} pages, ${index.file.chunks.length} chunks, model ${index.model}, loaded in ${(performance.now() - t0).toFixed(0)} ms`);
  const questions = loadQuestions();
  const dead = deadLabels(index, questions);
  if (dead.length) throw new Error(`labels matching no chunk:\n${dead.join('\n')}`);
  const dev = questions.filter((q) => q.split === 'dev');
  const test = questions.filter((q) => q.split === 'test');

  if (process.argv.includes('--sweep')) {
    console.log('sweep on dev only: (body BM25, title BM25, dense) weights, frameworks inferred from the query: recall@5 MRR@5');
    for (const inferFrameworks of [false, true]) {
      for (const titleWeight of [0, 0.5, 1]) {
        for (const denseWeight of [0, 0.2, 0.5, 1]) {
          const e = await evaluate(index, dev, K, { lexicalWeight: 1, titleWeight, denseWeight, inferFrameworks });
          console.log(`  (1, ${titleWeight}, ${denseWeight}) infer=${inferFrameworks}: ${e.recall.toFixed(3)} ${e.mrr.toFixed(3)}`);
        }
      }
    }
    const dense = await evaluate(index, dev, K, { lexicalWeight: 0, titleWeight: 0, denseWeight: 1 });
    console.log(`  dense only: ${dense.recall.toFixed(3)} ${dense.mrr.toFixed(3)}`);
  }

  for (const [name, set] of [['dev', dev], ['test', test]] as const) {
    const e = await evaluate(index, set.slice(0, sized(Infinity, 2)), K);
    console.log(`${name}: n=${e.n} recall@${K}=${e.recall.toFixed(3)} MRR@${K}=${e.mrr.toFixed(3)} misses=${e.misses.join(',') || '-'}`);
  }
  console.log(`settings: ${JSON.stringify(DOCS_SEARCH)}`);

  let i = 0;
  const next = () => questions[i++ % questions.length]!.question;
  const inProcess = await measure(() => index.search(next(), { k: K }), LATENCY_RUNS);
  console.log(`search in process: p50 ${inProcess.p50} ms, p99 ${inProcess.p99} ms (n=${inProcess.n})`);
  // CPU time of the same searches (process.cpuUsage): the work itself, without the waits for a core
  // that dominate the wall-clock p99 on a loaded machine.
  const cpu: number[] = [];
  for (let n = 0; n < LATENCY_RUNS; n++) {
    const before = process.cpuUsage();
    await index.search(next(), { k: K });
    const d = process.cpuUsage(before);
    cpu.push((d.user + d.system) / 1000);
  }
  cpu.sort((a, b) => a - b);
  const pct = (p: number) => cpu[Math.min(cpu.length - 1, Math.ceil((p / 100) * cpu.length) - 1)]!.toFixed(2);
  console.log(`search CPU time in process: p50 ${pct(50)} ms, p99 ${pct(99)} ms`);

  const pool = new ComputePool({ threads: 2, maxQueue: 1000, taskDeadlineMs: 30_000 });
  try {
    // Warm both threads (each loads its own copy of the index).
    await Promise.all([0, 1, 2, 3].map(() => pool.run('docsSearch', { query: 'warm up', k: K, view: 'content' })));
    const viaPool = await measure(() => pool.run('docsSearch', { query: next(), k: K, view: 'content' }), LATENCY_RUNS);
    console.log(`gc_lookup search through the pool: p50 ${viaPool.p50} ms, p99 ${viaPool.p99} ms (n=${viaPool.n})`);
  } finally {
    await pool.close();
  }
  console.log(`load average: ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

// The incremental graph update of the repository index on the Python standard library, in one
// thread (no service, no database): what `gc_orient` with one changed file spends in RepoIndex.apply.
//
//   npm run build && node dist/bench/codeintel/incremental.js   (BENCH_CACHE=/tmp/x.json keeps the parse between runs)
//
// Prints the full build time, then per changed file the median / max apply time over 10 edits and
// how many files were recomputed, and checks the result against a full build of the same files.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { adjacency, CODE_PAGERANK } from '../../workers/code/graph.js';
import { RepoIndex } from '../../workers/codeIntel/repoIndex.js';
import { pagerank } from '../../workers/shared/pagerank.js';
import { codeIntelTasks, type RepoFileAnalysis } from '../../workers/codeIntel/tasks.js';
import { SMOKE, sized } from '../lib/smoke.js';

const stdlib = execFileSync('python3', ['-c', "import sysconfig;print(sysconfig.get_paths()['stdlib'])"], { encoding: 'utf8' }).trim();
function walk(dir: string, out: string[]): void {
  for (const name of readdirSync(dir)) {
    if (name === 'site-packages' || name === '__pycache__') continue;
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) walk(p, out);
    else if (name.endsWith('.py')) out.push(p);
  }
}

const cache = process.env.BENCH_CACHE;
let jsons: string[];
if (cache && existsSync(cache)) jsons = JSON.parse(readFileSync(cache, 'utf8')) as string[];
else {
  const paths: string[] = [];
  walk(SMOKE ? join(stdlib, 'json') : stdlib, paths);
  paths.sort();
  const files = paths.flatMap((p) => {
    try {
      return [{ path: relative(stdlib, p), content: readFileSync(p, 'utf8') }];
    } catch {
      return [];
    }
  });
  jsons = codeIntelTasks.codeIntelAnalyse({ files, known: {} }).analysed.map((a) => a.json);
  if (cache) writeFileSync(cache, JSON.stringify(jsons));
}
const decode = () => jsons.map((j) => JSON.parse(j) as RepoFileAnalysis);

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? 0;
const index = new RepoIndex();
let t = performance.now();
const full = index.apply(decode(), []);
console.log(`full build: ${full.files} files, ${full.units} units, ${full.edges} edges in ${(performance.now() - t).toFixed(0)} ms`);

const edgeKeys = (ix: RepoIndex) => {
  const { units, edges, table, paths } = ix.code;
  return edges.map((e) => `${paths[table.fileOf[e.from]!]}#${units[e.from]!.id}>${units[e.to]!.id}:${e.kind}:${e.weight.toFixed(6)}`).sort();
};

for (const target of (process.env.BENCH_FILES ?? sized('json/decoder.py,typing.py,os.py', 'json/decoder.py')).split(',')) {
  const base = jsons.find((j) => JSON.parse(j).path === target);
  if (!base) continue;
  const a0 = JSON.parse(base) as RepoFileAnalysis;
  const content = a0.content;
  const times: number[] = [];
  const rankMs: number[] = [];
  const summaryMs: number[] = [];
  let recomputed = 0;
  for (let i = 0; i < sized(10, 1); i++) {
    const edited = `${content}\n\ndef _bench_added_${i}(s):\n    return JSONDecoder().decode(s)\n`;
    const [r] = codeIntelTasks.codeIntelAnalyse({ files: [{ path: target, content: edited }], known: {} }).analysed;
    const a = JSON.parse(r!.json) as RepoFileAnalysis;
    t = performance.now();
    const s = index.apply([a], []);
    times.push(performance.now() - t);
    recomputed = s.recomputed_files;
    const tr = performance.now();
    void index.code.rank;
    rankMs.push(performance.now() - tr);
    const ts = performance.now();
    index.summary(10);
    summaryMs.push(performance.now() - ts);
  }
  console.log(`${target}: apply median ${pct(times, 50).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms, recomputed files ${recomputed}; PageRank after it median ${pct(rankMs, 50).toFixed(1)} ms, the rest of the orientation (summary) ${pct(summaryMs, 50).toFixed(1)} ms`);
}
if (process.env.BENCH_VERIFY !== '0') {
  const fresh = new RepoIndex();
  const current = index.code.analyses as RepoFileAnalysis[];
  fresh.apply(current.map((a) => a), []);
  const x = edgeKeys(index);
  const y = edgeKeys(fresh);
  const same = x.length === y.length && x.every((k, i) => k === y[i]);
  console.log(`incremental equals a full build: ${same} (${x.length} vs ${y.length} edges)`);
  // The index's PageRank (typed arrays) against the shared implementation on the same graph.
  const ours = fresh.code.rank;
  const shared = pagerank(adjacency(fresh.code.units.length, fresh.code.edges), CODE_PAGERANK);
  let maxDiff = 0;
  for (let i = 0; i < ours.length; i++) maxDiff = Math.max(maxDiff, Math.abs(ours[i]! - shared[i]!));
  console.log(`PageRank equals the shared implementation: max |difference| ${maxDiff}`);
}

/**
 * Code-engine benchmark on real third-party code (see docs/code-engine.md).
 * Usage: npm run bench:code  (or node dist/bench/code/run.js [--quick] [--write-docs]: tables into bench/code/last-run*.md)
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { FIDELITIES } from '../../workers/shared/fidelity.js';
import { countTokens } from '../../workers/shared/tokens.js';
import { analyzeFile, analyzeFiles, compressCode, structuralFromAnalyses, SUPPORTED_LANGUAGES } from '../../workers/code/index.js';
import type { FileAnalysis, StructuralResult } from '../../workers/code/index.js';
import { writeTrackedFile } from '../lib/writeDocs.js';
import { ensureDebSources, jdkSources, load, nodeHeaders, pythonStdlib, walk, type BenchFile, type Corpus } from './corpora.js';
import { sized } from '../lib/smoke.js';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, '..', '..', '..');
const quick = process.argv.includes('--quick');
const CAP = sized(quick ? 600_000 : 3_000_000, 5_000);
const tmp = mkdtempSync(join(tmpdir(), 'bench-code-'));
const lines: string[] = [];
const say = (s = ''): void => {
  console.log(s);
  lines.push(s);
};
const fmt = (n: number, d = 1): string => n.toFixed(d);
const mb = (files: BenchFile[]): number => files.reduce((s, f) => s + Buffer.byteLength(f.content), 0) / 1e6;

function corpora(): Corpus[] {
  const out: Corpus[] = [];
  const py = pythonStdlib();
  out.push(load(`Python stdlib (${py})`, py, walk(py, ['.py'], ['site-packages', 'test', 'idlelib', 'tkinter']), CAP));
  const jdk = jdkSources(tmp);
  if (jdk) out.push(load('Java (JDK src.zip java.util, java.io)', jdk, walk(jdk, ['.java']), CAP));
  const tsLib = join(repoRoot, 'node_modules', 'typescript', 'lib');
  out.push(load('TypeScript (typescript/lib/*.d.ts)', tsLib, walk(tsLib, ['.d.ts']).filter((p) => !p.includes('/lib.dom') && !p.includes('webworker')), CAP));
  // Smoke: a 10 kB file of the same package instead of the 6 MB compiler.
  const js = sized('_tsc.js', '_typingsInstaller.js');
  out.push(load(`JavaScript (typescript/lib/${js})`, tsLib, [join(tsLib, js)]));
  const headers = nodeHeaders();
  if (headers) out.push(load(`C/C++ (Node headers ${headers})`, headers, walk(headers, ['.h']), CAP));
  const deb = ensureDebSources();
  if (deb.go) out.push(load('Go (golang-1.19-src)', deb.go, ['fmt', 'strings', 'bytes', 'bufio', 'sort', 'encoding/json', 'net/http', 'io', 'context', 'errors', 'time'].flatMap((d) => walk(join(deb.go!, d), ['.go'], ['testdata'])), CAP));
  if (deb.rust) out.push(load('Rust (rust-src library)', deb.rust, ['core/src', 'alloc/src', 'std/src'].flatMap((d) => walk(join(deb.rust!, d), ['.rs'], ['tests', 'benches'])), CAP));
  return out;
}

/** Whitespace-insensitive first line of a signature minus its body opener: what any skeletonizer must keep. */
function sigKey(signature: string): string {
  const first = signature.split('\n')[0]!.trim().replace(/\s*[:{]\s*$/, '');
  return first.replace(/\s+/g, ' ');
}
const squash = (s: string): string => s.replace(/\s+/g, ' ');

interface Row {
  label: string;
  language: string;
  files: number;
  mb: number;
  ms: number;
  errorFiles: number;
  original: number;
  byFidelity: Record<string, number>;
  publicDefs: number;
  strictKept: number;
  looseKept: number;
  repomix?: { tokens: number; ms: number; looseKept: number; files: number };
  poolMs: number;
}

const THREADS = Math.max(2, Math.min(availableParallelism(), 4));
/** Languages still to compare with repomix (smoke: the first only; each is a process of seconds). */
let repomixLeft = sized(Infinity, 1);

function batches(files: BenchFile[], bytes = 256_000): BenchFile[][] {
  const out: BenchFile[][] = [[]];
  let size = 0;
  for (const f of [...files].sort((a, b) => b.content.length - a.content.length)) {
    if (size > bytes) {
      out.push([]);
      size = 0;
    }
    out.at(-1)!.push(f);
    size += f.content.length;
  }
  return out;
}

/** Balanced skeletons for a file set through the pool (analyzeFiles tasks), wall time in ms. */
async function poolSkeletons(pool: Piscina, files: BenchFile[]): Promise<number> {
  const t0 = performance.now();
  await Promise.all(batches(files).map((b) => pool.run({ task: 'analyzeFiles', input: { files: b } })));
  return performance.now() - t0;
}

function repomix(files: BenchFile[], language: string): { contents: Map<string, string>; ms: number } | null {
  const dir = join(tmp, 'repomix', language);
  rmSync(dir, { recursive: true, force: true });
  for (const f of files) {
    const p = join(dir, f.path);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, f.content);
  }
  const out = join(tmp, `repomix-${language}.json`);
  const bin = join(repoRoot, 'node_modules', 'repomix', 'bin', 'repomix.cjs');
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [bin, dir, '--compress', '--style', 'json', '--no-file-summary', '--no-directory-structure', '--no-security-check', '--no-gitignore', '--no-default-patterns', '--quiet', '-o', out], { stdio: 'ignore' });
  const ms = performance.now() - t0;
  if (r.status !== 0) return null;
  const json = JSON.parse(readFileSync(out, 'utf8')) as { files: Record<string, string> };
  return { contents: new Map(Object.entries(json.files)), ms };
}

async function benchCorpus(corpus: Corpus, pool: Piscina): Promise<Row[]> {
  // Throughput: the single-file endpoint at balanced, one thread.
  const results = new Map<string, ReturnType<typeof compressCode>>();
  const t0 = performance.now();
  for (const f of corpus.files) results.set(f.path, compressCode({ code: f.content, filename: f.path, fidelity: 'balanced' }));
  const totalMs = performance.now() - t0;
  const totalMb = mb(corpus.files);
  const byLang = new Map<string, BenchFile[]>();
  for (const f of corpus.files) {
    const lang = results.get(f.path)!.language;
    let list = byLang.get(lang);
    if (!list) byLang.set(lang, (list = []));
    list.push(f);
  }
  const rows: Row[] = [];
  for (const [language, files] of byLang) {
    const share = mb(files) / totalMb;
    const row: Row = { label: corpus.label, language, files: files.length, mb: mb(files), ms: totalMs * share, errorFiles: 0, original: 0, byFidelity: {}, publicDefs: 0, strictKept: 0, looseKept: 0, poolMs: await poolSkeletons(pool, files) };
    for (const fidelity of FIDELITIES) row.byFidelity[fidelity] = 0;
    const analyses = new Map<string, FileAnalysis>();
    for (const f of files) {
      const balanced = results.get(f.path)!;
      row.original += balanced.original_tokens;
      if (balanced.parse_errors > 0) row.errorFiles++;
      for (const fidelity of FIDELITIES) {
        row.byFidelity[fidelity]! += fidelity === 'balanced' ? balanced.compressed_tokens : compressCode({ code: f.content, filename: f.path, fidelity }).compressed_tokens;
      }
      const a = analyzeFile({ path: f.path, content: f.content });
      analyses.set(f.path, a);
      for (const u of a.units) {
        if (!u.exported) continue;
        row.publicDefs++;
        if (a.skeleton.includes(u.signature)) row.strictKept++;
        if (squash(a.skeleton).includes(sigKey(u.signature))) row.looseKept++;
      }
    }
    const r0 = performance.now();
    const rm = repomixLeft-- > 0 ? repomix(files, language) : null;
    console.error(`  repomix ${language}: ${fmt((performance.now() - r0) / 1000)} s`);
    if (rm) {
      let tokens = 0;
      let looseKept = 0;
      for (const f of files) {
        const text = rm.contents.get(f.path) ?? '';
        tokens += countTokens(text);
        const squashed = squash(text);
        for (const u of analyses.get(f.path)!.units) if (u.exported && squashed.includes(sigKey(u.signature))) looseKept++;
      }
      row.repomix = { tokens, ms: rm.ms, looseKept, files: rm.contents.size };
    }
    rows.push(row);
  }
  return rows;
}

async function structuralBench(): Promise<void> {
  const py = pythonStdlib();
  const corpus = load(sized('Python stdlib (full)', 'Python stdlib (first files)'), py, walk(py, ['.py'], ['site-packages']), sized(Infinity, 20_000));
  const threads = THREADS;
  const pool = new Piscina({ filename: new URL('./worker.js', import.meta.url).href, minThreads: threads, maxThreads: threads });
  // Warm the pool (thread start, grammar load) the way a running server would be.
  await Promise.all(Array.from({ length: threads }, () => pool.run({ task: 'analyzeFiles', input: { files: [{ path: 'w.py', content: 'def f():\n    pass\n' }] } })));
  const query = 'parse HTTP response headers and cookies';
  const focus = ['HTTPConnection.request'];
  const runs: Array<{ label: string; total: number; analyze: number; cpu: number; result: StructuralResult }> = [];
  for (const label of ['query', 'query + focus_symbols']) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    // Batches of ~256 KB, largest files first, so both threads stay busy to the end.
    const parts = (await Promise.all(batches(corpus.files).map((files) => pool.run({ task: 'analyzeFiles', input: { files } })))) as FileAnalysis[][];
    const analyses = parts.flat();
    const t1 = performance.now();
    const result = structuralFromAnalyses(analyses, { query, focus_symbols: label === 'query' ? [] : focus, token_budget: 8000 });
    const t2 = performance.now();
    const c = process.cpuUsage(c0);
    runs.push({ label, total: t2 - t0, analyze: t1 - t0, cpu: (c.user + c.system) / 1000, result });
  }
  await pool.destroy();
  // Same work in one thread, for the speed-up.
  const sc0 = process.cpuUsage();
  const s0 = performance.now();
  structuralFromAnalyses(analyzeFiles(corpus.files), { query, token_budget: 8000 });
  const single = performance.now() - s0;
  const sc = process.cpuUsage(sc0);
  const singleCpu = (sc.user + sc.system) / 1000;

  say(`### Whole repository: Python stdlib through the structural path (load average ${loadavg().map((l) => l.toFixed(1)).join(' / ')})`);
  say();
  say(`${corpus.files.length} files, ${fmt(mb(corpus.files))} MB (${corpus.skipped} files skipped: not valid UTF-8), ${threads} pool threads, token_budget 8000, query "${query}".`);
  say();
  say('CPU s = user+system CPU of the whole process (all pool threads) during the run: the load-independent cost; on an idle machine the wall time approaches (parse CPU / threads) + graph + rank + render.');
  say();
  say('| run | total wall s | CPU s | parse+extract (pool) wall s | graph s | rank s | render s | units | edges | output tokens | original tokens |');
  say('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of runs) {
    const t = r.result.timings_ms;
    say(`| ${r.label} | ${fmt(r.total / 1000, 2)} | ${fmt(r.cpu / 1000, 1)} | ${fmt(r.analyze / 1000, 2)} | ${fmt(t.graph / 1000, 2)} | ${fmt(t.rank / 1000, 2)} | ${fmt(t.render / 1000, 2)} | ${r.result.units} | ${r.result.edges} | ${r.result.compressed_tokens} | ${r.result.original_tokens} |`);
  }
  say(`| same, one thread (no pool) | ${fmt(single / 1000, 2)} | ${fmt(singleCpu / 1000, 1)} | | | | | | | | |`);
  say();
  const withFocus = runs[1]!.result;
  say(`Focus \`${focus.join(', ')}\`: ${withFocus.blast_radius?.dependents.length ?? 0} dependents, ${withFocus.blast_radius?.dependencies.length ?? 0} dependencies, ${withFocus.blast_radius?.affected_files.length ?? 0} affected files, not_found: [${withFocus.not_found.join(', ')}].`);
  say();
  say('Top 8 units (query + focus):');
  say();
  say('| rank | unit | path | rendered | bm25 | blast | pagerank rank |');
  say('|---:|---|---|---|---:|---:|---:|');
  for (const u of withFocus.ranking.slice(0, 8)) say(`| ${u.rank} | ${u.name} | ${u.path} | ${u.rendered} | ${u.signals.bm25 ?? '-'} | ${u.signals.blast ?? '-'} | ${u.signal_ranks.pagerank} |`);
  say();
}

async function main(): Promise<void> {
  say(`## Code engine benchmark, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`);
  say();
  say(`Machine: ${availableParallelism()} cores (load average at start ${loadavg().map((l) => l.toFixed(1)).join(' / ')}: the machine is shared), Node ${process.version}. Per-language corpora capped at ${fmt(CAP / 1e6)} MB (first files in path order). Tokens: o200k_base.`);
  say();
  if (process.argv.includes('--structural-only')) {
    await structuralBench();
    writeTrackedFile(join(repoRoot, 'bench', 'code', 'last-run-structural.md'), lines.join('\n') + '\n');
    rmSync(tmp, { recursive: true, force: true });
    return;
  }
  const rows: Row[] = [];
  const pool = new Piscina({ filename: new URL('./worker.js', import.meta.url).href, minThreads: THREADS, maxThreads: THREADS });
  // Warm every grammar in this thread and in each pool thread, as on a server that has seen each language once.
  const warm = SUPPORTED_LANGUAGES.map((language) => ({ path: `warm.${language}`, content: 'x\n', language }));
  for (const w of warm) compressCode({ code: w.content, language: w.language, fidelity: 'balanced' });
  await Promise.all(Array.from({ length: THREADS }, () => pool.run({ task: 'analyzeFiles', input: { files: warm } })));
  for (const c of corpora()) {
    if (c.files.length === 0) continue;
    const t0 = performance.now();
    rows.push(...(await benchCorpus(c, pool)));
    console.error(`… ${c.label}: ${c.files.length} files in ${fmt((performance.now() - t0) / 1000)} s`);
  }
  await pool.destroy();
  say('### Throughput (single-file endpoint at balanced, one thread)');
  say();
  say('| corpus | language | files | MB | files/s | MB/s | files with parse errors |');
  say('|---|---|---:|---:|---:|---:|---:|');
  for (const r of rows) say(`| ${r.label} | ${r.language} | ${r.files} | ${fmt(r.mb, 2)} | ${fmt((r.files * 1000) / r.ms, 0)} | ${fmt((r.mb * 1000) / r.ms, 2)} | ${r.errorFiles} |`);
  say();
  say('### Token savings per fidelity (% of original tokens removed)');
  say();
  say(`| language | original tokens | ${FIDELITIES.join(' | ')} |`);
  say(`|---|---:|${FIDELITIES.map(() => '---:').join('|')}|`);
  for (const r of rows) say(`| ${r.language} | ${r.original} | ${FIDELITIES.map((f) => fmt((100 * (r.original - r.byFidelity[f]!)) / r.original)).join(' | ')} |`);
  say();
  say('### Balanced vs `repomix --compress` on the same files');
  say();
  say('Signatures: public definitions (by each language\'s convention) whose signature survives. "verbatim" = the exact multi-line signature text is in our skeleton; "first line" = whitespace-normalised first line without the trailing `:`/`{` (the only check that is fair to repomix, which drops the colon).');
  say();
  say(`Wall times: ours "1 thread" = the single-file endpoint (compressCode at balanced, token stats included) file by file in one thread; ours "pool" = the same files as analyzeFiles tasks (balanced skeleton + outline + token count) on a ${THREADS}-thread Piscina pool; repomix = \`node repomix.cjs <dir> --compress --style json\` process wall time (it also uses worker threads and counts tokens).`);
  say();
  say('| language | public defs | ours: signatures verbatim | ours: first line | repomix: first line | ours: savings | repomix: savings | ours: wall s (1 thread) | ours: wall s (pool) | repomix: wall s |');
  say('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) {
    const pct = (n: number): string => (r.publicDefs ? `${fmt((100 * n) / r.publicDefs)}%` : 'n/a');
    const rm = r.repomix;
    say(`| ${r.language} | ${r.publicDefs} | ${pct(r.strictKept)} | ${pct(r.looseKept)} | ${rm ? pct(rm.looseKept) : 'n/a'} | ${fmt((100 * (r.original - r.byFidelity.balanced!)) / r.original)}% | ${rm ? `${fmt((100 * (r.original - rm.tokens)) / r.original)}%` : 'n/a'} | ${fmt(r.ms / 1000, 2)} | ${fmt(r.poolMs / 1000, 2)} | ${rm ? fmt(rm.ms / 1000, 2) : 'n/a'} |`);
  }
  say();
  await structuralBench();
  writeTrackedFile(join(repoRoot, 'bench', 'code', quick ? 'last-run-quick.md' : 'last-run.md'), lines.join('\n') + '\n');
  rmSync(tmp, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

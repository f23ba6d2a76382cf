// Issue-detection bench: compress real documents with our own text engine, inject known faults into
// the compressions, and measure recall per fault kind, false positives on untouched compressions and
// the time to check a 10,000-token pair. Prints a markdown table and writes it into docs/detection.md.
//   npx tsc -p tsconfig.json; node dist/bench/detect/run.js [--verbose] [--write-docs] [--timing]
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { cpus, loadavg } from 'node:os';
import { compressText } from '../../workers/text/index.js';
import { countTokens } from '../../workers/shared/tokens.js';
import type { Fidelity } from '../../workers/shared/fidelity.js';
import { detectIssues } from '../../workers/detect/index.js';
import type { DetectResult } from '../../workers/detect/index.js';
import { loadDocuments, loadProbeFile } from '../quality/corpus.js';
import { rng } from '../lib/rng.js';
import { FAULT_KINDS, injectFault } from './faults.js';
import type { Fault, FaultKind } from './faults.js';
import { sized } from '../lib/smoke.js';

const VERBOSE = process.argv.includes('--verbose');
/** docs/detection.md gets the table only when asked (--write-docs): a plain run prints it. */
const WRITE = process.argv.includes('--write-docs');
/** Only the 10k-token timing table (quick re-measure on a quiet machine); never writes the doc. */
const TIMING_ONLY = process.argv.includes('--timing');
const FIDELITIES: Fidelity[] = ['balanced', 'outline'];
/** Faulty copies per compression and kind (each with its own RNG draw). */
const TRIALS = sized(3, 1);
const SEED = 20261122;
const EXTRA_READMES = sized(25, 1);
/** Timed runs per pair (after 5 warm-up runs). */
const RUNS = sized(50, 1);
/** Warm-up runs per pair, and the timed original's size in tokens. */
const WARMUP = sized(5, 1);
const TIMED_TOKENS = sized(10_000, 1_000);
/** Documents of the quality corpus used (smoke: one, plus one README). */
const CORPUS_DOCS = sized(Infinity, 1);

function corpus(): Map<string, string> {
  const docs = new Map<string, string>();
  const seen = new Set<string>();
  const add = (id: string, text: string) => {
    const h = createHash('sha1').update(text).digest('hex');
    if (seen.has(h) || text.length < 2000) return;
    seen.add(h);
    docs.set(id, text);
  };
  try {
    for (const [id, text] of [...loadDocuments(loadProbeFile().documents)].slice(0, CORPUS_DOCS)) add(id, text);
  } catch (e) {
    console.error(`quality corpus unavailable (${(e as Error).message}); using node_modules READMEs only`);
  }
  // More real documents: the largest READMEs under node_modules (deduplicated by content).
  let files: string[] = [];
  try {
    files = execFileSync('find', ['node_modules', '-name', 'README.md', '-size', '+8k'], { maxBuffer: 16 << 20 })
      .toString().split('\n').filter(Boolean);
  } catch { /* none */ }
  const sized = files.map((f) => ({ f, text: readFileSync(f, 'utf8') })).sort((a, b) => b.text.length - a.text.length || a.f.localeCompare(b.f));
  let extra = 0;
  for (const { f, text } of sized) {
    if (extra >= EXTRA_READMES) break;
    const before = docs.size;
    add(f.replace(/^node_modules\//, '').replace(/\/README\.md$/, ''), text);
    if (docs.size > before) extra++;
  }
  return docs;
}

const hallucinationsAtOrAbove = (r: DetectResult, min: 'medium' | 'high') =>
  r.issues.filter((i) => i.type === 'hallucination' && (i.severity === 'high' || (min === 'medium' && i.severity === 'medium')));

function spanOf(location: string | null): [number, number] | null {
  const m = location && /chars (\d+)-(\d+)/.exec(location);
  return m ? [Number(m[1]), Number(m[2])] : null;
}
function linesOf(location: string | null): number[] {
  if (!location) return [];
  const m = /^original:lines? ([^(]*)/.exec(location);
  if (!m) return [];
  const out: number[] = [];
  for (const part of m[1]!.split(',')) {
    const r = /(\d+)(?:-(\d+))?/.exec(part);
    if (!r) continue;
    const a = Number(r[1]), b = r[2] ? Number(r[2]) : a;
    for (let x = a; x <= b && x - a < 100000; x++) out.push(x);
  }
  return out;
}

/** Did the result catch the injected fault? (Definition documented in docs/detection.md.) */
function caught(f: Fault, r: DetectResult): boolean {
  if (f.kind === 'deleted_warning') {
    return r.issues.some((i) => i.type === 'blind_spot' && /warning/i.test(i.description) && linesOf(i.location).includes(f.originalLine!));
  }
  const [a, b] = f.span!;
  return hallucinationsAtOrAbove(r, 'medium').some((i) => {
    const s = spanOf(i.location);
    return s !== null && s[0] < b && a < s[1];
  });
}

interface KindStats { trials: number; caught: number; high: number; misses: string[] }

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}
function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
}

async function timing(docs: Map<string, string>) {
  // A ~10,000-token original: documents concatenated in a fixed order, cut at a paragraph boundary.
  const ordered = [...docs.entries()].sort((a, b) => a[0].localeCompare(b[0]));
  let text = '';
  for (const [, t] of ordered) {
    text += (text ? '\n\n' : '') + t;
    if (countTokens(text) >= TIMED_TOKENS) break;
  }
  const paras = text.split(/\n\n/);
  let cut = '';
  for (const p of paras) {
    const next = cut ? cut + '\n\n' + p : p;
    if (countTokens(next) > TIMED_TOKENS) break;
    cut = next;
  }
  const tokens = countTokens(cut);
  const rows: { pair: string; tokens: number; compTokens: number; cold: number; median: number; p95: number; cpu: number; cpuP95: number }[] = [];
  const r = rng(SEED);
  const balanced = (await compressText({ text: cut, fidelity: 'balanced' })).compressed_text;
  let faulty = balanced;
  for (const kind of FAULT_KINDS) faulty = injectFault(kind, cut, faulty, r)?.text ?? faulty;
  const cases: [string, string][] = [
    ['original vs balanced compression', balanced],
    ['original vs balanced + 5 injected faults', faulty],
    ['original vs itself (raw)', cut],
  ];
  for (const [pair, comp] of cases) {
    const t0 = performance.now();
    await detectIssues({ original_text: cut, compressed_text: comp });
    const cold = performance.now() - t0;
    for (let i = 0; i < WARMUP; i++) await detectIssues({ original_text: cut, compressed_text: comp });
    const times: number[] = [];
    const cpuTimes: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const c = process.cpuUsage();
      const s = performance.now();
      await detectIssues({ original_text: cut, compressed_text: comp });
      times.push(performance.now() - s);
      const u = process.cpuUsage(c);
      cpuTimes.push((u.user + u.system) / 1000);
    }
    rows.push({ pair, tokens, compTokens: countTokens(comp), cold, median: median(times), p95: pct(times, 0.95), cpu: median(cpuTimes), cpuP95: pct(cpuTimes, 0.95) });
  }
  return rows;
}

async function main() {
  const docs = corpus();
  if (TIMING_ONLY) {
    const t = await timing(docs);
    console.log(`| pair (10k-token original) | original tokens | compressed tokens | first call ms | median wall ms (${RUNS} runs) | p95 wall ms | median CPU ms | p95 CPU ms |`);
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const row of t) console.log(`| ${row.pair} | ${row.tokens} | ${row.compTokens} | ${row.cold.toFixed(1)} | ${row.median.toFixed(1)} | ${row.p95.toFixed(1)} | ${row.cpu.toFixed(1)} | ${row.cpuP95.toFixed(1)} |`);
    console.log(`\nload average ${loadavg()[0]!.toFixed(1)} / ${cpus().length} cores`);
    return;
  }
  const stats = new Map<FaultKind, KindStats>(FAULT_KINDS.map((k) => [k, { trials: 0, caught: 0, high: 0, misses: [] }]));
  let untouched = 0, fp = 0, fpAny = 0, lowH = 0, blind = 0, blindHigh = 0;
  const scores: number[] = [];
  const fpExamples: string[] = [];
  const r = rng(SEED);
  let origTokens = 0;
  for (const [id, text] of docs) {
    origTokens += countTokens(text);
    for (const fidelity of FIDELITIES) {
      const comp = (await compressText({ text, fidelity })).compressed_text;
      if (comp === text) continue;
      untouched++;
      const clean = await detectIssues({ original_text: text, compressed_text: comp });
      const bad = hallucinationsAtOrAbove(clean, 'medium');
      if (bad.length) {
        fp++;
        if (fpExamples.length < 10) fpExamples.push(`${id}/${fidelity}: ${bad[0]!.description} @ ${bad[0]!.location}`);
      }
      if (clean.issues.some((i) => i.type === 'hallucination')) fpAny++;
      lowH += clean.issues.filter((i) => i.type === 'hallucination' && i.severity === 'low').length;
      blind += clean.issues.filter((i) => i.type === 'blind_spot').length;
      blindHigh += clean.issues.filter((i) => i.type === 'blind_spot' && i.severity === 'high').length;
      scores.push(clean.quality_score);
      for (const kind of FAULT_KINDS) {
        const st = stats.get(kind)!;
        for (let t = 0; t < TRIALS; t++) {
          const f = injectFault(kind, text, comp, r);
          if (!f) break;
          st.trials++;
          const res = await detectIssues({ original_text: text, compressed_text: f.text });
          if (caught(f, res)) {
            st.caught++;
            if (kind === 'deleted_warning' || hallucinationsAtOrAbove(res, 'high').some((i) => { const s = spanOf(i.location); return s && s[0] < f.span![1] && f.span![0] < s[1]; })) st.high++;
          } else if (st.misses.length < 8) st.misses.push(`${id}/${fidelity}: ${f.note}`);
        }
      }
    }
  }
  // Extra false-positive check: query-guided compressions (the quality corpus probes) at balanced, and
  // every document at detailed. No faults are injected into these.
  let extra = 0, extraFp = 0;
  const extraExamples: string[] = [];
  const checkExtra = async (id: string, text: string, comp: string) => {
    if (comp === text) return;
    extra++;
    const bad = hallucinationsAtOrAbove(await detectIssues({ original_text: text, compressed_text: comp }), 'medium');
    if (bad.length) {
      extraFp++;
      if (extraExamples.length < 10) extraExamples.push(`${id}: ${bad[0]!.description} @ ${bad[0]!.location}`);
    }
  };
  let probes: { doc: string; query: string }[] = [];
  try {
    probes = loadProbeFile().probes;
  } catch { /* no probes */ }
  for (const p of probes.slice(0, sized(Infinity, 1))) {
    const text = docs.get(p.doc);
    if (text) await checkExtra(`${p.doc}?${p.query}`, text, (await compressText({ text, fidelity: 'balanced', query: p.query })).compressed_text);
  }
  for (const [id, text] of docs) await checkExtra(`${id}/detailed`, text, (await compressText({ text, fidelity: 'detailed' })).compressed_text);

  const date = new Date().toISOString().slice(0, 10);
  const lines: string[] = [];
  lines.push(`Measured ${date} (node ${process.version}, single thread): ${docs.size} documents (${origTokens} tokens; the text engine's quality corpus plus the largest node_modules READMEs), ` +
    `compressed by \`compressText\` at ${FIDELITIES.join(' and ')} = ${untouched} compressions; up to ${TRIALS} faulty copies per compression and kind, seed ${SEED}.`);
  lines.push('');
  lines.push('| fault kind | faulty copies | caught | recall | caught at high severity |');
  lines.push('|---|---:|---:|---:|---:|');
  for (const kind of FAULT_KINDS) {
    const s = stats.get(kind)!;
    lines.push(`| ${kind} | ${s.trials} | ${s.caught} | ${s.trials ? (s.caught / s.trials).toFixed(3) : 'n/a'} | ${s.caught ? (s.high / s.caught).toFixed(3) : 'n/a'} |`);
  }
  lines.push('');
  lines.push('| untouched compressions | with a medium/high hallucination (FP) | FP rate | with any hallucination (incl. low) | low hallucinations total | blind spots per compression | high blind spots per compression | median quality_score |');
  lines.push('|---:|---:|---:|---:|---:|---:|---:|---:|');
  lines.push(`| ${untouched} | ${fp} | ${(fp / Math.max(1, untouched)).toFixed(3)} | ${fpAny} | ${lowH} | ${(blind / Math.max(1, untouched)).toFixed(1)} | ${(blindHigh / Math.max(1, untouched)).toFixed(1)} | ${scores.length ? median(scores).toFixed(3) : 'n/a'} |`);
  lines.push('');
  lines.push(`Extra untouched compressions (query-guided balanced for the ${probes.length} quality probes, plus detailed for every document): ${extra}, with a medium/high hallucination: ${extraFp} (FP rate ${(extraFp / Math.max(1, extra)).toFixed(3)}).`);
  lines.push('');
  const t = await timing(docs);
  lines.push(`| pair (10k-token original) | original tokens | compressed tokens | first call ms | median wall ms (${RUNS} runs) | p95 wall ms | median CPU ms | p95 CPU ms |`);
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of t) lines.push(`| ${row.pair} | ${row.tokens} | ${row.compTokens} | ${row.cold.toFixed(1)} | ${row.median.toFixed(1)} | ${row.p95.toFixed(1)} | ${row.cpu.toFixed(1)} | ${row.cpuP95.toFixed(1)} |`);
  lines.push('');
  lines.push(`Machine load during the run (1-min load average / cores): ${loadavg()[0]!.toFixed(1)} / ${cpus().length}; wall times include time the process waited for a core, CPU times do not.`);
  const table = lines.join('\n');
  console.log(table);
  if (VERBOSE) {
    for (const [kind, s] of stats) if (s.misses.length) console.log(`\nmisses ${kind}:\n  ` + s.misses.join('\n  '));
    if (fpExamples.length) console.log('\nfalse positives:\n  ' + fpExamples.join('\n  '));
    if (extraExamples.length) console.log('\nfalse positives (extra):\n  ' + extraExamples.join('\n  '));
  }
  if (WRITE) {
    const file = resolve(process.cwd(), 'docs/detection.md');
    if (existsSync(file)) {
      const doc = readFileSync(file, 'utf8');
      const a = doc.indexOf('<!-- bench:start -->'), b = doc.indexOf('<!-- bench:end -->');
      if (a >= 0 && b > a) writeFileSync(file, doc.slice(0, a + '<!-- bench:start -->'.length) + '\n' + table + '\n' + doc.slice(b));
    }
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

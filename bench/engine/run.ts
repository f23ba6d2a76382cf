// Engine bench: in-process tinybench timings of compressText on 1k / 10k / 150k-token real documents.
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { Bench } from 'tinybench';
import { compressText } from '../../workers/text/index.js';
import { countTokens } from '../../workers/shared/tokens.js';
import type { Fidelity } from '../../workers/shared/fidelity.js';
import { pydocTopics } from '../quality/corpus.js';
import { writeDocSection } from '../quality/docfile.js';

const SIZES = [1_000, 10_000, 150_000];
const LEVELS: Fidelity[] = ['abstract', 'outline', 'balanced', 'detailed'];
const QUERY = 'How do I limit the number of worker threads and the queue size?';
const READMES = ['piscina', 'postgres', 'repomix', 'autocannon', 'tinybench', '@modelcontextprotocol/sdk'];

/** Real text pool: package READMEs then every Python documentation topic. */
function pool(): string {
  const parts = READMES.map((p) => readFileSync(resolve(process.cwd(), 'node_modules', p, 'README.md'), 'utf8'));
  const topics = pydocTopics('all');
  for (const k of Object.keys(topics).sort()) parts.push(topics[k]!);
  return parts.join('\n\n');
}

/** Longest prefix of the pool, cut at a blank line, with at most `tokens` tokens. */
function docOf(text: string, tokens: number): string {
  let lo = 0, hi = text.length;
  while (hi - lo > 64) {
    const mid = (lo + hi) >> 1;
    if (countTokens(text.slice(0, mid)) <= tokens) lo = mid;
    else hi = mid;
  }
  const cut = text.lastIndexOf('\n\n', lo);
  return text.slice(0, cut > 0 ? cut : lo);
}

async function median(name: string, fn: () => unknown, big: boolean): Promise<number> {
  const bench = new Bench({ time: big ? 300 : 800, iterations: big ? 5 : 20, warmupIterations: big ? 2 : 10 });
  bench.add(name, fn as () => void);
  await bench.run();
  const p50 = bench.tasks[0]?.result?.latency.p50;
  if (p50 === undefined) throw new Error(`no result for ${name}`);
  return p50;
}

/** CPU time (user + system) per call: much less sensitive than wall time to other processes on the machine. */
async function cpuPerCall(fn: () => unknown, calls: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) await fn();
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000 / calls;
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!;
  const text = pool();
  const rows: string[] = [];
  const bars: string[] = [];
  for (const size of SIZES) {
    const doc = docOf(text, size);
    const tokens = countTokens(doc);
    const big = size > 50_000;
    const base = await median(`countTokens ${size}`, () => countTokens(doc), big);
    const calls = big ? 3 : 20;
    const baseCpu = await cpuPerCall(() => countTokens(doc), calls);
    rows.push(`| ${tokens} | - | countTokens (baseline) | ${base.toFixed(2)} | ${baseCpu.toFixed(2)} | 1.0x | - |`);
    for (const mode of ['plain', 'query-guided'] as const) {
      for (const fidelity of LEVELS) {
        const input = { text: doc, fidelity, query: mode === 'plain' ? null : QUERY };
        const r = await compressText(input);
        const ms = await median(`${size} ${mode} ${fidelity}`, () => compressText(input), big);
        const cpuMs = await cpuPerCall(() => compressText(input), calls);
        rows.push(`| ${tokens} | ${fidelity} | ${mode} | ${ms.toFixed(2)} | ${cpuMs.toFixed(2)} | ${(ms / base).toFixed(1)}x | ${r.ratio.toFixed(4)} |`);
        const verdict = (limit: number, strict: boolean) =>
          `${(strict ? ms < limit : ms <= limit) ? 'met' : 'NOT met'} on wall time; CPU time ${cpuMs.toFixed(1)} ms ${(strict ? cpuMs < limit : cpuMs <= limit) ? 'within' : 'over'} it`;
        if (size === 10_000 && fidelity === 'balanced') bars.push(`10k ${mode} balanced: median ${ms.toFixed(1)} ms (bar <= 20 ms): ${verdict(20, false)}`);
        if (size === 150_000) bars.push(`150k ${mode} ${fidelity}: median ${ms.toFixed(0)} ms (bar < 500 ms): ${verdict(500, true)}`);
      }
    }
  }
  const cpu = cpus();
  const load = `1-minute load average ${loadBefore.toFixed(1)} before and ${loadavg()[0]!.toFixed(1)} after the run on ${cpu.length} cores (other processes share the machine; absolute times scale with that, the ratio to countTokens much less)`;
  const out = [
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, one thread, tinybench median (p50) latency. Documents are prefixes of real text (package READMEs, then Python's documentation topics); query-guided runs use the query "${QUERY}". "vs countTokens" divides by the median of a plain o200k_base countTokens over the same text in the same run. "CPU ms/call" is process user+system CPU time per call over 3 (150k) or 20 sequential calls.`,
    '',
    `Machine state: ${load}.`,
    '',
    '| Doc tokens | Fidelity | Mode | Median wall ms | CPU ms/call | Wall vs countTokens | Ratio kept |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
    ...bars.map((b) => `- ${b}`),
  ].join('\n');
  console.log(out);
  writeDocSection('engine', out);
}

await main();

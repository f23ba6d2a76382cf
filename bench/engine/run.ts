// Engine bench: in-process timings of compressText on real documents from 1k to 1M tokens, each
// against a plain countTokens over the same text in the same run (the machine is shared: ratios hold,
// absolute times drift with the load).
import { readFileSync, readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { compressText } from '../../workers/text/index.js';
import { countTokens } from '../../workers/shared/tokens.js';
import type { Fidelity } from '../../workers/shared/fidelity.js';
import { pydocTopics } from '../quality/corpus.js';
import { writeDocSection } from '../quality/docfile.js';
import { measurePair } from '../lib/latency.js';
import { SMOKE, sized } from '../lib/smoke.js';

/** Every fidelity and mode at these sizes; balanced (plain) alone on the growth table. */
const LEVEL_SIZES = sized([1_000, 10_000, 150_000], [1_000]);
const GROWTH_SIZES = sized([1_000, 10_000, 50_000, 150_000, 400_000, 1_000_000], [1_000]);
const LEVELS: Fidelity[] = ['abstract', 'outline', 'balanced', 'detailed'];
const QUERY = 'How do I limit the number of worker threads and the queue size?';
const READMES = ['piscina', 'postgres', 'repomix', 'autocannon', 'tinybench', '@modelcontextprotocol/sdk'];
/** Bars: balanced at 10k within 2x countTokens, at 150k within 3x. */
const BARS: Record<number, number> = { 10_000: 2, 150_000: 3 };

/** Every installed package's README.md, by package name (scoped packages included). */
function installedReadmes(): string[] {
  const root = resolve(process.cwd(), 'node_modules');
  const names: string[] = [];
  for (const d of readdirSync(root).sort()) {
    if (d.startsWith('.')) continue;
    if (d.startsWith('@')) for (const s of readdirSync(resolve(root, d)).sort()) names.push(`${d}/${s}`);
    else names.push(d);
  }
  const out: string[] = [];
  for (const name of names) {
    if (READMES.includes(name)) continue;
    try {
      out.push(readFileSync(resolve(root, name, 'README.md'), 'utf8'));
    } catch {
      // no README.md in this package
    }
  }
  return out;
}

/** Real text: the six READMEs, every Python documentation topic, then every other installed README. */
function pool(): string[] {
  const parts = READMES.map((p) => readFileSync(resolve(process.cwd(), 'node_modules', p, 'README.md'), 'utf8'));
  const topics = pydocTopics('all');
  for (const k of Object.keys(topics).sort()) parts.push(topics[k]!);
  return [...parts, ...(SMOKE ? [] : installedReadmes())].flatMap((p) => p.split(/\n{2,}/)).filter((p) => p.trim() !== '');
}

/** Longest prefix of the pool's paragraphs (joined by blank lines) with at most about `tokens` tokens. */
function docOf(paragraphs: string[], counts: number[], tokens: number): string {
  let sum = 0;
  let k = 0;
  while (k < paragraphs.length && sum + counts[k]! + 1 <= tokens) sum += counts[k++]! + 1;
  if (k === paragraphs.length) throw new Error(`the text pool holds only ${sum} tokens, fewer than ${tokens}`);
  return paragraphs.slice(0, k).join('\n\n');
}

interface Timing {
  wall: number;
  cpu: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

/** `fn` that also records the process CPU time (user + system, ms) of each call. */
function cpuRecorded(fn: () => unknown): { run: () => Promise<unknown>; samples: number[] } {
  const samples: number[] = [];
  const run = async () => {
    const c = process.cpuUsage();
    await fn();
    const d = process.cpuUsage(c);
    samples.push((d.user + d.system) / 1000);
  };
  return { run, samples };
}

/**
 * Median wall time (measurePair: calls alternate, so a change in the machine's load hits both
 * alike) and median CPU time of the baseline and the task.
 */
async function pair(base: () => unknown, task: () => unknown, tokens: number): Promise<{ base: Timing; task: Timing }> {
  const reps = sized(tokens > 500_000 ? 3 : tokens > 100_000 ? 5 : tokens > 20_000 ? 9 : 21, 1);
  const b = cpuRecorded(base);
  const t = cpuRecorded(task);
  const m = await measurePair(b.run, t.run, reps, sized(tokens > 500_000 ? 1 : 3, 0));
  return { base: { wall: m.a.p50, cpu: median(b.samples) }, task: { wall: m.b.p50, cpu: median(t.samples) } };
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0]!;
  const paragraphs = pool();
  const counts = paragraphs.map((p) => countTokens(p));
  const growth: string[] = [];
  const bars: string[] = [];
  for (const size of GROWTH_SIZES) {
    const doc = docOf(paragraphs, counts, size);
    const tokens = countTokens(doc);
    let units = 0;
    const input = { text: doc, fidelity: 'balanced' as Fidelity };
    const r = await compressText(input, { onTrace: (t) => (units = t.units.length) });
    const m = await pair(() => countTokens(doc), () => compressText(input), tokens);
    const wallRatio = m.task.wall / m.base.wall;
    const cpuRatio = m.task.cpu / m.base.cpu;
    growth.push(
      `| ${tokens} | ${units} | ${m.base.wall.toFixed(2)} | ${m.task.wall.toFixed(2)} | ${wallRatio.toFixed(2)}x | ${cpuRatio.toFixed(2)}x | ${((1000 * m.task.cpu) / tokens).toFixed(2)} | ${r.ratio.toFixed(4)} |`,
    );
    const bar = BARS[size];
    if (bar !== undefined) {
      bars.push(`${size / 1000}k plain balanced: ${wallRatio.toFixed(2)}x countTokens on wall time, ${cpuRatio.toFixed(2)}x on CPU time (bar <= ${bar}x): ${wallRatio <= bar ? 'met' : 'NOT met'}`);
    }
    console.log(growth[growth.length - 1]);
  }
  const rows: string[] = [];
  for (const size of LEVEL_SIZES) {
    const doc = docOf(paragraphs, counts, size);
    const tokens = countTokens(doc);
    for (const mode of ['plain', 'query-guided'] as const) {
      for (const fidelity of LEVELS) {
        const input = { text: doc, fidelity, query: mode === 'plain' ? null : QUERY };
        const r = await compressText(input);
        const m = await pair(() => countTokens(doc), () => compressText(input), tokens);
        rows.push(`| ${tokens} | ${fidelity} | ${mode} | ${m.task.wall.toFixed(2)} | ${m.task.cpu.toFixed(2)} | ${(m.task.wall / m.base.wall).toFixed(2)}x | ${r.ratio.toFixed(4)} |`);
        console.log(rows[rows.length - 1]);
      }
    }
  }
  const cpu = cpus();
  const load = `1-minute load average ${loadBefore.toFixed(1)} before and ${loadavg()[0]!.toFixed(1)} after the run on ${cpu.length} cores (other processes share the machine; absolute times scale with that, the ratio to countTokens much less)`;
  const out = [
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC on ${cpu.length} cores (${cpu[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, one thread, in process (no pool, so no input size limit). Documents are prefixes of real text (package READMEs, Python's documentation topics, then every other installed package's README), cut at paragraph breaks. Each figure is the median over alternating calls of compressText and of a plain o200k_base countTokens over the same text (3 calls at 1M tokens, up to 21 at 1k; CPU medians include the warm-up calls); "vs countTokens" divides the two medians of the same run.`,
    '',
    `Machine state: ${load}.`,
    '',
    'Growth, balanced without a query (CPU µs per token should stay about flat):',
    '',
    '| Doc tokens | Units | countTokens wall ms | compressText wall ms | Wall vs countTokens | CPU vs countTokens | CPU µs/token | Ratio kept |',
    '|---|---|---|---|---|---|---|---|',
    ...growth,
    '',
    ...bars.map((b) => `- ${b}`),
    '',
    `Every fidelity, plain and query-guided (query "${QUERY}"):`,
    '',
    '| Doc tokens | Fidelity | Mode | Median wall ms | Median CPU ms | Wall vs countTokens | Ratio kept |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
  console.log(out);
  writeDocSection('engine', out);
}

await main();

// Properties of the text engine's levels over installed READMEs and docs/*.md (issue 48):
// exact round trip (output with markers expanded == input), nesting (each level keeps what the level
// below keeps) and budgets (each level within budgetFor, or its response says why).
// Usage: node dist/bench/quality/properties.js [--sample N] [--query]
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { compressText } from '../../workers/text/index.js';
import type { CompressTextResult } from '../../workers/text/index.js';
import { budgetFor, type Fidelity } from '../../workers/shared/fidelity.js';

export const LEVELS: Fidelity[] = ['abstract', 'outline', 'balanced', 'detailed'];
const SERVED_MARKER = /\[… [^\]\n]*#(\d{12})\.(\d+)\]/g;

/** Every installed README and docs/*.md, in a stable order. */
export function corpusFiles(root = process.cwd()): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory() && depth < 6 && !e.isSymbolicLink()) walk(p, depth + 1);
      else if (e.isFile() && e.name === 'README.md') out.push(p);
    }
  };
  walk(resolve(root, 'node_modules'), 0);
  for (const f of readdirSync(resolve(root, 'docs'))) if (f.endsWith('.md')) out.push(resolve(root, 'docs', f));
  return out.sort();
}

/** Every `step`-th file, so a sample is deterministic and spread over the corpus. */
export function sampleOf<T>(all: T[], size: number): T[] {
  if (size >= all.length) return all;
  const step = all.length / size;
  return Array.from({ length: size }, (_, k) => all[Math.floor(k * step)]!);
}

/** The output with each served marker replaced by the text its id expands to (as /v1/expand does). */
export function expanded(text: string, r: CompressTextResult): string {
  if (!r.markers) return r.compressed_text;
  const { ref, spans } = r.markers;
  return r.compressed_text.replace(SERVED_MARKER, (m, mref: string, n: string) => (mref === ref ? text.slice(spans[2 * +n]!, spans[2 * +n + 1]!) : m));
}

export interface LevelRun {
  result: CompressTextResult;
  kept: Uint8Array | null;
}

/** One text at every level, with the unit flags each kept (null: the engine traced nothing). */
export async function allLevels(text: string, query?: string): Promise<Record<string, LevelRun>> {
  const runs: Record<string, LevelRun> = {};
  for (const fidelity of LEVELS) {
    let kept: Uint8Array | null = null;
    const result = await compressText({ text, fidelity, query, markerIds: true }, { onTrace: (t) => (kept = t.kept) });
    runs[fidelity] = { result, kept };
  }
  return runs;
}

/** Units kept at `lower` and not at `upper`. */
export function crossings(lower: Uint8Array | null, upper: Uint8Array | null): number {
  if (!lower || !upper) return 0;
  let bad = 0;
  for (let i = 0; i < lower.length; i++) if (lower[i] && !upper[i]) bad++;
  return bad;
}

async function main() {
  const args = process.argv.slice(2);
  const at = args.indexOf('--sample');
  const files = corpusFiles();
  const chosen = at >= 0 ? sampleOf(files, Number(args[at + 1])) : files;
  const withQuery = args.includes('--query');
  let longerBelow = 0, roundTripBad = 0, nestBad = 0, budgetBad = 0, checked = 0, reasons = 0;
  const examples: string[] = [];
  const t0 = Date.now();
  for (const f of chosen) {
    const text = readFileSync(f, 'utf8');
    const query = withQuery ? queryFor(text) : undefined;
    const runs = await allLevels(text, query);
    checked++;
    for (let k = 0; k < LEVELS.length; k++) {
      const lvl = LEVELS[k]!;
      const { result } = runs[lvl]!;
      if (expanded(text, result) !== text) {
        roundTripBad++;
        if (examples.length < 12) examples.push(`roundtrip ${lvl} ${f}`);
      }
      if (k > 0 && runs[LEVELS[k - 1]!]!.result.compressed_tokens > result.compressed_tokens) {
        longerBelow++;
        if (examples.length < 12) examples.push(`longer ${LEVELS[k - 1]}>${lvl} ${f}`);
      }
      if (k > 0 && crossings(runs[LEVELS[k - 1]!]!.kept, runs[lvl]!.kept) > 0) {
        nestBad++;
        if (examples.length < 12) examples.push(`nesting ${LEVELS[k - 1]}>${lvl} ${f}`);
      }
      const r = result as CompressTextResult & { budget_tokens?: number; over_budget?: string };
      const budget = r.budget_tokens ?? budgetFor(r.original_tokens, lvl);
      if (r.compressed_tokens > budget) {
        if (r.over_budget) reasons++;
        else {
          budgetBad++;
          if (examples.length < 12) examples.push(`budget ${lvl} ${f}: ${r.compressed_tokens} > ${budget}`);
        }
      }
    }
  }
  console.log(`${checked} files${withQuery ? ' (with a query)' : ''}, ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  console.log(`round trip not exact: ${roundTripBad}; levels crossing: ${nestBad}; over budget without a reason: ${budgetBad}; over budget with a reason: ${reasons}; a level longer than the level above: ${longerBelow}`);
  for (const e of examples) console.log('  ' + e);
}

/** A query a reader of this text might ask: its second heading's words, else its first words. */
export function queryFor(text: string): string {
  const headings = text.match(/^#{1,6} .+$/gm) ?? [];
  const h = headings[1] ?? headings[0] ?? text.slice(0, 60);
  return h.replace(/[#*`[\]()]/g, ' ').trim().slice(0, 80) || 'usage';
}

if (import.meta.url === `file://${process.argv[1]}`) await main();

// Ceiling of the chosen facts (bench/quality/heldout, issue 48) at each level's budget: a selection
// of the engine's own units (clauses, code lines, headings with their chains) that wants nothing but
// the chosen facts. Each kept unit costs its tokens and its requirements; every run of hidden units
// costs one marker of `marker` tokens; the title and lead may be kept first, as the engine keeps them.
// Greedy by new facts per priced token, so an estimate of the ceiling, not a bound.
// `--squeeze=0.955` prices sentence and clause units at that share of their tokens: the ceiling of
// compressing kept prose (4.5% of its tokens, docs/benchmarks.md item (c)).
// Run: npm run build && node dist/bench/quality/chosenOracle.js [--squeeze=f] [marker tokens ...]
import { compressText, type CompressTrace } from '../../workers/text/index.js';
import { budgetFor } from '../../workers/shared/fidelity.js';
import { heldoutFacts } from './facts.js';
import { sized } from '../lib/smoke.js';

const SQUEEZE = Number(process.argv.find((a) => a.startsWith('--squeeze='))?.slice(10) ?? 1);

interface Doc { name: string; text: string; facts: string[]; trace: CompressTrace; lead: Uint8Array }

async function load(): Promise<Doc[]> {
  const docs: Doc[] = [];
  for (const { name, text, facts } of heldoutFacts()) {
    let trace: CompressTrace | undefined;
    await compressText({ text, fidelity: 'detailed' }, { onTrace: (t) => (trace = t) });
    // The title and the lead: every unit of the document's first two blocks (heading, first paragraph).
    const lead = Uint8Array.from(trace!.units, (u) => (u.block <= 1 ? 1 : 0));
    docs.push({ name, text, facts, trace: trace!, lead });
  }
  return docs;
}

/** Chosen facts a fact-only selection of the document's units states at `budget` tokens. */
function ceiling(d: Doc, budget: number, marker: number, withLead: boolean): number {
  const { units, tokens, deps } = d.trace;
  const n = units.length;
  const unitText = units.map((u) => d.text.slice(u.start, u.end));
  const price = units.map((u, i) => (u.kind === 'sentence' ? tokens[i]! * SQUEEZE : tokens[i]!));
  const kept = new Uint8Array(n);
  const hidden = (j: number) => j >= 0 && j < n && !kept[j];
  let used = 0;
  let runs = 1;
  const keep = (i: number) => {
    const l = hidden(i - 1), r = hidden(i + 1);
    runs += l && r ? 1 : !l && !r ? -1 : 0;
    kept[i] = 1;
    used += price[i]!;
  };
  const stated = () => {
    const out = units.map((_, i) => (kept[i] ? unitText[i] : '\u0000')).join(' ');
    return d.facts.filter((f) => out.includes(f)).length;
  };
  if (withLead) for (let i = 0; i < n; i++) if (d.lead[i]) keep(i);
  for (;;) {
    const have = stated();
    let best = -1;
    let bestValue = 0;
    for (let i = 0; i < n; i++) {
      if (kept[i]) continue;
      const group = [i, ...deps[i]!.filter((r) => !kept[r])];
      const before = { used, runs };
      for (const g of group) keep(g);
      const gain = stated() - have;
      const price = used - before.used + (runs - before.runs) * marker;
      const fits = used + runs * marker <= budget;
      for (const g of group) kept[g] = 0;
      used = before.used;
      runs = before.runs;
      if (fits && gain > 0 && gain / Math.max(1, price) > bestValue) [best, bestValue] = [i, gain / Math.max(1, price)];
    }
    if (best < 0) break;
    for (const g of [best, ...deps[best]!.filter((r) => !kept[r])]) keep(g);
  }
  return stated();
}

const markers = process.argv.slice(2).filter((a) => !a.startsWith('--')).map(Number);
const docs = await load();
const levels = ['balanced', 'detailed'] as const;
console.log('Chosen facts a fact-only selection of the engine\'s units states at each level\'s budget (45 facts):');
console.log('| marker tokens | lead kept | balanced | detailed |\n|---:|---|---:|---:|');
for (const marker of markers.length ? markers : sized([0, 5, 9, 12, 14, 17], [14])) {
  for (const withLead of [true, false]) {
    const cells = levels.map((level) => {
      let kept = 0, total = 0;
      for (const d of docs) {
        kept += ceiling(d, budgetFor(d.trace.original, level), marker, withLead);
        total += d.facts.length;
      }
      return `${((100 * kept) / total).toFixed(1)}%`;
    });
    console.log(`| ${marker} | ${withLead ? 'yes' : 'no'} | ${cells.join(' | ')} |`);
  }
}

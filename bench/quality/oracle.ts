// Ceiling of detail retention at a budget (issue 23's 60% bar at balanced): a selection that wants
// nothing but facts. Units are lines split into sentences; each costs its tokens plus a separator,
// and every gap between kept units costs one marker. Greedy by new facts per priced token: a heuristic
// for this budgeted coverage problem, not a proven bound (marker costs interact), so it estimates the
// ceiling. Headings, coherence and everything else the engine values are ignored.
// Run: npm run build && node dist/bench/quality/oracle.js [share=0.2] [marker tokens=14 ...]
import { countTokens } from '../../workers/shared/tokens.js';
import { loadDocuments, loadProbeFile } from './corpus.js';
import { factsOf } from './facts.js';

const MIN_DOC_TOKENS = 2000;

function units(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.trim())
    .flatMap((line) => line.split(/(?<=[.!?])\s+(?=[A-Z`(["0-9])/))
    .filter((s) => s.trim());
}

/** Facts of `text` kept verbatim by the fact-only selection, and the document's distinct facts. */
function oracle(text: string, budget: number, markerTokens: number): { kept: number; total: number } {
  const all = factsOf(text);
  const us = units(text).map((u) => ({ u, tokens: countTokens(u) + 1, facts: [...factsOf(u)] }));
  const kept = new Array<boolean>(us.length).fill(false);
  const covered = new Set<string>();
  let used = markerTokens; // all hidden: one marker
  // A kept unit between two hidden ones splits a gap (one marker more); between two kept ones it
  // closes a gap (one marker less).
  const markerDelta = (i: number) => {
    const left = i > 0 && !kept[i - 1];
    const right = i < us.length - 1 && !kept[i + 1];
    return left && right ? 1 : !left && !right ? -1 : 0;
  };
  for (;;) {
    let best = -1;
    let bestValue = 0;
    let bestPrice = 0;
    us.forEach((x, i) => {
      if (kept[i]) return;
      const price = x.tokens + markerDelta(i) * markerTokens;
      if (used + price > budget) return;
      const fresh = x.facts.filter((f) => !covered.has(f)).length;
      const value = fresh / Math.max(1, price);
      if (value > bestValue) [best, bestValue, bestPrice] = [i, value, price];
    });
    if (best < 0) break;
    kept[best] = true;
    used += bestPrice;
    for (const f of us[best]!.facts) covered.add(f);
  }
  const out = us.filter((_, i) => kept[i]).map((x) => x.u).join('\n');
  let n = 0;
  for (const f of all) if (out.includes(f)) n++;
  return { kept: n, total: all.size };
}

const share = Number(process.argv[2] ?? 0.2);
const markers = process.argv.slice(3).map(Number);
const { documents, heldout_documents: heldout = [] } = loadProbeFile();
console.log(`Fact-only selection at ${share} of each document's tokens (documents of >= ${MIN_DOC_TOKENS} tokens), facts kept:`);
console.log('| marker tokens | tuning | held-out |\n|---:|---:|---:|');
for (const markerTokens of markers.length ? markers : [0, 8, 14]) {
  const cells = [documents, heldout].map((refs) => {
    let kept = 0;
    let total = 0;
    for (const text of loadDocuments(refs).values()) {
      const tokens = countTokens(text);
      if (tokens < MIN_DOC_TOKENS) continue;
      const r = oracle(text, Math.floor(tokens * share), markerTokens);
      kept += r.kept;
      total += r.total;
    }
    return `${((100 * kept) / total).toFixed(1)}%`;
  });
  console.log(`| ${markerTokens} | ${cells.join(' | ')} |`);
}

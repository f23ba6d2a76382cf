// Ceiling of clause-level units (issue 23 fidelity lever): in balanced's served output, how many tokens
// of kept sentences sit in clauses that add no fact, and what the freed budget would buy if refilled.
// Run: npm run build && node dist/bench/quality/clauses.js [level]
import { compressText, type CompressTrace } from '../../workers/text/index.js';
import { countTokens } from '../../workers/shared/tokens.js';
import type { Fidelity } from '../../workers/shared/fidelity.js';
import { loadDocuments, loadProbeFile } from './corpus.js';
import { factRetention, factsOf } from './facts.js';

const MARKER = /\[… [^\]]*\]/g;
/** Clause boundaries inside a sentence: after ; or :, around dashes and parentheses, before a conjunction. */
const CUT = /(?<=[;:])\s+|\s+[—–]\s+|,\s+(?=(?:which|and|but|or|so|while|whereas|where|when|because|although|though|unless|e\.g\.|i\.e\.|for example)\b)|\s+(?=\()|(?<=\))\s+/g;

function clauses(s: string): string[] {
  // Code spans are never cut: mask them before finding boundaries.
  const masked = s.replace(/`[^`]*`/g, (m) => 'x'.repeat(m.length));
  const out: string[] = [];
  let from = 0;
  for (const m of masked.matchAll(CUT)) {
    out.push(s.slice(from, m.index!));
    from = m.index! + m[0].length;
  }
  out.push(s.slice(from));
  return out.filter((c) => c.trim() !== '');
}

interface Cell { kept: number; total: number; out: number; freed1: number; freed15: number; sentTok: number; factless: number; refill1: number; refill15: number; refillAll: number; base: number }

async function measure(texts: readonly string[], level: Fidelity): Promise<Cell> {
  const c: Cell = { kept: 0, total: 0, out: 0, freed1: 0, freed15: 0, sentTok: 0, factless: 0, refill1: 0, refill15: 0, refillAll: 0, base: 0 };
  for (const text of texts) {
    let tr: CompressTrace | undefined;
    const r = await compressText({ text, fidelity: level, markerIds: true }, { onTrace: (t) => (tr = t) });
    const keptText = r.compressed_text.replace(MARKER, ' ');
    const f = factRetention(text, keptText);
    c.kept += f.kept; c.total += f.total; c.out += r.compressed_tokens;
    let freed1 = 0, freed15 = 0, factless = 0;
    tr!.units.forEach((u, i) => {
      if (!tr!.kept[i] || u.kind !== 'sentence') return;
      const s = text.slice(u.start, u.end);
      c.sentTok += tr!.tokens[i]!;
      const rest = keptText.replace(s, ' ');
      const parts = clauses(s);
      const adds = parts.map((p) => [...factsOf(p)].some((x) => !rest.includes(x)));
      if (!adds.some(Boolean)) { factless += tr!.tokens[i]!; return; }
      // Each maximal run of non-adding clauses becomes one elision: "…" (1 token) or a marker with an id (~15).
      for (let k = 0; k < parts.length; k++) {
        if (adds[k]) continue;
        let t = 0;
        while (k < parts.length && !adds[k]) t += countTokens(' ' + parts[k++]!);
        freed1 += Math.max(0, t - 1);
        freed15 += Math.max(0, t - 15);
      }
    });
    c.freed1 += freed1; c.freed15 += freed15; c.factless += factless;
    // Refill estimate: same engine at a firm budget raised by the freed tokens, against the firm base budget.
    const at = async (b: number) => {
      const x = await compressText({ text, fidelity: level, markerIds: true, budgetTokens: b });
      return factRetention(text, x.compressed_text.replace(MARKER, ' ')).kept;
    };
    c.base += await at(r.compressed_tokens);
    c.refill1 += await at(r.compressed_tokens + freed1);
    c.refill15 += await at(r.compressed_tokens + freed15);
    // Looser bound: fact-free whole kept sentences freed as well (as if they cost nothing to hide).
    c.refillAll += await at(r.compressed_tokens + freed1 + factless);
  }
  return c;
}

const pct = (a: number, b: number) => ((100 * a) / b).toFixed(1);
async function main(): Promise<void> {
  const level = (process.argv[2] ?? 'balanced') as Fidelity;
  const { documents, heldout_documents: held = [] } = loadProbeFile();
  const tune = [...loadDocuments(documents).values()].filter((t) => countTokens(t) >= 2000);
  for (const [name, texts] of [['tuning', tune], ['held-out', [...loadDocuments(held).values()]]] as const) {
    const c = await measure(texts, level);
    console.log(`${level} ${name}: facts in kept text ${pct(c.kept, c.total)}%; output ${c.out} tokens, kept sentences ${c.sentTok} (${pct(c.sentTok, c.out)}%), of which fact-free whole sentences ${c.factless}; ` +
      `freed by dropping clauses that add no fact: ${c.freed1} tokens with a 1-token "…" (${pct(c.freed1, c.out)}% of output), ${c.freed15} with a 15-token marker; ` +
      `refill at firm budget: base ${pct(c.base, c.total)}%, +freed("…") ${pct(c.refill1, c.total)}%, +freed(marker) ${pct(c.refill15, c.total)}%, +freed("…") + fact-free sentences ${pct(c.refillAll, c.total)}%`);
  }
}
await main();

// What navigable markers cost: savings and query-guided answer retention on the quality corpus
// (bench/quality), markers without ids vs with ids, in the same run. Usage: node dist/bench/markers/run.js
import { loadavg } from 'node:os';
import { compressText } from '../../workers/text/index.js';
import { countTokens } from '../../workers/shared/tokens.js';
import type { Fidelity } from '../../workers/shared/fidelity.js';
import { answered, loadDocuments, loadProbeFile } from '../quality/corpus.js';
import { shortPieces } from '../quality/facts.js';
import { sized } from '../lib/smoke.js';

const LEVELS: Fidelity[] = ['abstract', 'outline', 'balanced', 'detailed'];
const MIN_DOC_TOKENS = 2_000;
const MARKER = /\[… [^\]]*\]/g;

const { documents, probes } = loadProbeFile();
const docs = loadDocuments(documents);
const eligible = probes.filter((p) => docs.get(p.doc)?.includes(p.answer) && countTokens(docs.get(p.doc)!) >= MIN_DOC_TOKENS).slice(0, sized(Infinity, 1));
const ids = [...new Set(eligible.map((p) => p.doc))];
console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ${ids.length} documents, ${eligible.length} probes`);
const shorts = ids.flatMap((id) => shortPieces(docs.get(id)!, countTokens)).slice(0, sized(Infinity, 1));
console.log(`short: ${shorts.length} paragraphs of 50-200 tokens`);
console.log('| Fidelity | Savings, no ids | Savings, ids | Δ points | Retention, no ids | Retention, ids | Markers per output | Marker tokens share (ids) | Savings short, no ids | Savings short, ids |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const level of LEVELS) {
  const cells = [];
  for (const markerIds of [false, true]) {
    let savings = 0, hit = 0, markers = 0, markerTokens = 0, outTokens = 0;
    for (const id of ids) {
      const r = await compressText({ text: docs.get(id)!, fidelity: level, markerIds });
      savings += r.savings_percent;
      const ms = r.compressed_text.match(MARKER) ?? [];
      markers += ms.length;
      markerTokens += ms.reduce((s, m) => s + countTokens(m), 0);
      outTokens += r.compressed_tokens;
    }
    for (const p of eligible) if (answered((await compressText({ text: docs.get(p.doc)!, fidelity: level, query: p.query, markerIds })).compressed_text, p)) hit++;
    let short = 0;
    for (const text of shorts) short += (await compressText({ text, fidelity: level, markerIds })).savings_percent;
    cells.push({ savings: savings / ids.length, retention: (100 * hit) / eligible.length, markers: markers / ids.length, share: (100 * markerTokens) / Math.max(1, outTokens), short: short / Math.max(1, shorts.length) });
  }
  const [a, b] = cells as [typeof cells[0], typeof cells[0]];
  console.log(`| ${level} | ${a.savings.toFixed(1)}% | ${b.savings.toFixed(1)}% | ${(b.savings - a.savings).toFixed(2)} | ${a.retention.toFixed(1)}% | ${b.retention.toFixed(1)}% | ${b.markers.toFixed(1)} | ${b.share.toFixed(1)}% | ${a.short.toFixed(1)}% | ${b.short.toFixed(1)}% |`);
}

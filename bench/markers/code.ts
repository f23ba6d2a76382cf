// What navigable code markers cost (docs/markers.md): /v1/compress-code savings per fidelity, plain
// skeletons vs served ones (markerIds), same files, same run; and the engine's CPU time for each.
// Usage: node dist/bench/markers/code.js [--cap BYTES]   (default 400 kB per corpus)
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { compressCode, compressStructural } from '../../workers/code/index.js';
import type { Fidelity } from '../../workers/shared/fidelity.js';
import { load, nodeHeaders, pythonStdlib, walk, type Corpus } from '../code/corpora.js';
import { sized } from '../lib/smoke.js';

const LEVELS: Fidelity[] = ['abstract', 'outline', 'balanced', 'detailed'];
const capArg = process.argv.indexOf('--cap');
const CAP = capArg > 0 ? Number(process.argv[capArg + 1]) : sized(400_000, 5_000);
const MARKER = /#\d{12}\.\d+/g;

const corpora: Corpus[] = [];
const py = pythonStdlib();
corpora.push(load('python', py, walk(py, ['.py'], ['site-packages', 'test', 'idlelib', 'tkinter']), CAP));
corpora.push(load('typescript (this repo src/)', 'src', walk('src', ['.ts']), CAP));
const tsLib = join('node_modules', 'typescript', 'lib');
corpora.push(load('typescript (.d.ts)', tsLib, walk(tsLib, ['.d.ts']).filter((p) => !p.includes('/lib.dom') && !p.includes('webworker')), CAP));
const headers = nodeHeaders();
if (headers) corpora.push(load('c/c++ (node headers)', headers, walk(headers, ['.h']), CAP));
// Go sources when installed (bench/code's corpus); the git contrib sample otherwise.
const go = ['/usr/share/go-1.19/src', '/usr/lib/go-1.19/src'].find((d) => existsSync(d));
if (go) corpora.push(load('go', go, ['fmt', 'strings', 'bufio', 'net/http'].flatMap((d) => walk(join(go, d), ['.go'], ['testdata'])), CAP));
else corpora.push(load('go (git contrib)', '/usr/share/doc/git/contrib', walk('/usr/share/doc/git/contrib', ['.go']), CAP));

console.log(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}; cap ${CAP} bytes per corpus; o200k_base`);
console.log('| corpus | files | original tokens | fidelity | savings, plain | savings, ids | Δ points | markers | marker share of output | CPU ids / plain |');
console.log('|---|---:|---:|---|---:|---:|---:|---:|---:|---:|');
for (const c of corpora) {
  if (!c.files.length) continue;
  for (const fidelity of LEVELS) {
    const sums = { plain: { out: 0, cpu: 0 }, ids: { out: 0, cpu: 0 } };
    let original = 0, markers = 0, markerChars = 0, outChars = 0;
    // Alternate the two modes file by file so load drifts hit both alike.
    for (const f of c.files) {
      for (const markerIds of c.files.indexOf(f) % 2 ? [true, false] : [false, true]) {
        const t0 = process.cpuUsage();
        const r = compressCode({ code: f.content, filename: f.path, fidelity, markerIds });
        const t = process.cpuUsage(t0);
        const s = markerIds ? sums.ids : sums.plain;
        s.cpu += t.user + t.system;
        s.out += r.compressed_tokens;
        if (!markerIds) original += r.original_tokens;
        else {
          markers += (r.skeleton.match(MARKER) ?? []).length;
          // Characters of the labels (size and id), a rough share of the output.
          for (const m of r.skeleton.matchAll(/(?:  # | )\d+ tokens #\d{12}\.\d+/g)) markerChars += m[0].length;
          outChars += r.skeleton.length;
        }
      }
    }
    const pct = (out: number) => (100 * (original - out)) / original;
    console.log(
      `| ${c.label} | ${c.files.length} | ${original} | ${fidelity} | ${pct(sums.plain.out).toFixed(1)} | ${pct(sums.ids.out).toFixed(1)} | ${(pct(sums.ids.out) - pct(sums.plain.out)).toFixed(1)} | ${markers} | ${((100 * markerChars) / Math.max(1, outChars)).toFixed(1)}% | ${(sums.ids.cpu / sums.plain.cpu).toFixed(2)} |`,
    );
  }
}

// Structural path: a fixed token budget, so ids cost units rendered rather than savings.
console.log('\n| structural corpus | budget | units full / signature / outline, plain | with ids | markers |');
console.log('|---|---:|---|---|---:|');
for (const c of corpora.slice(0, 2)) {
  for (const token_budget of [2000, 8000]) {
    const cells = [false, true].map((markerIds) => {
      const r = compressStructural({ files: c.files.map((f) => ({ path: f.path, content: f.content })), token_budget, markerIds });
      const by = (t: string) => r.ranking.filter((u) => u.rendered === t).length;
      return { text: `${by('full')} / ${by('signature')} / ${by('outline')}`, markers: (r.output.match(MARKER) ?? []).length };
    });
    console.log(`| ${c.label} | ${token_budget} | ${cells[0]!.text} | ${cells[1]!.text} | ${cells[1]!.markers} |`);
  }
}

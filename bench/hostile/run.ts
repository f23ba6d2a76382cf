// Hostile-input bench: token counting and compression of pathological texts beside prose of the
// same length, in process. Ratios against prose from the same run; the library's own (quadratic)
// merge is timed on the smaller sizes as the baseline it replaced. `npm run bench:hostile`.
import { cpus, loadavg } from 'node:os';
import o200k from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens } from '../../workers/shared/tokens.js';
import { compressText } from '../../workers/text/index.js';
import { rng } from '../lib/rng.js';
import { sized } from '../lib/smoke.js';

const SIZES = sized([10_000, 40_000, 80_000, 320_000], [1_000]);
const LIBRARY_UP_TO = 40_000;

function inputs(n: number): Record<string, string> {
  const r = rng(5);
  const b64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const prose = 'The connection pool limits backend processes; idle connections still cost memory. ';
  return {
    prose: prose.repeat(Math.ceil(n / prose.length)).slice(0, n),
    'letters run': 'x'.repeat(n),
    base64: Array.from({ length: n }, () => b64[Math.floor(r() * 64)]).join(''),
    'CJK run': '漢字仮名交じり文'.repeat(Math.ceil(n / 8)).slice(0, n),
    digits: '1234567890'.repeat(Math.ceil(n / 10)).slice(0, n),
  };
}

/** Median of three cold runs: the tokenizer's merge cache is cleared first, as a new request's text would find it. */
function ms(fn: () => unknown): number {
  const runs: number[] = [];
  for (let i = 0; i < sized(3, 1); i++) {
    o200k.clearMergeCache();
    const t0 = performance.now();
    fn();
    runs.push(performance.now() - t0);
  }
  return runs.sort((a, b) => a - b)[runs.length >> 1]!;
}

async function main(): Promise<void> {
  console.log(`hostile-input bench, ${cpus().length} cores, load ${loadavg()[0]!.toFixed(2)}, ${new Date().toISOString()}`);
  console.log('| chars | input | count ms | × prose | library count ms | compress ms | × prose |');
  console.log('|---:|---|---:|---:|---:|---:|---:|');
  for (const n of SIZES) {
    const texts = inputs(n);
    let proseCount = 1;
    let proseCompress = 1;
    for (const [name, text] of Object.entries(texts)) {
      const count = ms(() => countTokens(text));
      const library = n <= LIBRARY_UP_TO ? ms(() => o200k.countTokens(text)).toFixed(1) : '—';
      o200k.clearMergeCache();
      const t0 = performance.now();
      await compressText({ text, fidelity: 'balanced', query: null, model: null });
      const compress = performance.now() - t0;
      if (name === 'prose') {
        proseCount = Math.max(0.05, count);
        proseCompress = Math.max(0.05, compress);
      }
      console.log(`| ${n.toLocaleString('en')} | ${name} | ${count.toFixed(1)} | ${(count / proseCount).toFixed(1)} | ${library} | ${compress.toFixed(1)} | ${(compress / proseCompress).toFixed(1)} |`);
    }
  }
}

void main();

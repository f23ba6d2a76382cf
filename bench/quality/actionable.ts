// Tuning corpus for what a reader acts on (issue 48), apart from the held-out set: sections of this
// repository's docs/*.md (600 to 1,750 tokens each, with the file's title) or installed READMEs of
// 3,000 to 9,000 characters, and the share of their numbers with units, endpoints, status and error
// codes, environment variables, --flags and defaults that a level keeps in its served kept text.
// Run: npm run build && node dist/bench/quality/actionable.js [--readmes] [level ...]
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { compressText } from '../../workers/text/index.js';
import type { Fidelity } from '../../workers/shared/fidelity.js';
import { sized } from '../lib/smoke.js';

/** Written apart from the engine's own pattern (workers/text/details.ts), so the engine is not graded by its own rule. */
const ACT = new RegExp(
  [
    String.raw`\b\d[\d,.]*\s?(?:ms|s|seconds?|minutes?|hours?|days?|KB|MB|GB|KiB|MiB|GiB|bytes?|%|requests?|tokens?|lines?|files?|characters?|retries|times)\b`,
    String.raw`\bport \d+|\b(?:GET|POST|PUT|PATCH|DELETE) \/[\w/{}:.-]*`,
    String.raw`\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|(?<![\w-])--[a-z][\w-]*`,
    String.raw`\bdefaults? (?:to|is) \S+`,
    String.raw`\b[45]\d\d\b`,
    String.raw`\bE[A-Z_]{3,}\b`,
  ].join('|'),
  'g',
);
const MARKER = /\[… [^\]]*\]/g;

function docSections(): string[] {
  const dir = resolve(process.cwd(), 'docs');
  const out: string[] = [];
  for (const f of readdirSync(dir).filter((f) => f.endsWith('.md'))) {
    const t = readFileSync(resolve(dir, f), 'utf8');
    const title = t.split('\n')[0] + '\n\n';
    for (const part of t.split(/\n(?=## )/).slice(1)) if (part.length > 2500 && part.length < 7000) out.push(title + part);
  }
  return out;
}

function readmes(): string[] {
  const root = resolve(process.cwd(), 'node_modules');
  const dirs = readdirSync(root).flatMap((d) => (d.startsWith('@') ? readdirSync(resolve(root, d)).map((s) => `${d}/${s}`) : [d]));
  return dirs
    .map((d) => resolve(root, d, 'README.md'))
    .filter(existsSync)
    .map((f) => readFileSync(f, 'utf8'))
    .filter((t) => t.length > 3000 && t.length < 9000);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const all = args.includes('--readmes') ? readmes() : docSections();
  const texts = sized(all, all.slice(0, 2));
  const levels = args.filter((a) => !a.startsWith('--')) as Fidelity[];
  for (const level of levels.length ? levels : sized<Fidelity[]>(['balanced', 'detailed'], ['balanced'])) {
    let kept = 0, total = 0, savings = 0, n = 0;
    for (const text of texts) {
      const facts = new Set(text.match(ACT) ?? []);
      if (facts.size < 3) continue;
      const r = await compressText({ text, fidelity: level, markerIds: true });
      const out = r.compressed_text.replace(MARKER, ' ');
      for (const f of facts) if (out.includes(f)) kept++;
      total += facts.size;
      savings += r.savings_percent;
      n++;
    }
    console.log(`${level}: ${((100 * kept) / total).toFixed(1)}% of ${total} actionable facts kept, savings ${(savings / n).toFixed(1)}% over ${n} texts`);
  }
}

await main();

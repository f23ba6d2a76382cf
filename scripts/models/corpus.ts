// Unlabelled English sentences for the build (common-component estimate and teacher distillation),
// taken from the Markdown docs of installed packages. Deterministic: sorted paths, hash order.
// The benchmark's retrieval corpus (Python pydoc topics) is deliberately not used here.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fnv1a } from '../../workers/embed/tokenizer-static.js';

function walk(dir: string, out: string[], depth = 0): void {
  if (depth > 6) return;
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch {
    return;
  }
  for (const e of entries) {
    const p = join(dir, e);
    let st;
    try {
      st = statSync(p);
    } catch {
      continue;
    }
    if (st.isDirectory()) walk(p, out, depth + 1);
    else if (/\.md$/i.test(e) && !/changelog|history|license/i.test(e) && st.size < 2_000_000) out.push(p);
  }
}

/** Prose-looking sentences, 6..40 words, deduplicated, in a stable pseudo-random order. */
export function collectSentences(root: string, limit: number): string[] {
  const files: string[] = [];
  walk(join(root, 'node_modules'), files);
  const seen = new Set<string>();
  for (const f of files) {
    const text = readFileSync(f, 'utf8')
      .replace(/```[\s\S]*?```/g, ' ') // fenced code
      .replace(/`[^`]*`/g, ' code ')
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links -> their text
      .replace(/<[^>]+>/g, ' ')
      .replace(/^[#>*\-\s|]+/gm, '');
    for (const para of text.split(/\n\s*\n/)) {
      for (const s of para.replace(/\s+/g, ' ').split(/(?<=[.!?])\s+(?=[A-Z])/)) {
        const t = s.trim();
        const words = t.split(' ').length;
        if (words < 6 || words > 40) continue;
        if (/[{}();=<>|\\$]|https?:/.test(t)) continue;
        const letters = t.replace(/[^A-Za-z ]/g, '').length;
        if (letters / t.length < 0.85) continue;
        seen.add(t);
      }
    }
  }
  return [...seen].sort((a, b) => fnv1a(a) - fnv1a(b) || (a < b ? -1 : 1)).slice(0, limit);
}

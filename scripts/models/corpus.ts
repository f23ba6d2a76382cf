// Unlabelled English sentences for the build (common-component estimate and teacher distillation),
// taken from the Markdown docs of installed packages. Deterministic: sorted paths, hash order.
// The benchmark's retrieval corpus (Python pydoc topics) is deliberately not used here.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
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

/** `node_modules/a/node_modules/@s/b/docs/x.md` -> `node_modules/a/node_modules/@s/b`, the lock file's key. */
function packageKey(rel: string): string {
  const parts = rel.split(sep);
  const last = parts.lastIndexOf('node_modules');
  return parts.slice(0, last + (parts[last + 1]?.startsWith('@') ? 3 : 2)).join('/');
}

/**
 * Markdown files (no changelogs or licences) of the pinned corpus packages (corpus-packages.json),
 * in sorted order: a dependency added later must not change the model.
 */
export function markdownFiles(root: string): string[] {
  const { packages } = JSON.parse(readFileSync(join(root, 'scripts', 'models', 'corpus-packages.json'), 'utf8')) as { packages: string[] };
  const missing = packages.filter((p) => !existsSync(join(root, p)));
  if (missing.length) throw new Error(`corpus packages not installed (run npm install): ${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''}`);
  const pinned = new Set(packages);
  const files: string[] = [];
  walk(join(root, 'node_modules'), files);
  return files.filter((f) => pinned.has(packageKey(relative(root, f))));
}

/** Prose-looking sentences, 6..40 words, deduplicated, in a stable pseudo-random order. */
export function collectSentences(root: string, limit: number): string[] {
  const files = markdownFiles(root);
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

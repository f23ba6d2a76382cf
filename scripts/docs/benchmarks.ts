// Fills docs/benchmarks.md from the measured sections of the area docs, so each table has one
// source: `npm run docs:benchmarks`. A block
//   <!-- include: docs/code-engine.md#Benchmarks -->  …  <!-- /include -->
// is replaced by the body of that file's section whose heading text is `Benchmarks` (up to the next
// heading of the same or a higher level). A test fails when the file is out of date.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../../src/lib/root.js';

const INCLUDE = /(<!-- include: ([^#\s]+)#(.+?) -->\n)[\s\S]*?(<!-- \/include -->)/g;

/** Body of the section titled `title` in markdown `text` (heading line excluded). */
export function sectionBody(text: string, title: string, source = 'document'): string {
  const lines = text.split('\n');
  let inFence = false;
  let start = -1;
  let level = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('```')) inFence = !inFence;
    const heading = inFence ? null : /^(#{1,6})\s+(.*)$/.exec(line);
    if (!heading) continue;
    if (start >= 0 && heading[1]!.length <= level) return lines.slice(start, i).join('\n').trim() + '\n';
    if (start < 0 && heading[2]!.trim() === title) {
      start = i + 1;
      level = heading[1]!.length;
    }
  }
  if (start < 0) throw new Error(`${source}: no section titled "${title}"`);
  return lines.slice(start).join('\n').trim() + '\n';
}

export function renderBenchmarksDoc(root = packageRoot()): string {
  const current = readFileSync(join(root, 'docs', 'benchmarks.md'), 'utf8');
  return current.replace(INCLUDE, (_m, open: string, file: string, title: string, close: string) => {
    const body = sectionBody(readFileSync(join(root, file), 'utf8'), title, file);
    return `${open}\n${body}\n${close}`;
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(join(packageRoot(), 'docs', 'benchmarks.md'), renderBenchmarksDoc());
  process.stdout.write('docs/benchmarks.md: includes refreshed\n');
}

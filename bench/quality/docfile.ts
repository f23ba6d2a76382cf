// Writes a bench's measured table into docs/text-engine.md between its markers, when asked (--write-docs).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** Only with `--write-docs` on the command line: a plain bench run never rewrites a tracked file. */
export function writeDocSection(name: 'quality' | 'engine', body: string): void {
  if (!process.argv.includes('--write-docs')) {
    console.log(`(docs/text-engine.md not rewritten: pass --write-docs to write the ${name} table)`);
    return;
  }
  const file = resolve(process.cwd(), 'docs/text-engine.md');
  if (!existsSync(file)) return;
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const doc = readFileSync(file, 'utf8');
  const a = doc.indexOf(start), b = doc.indexOf(end);
  if (a < 0 || b < a) return;
  writeFileSync(file, doc.slice(0, a + start.length) + '\n' + body + '\n' + doc.slice(b));
}
